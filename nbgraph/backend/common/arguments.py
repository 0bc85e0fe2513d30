"""Arguments no Numba backend compiles for: checked before a run, named in the error."""

from __future__ import annotations

from typing import Any

import numpy as np


def unsupported_argument(value: Any) -> str | None:
    """Why Numba cannot take this argument (an array of dates, strings or objects, or
    in the other byte order), else None."""
    if not isinstance(value, np.ndarray):
        return None
    if value.dtype.kind not in "biufc" or value.dtype == np.float16:
        return f"an array of {value.dtype}, which Numba does not compile"
    if not value.dtype.isnative:
        return (
            f"a {value.dtype.newbyteorder('=')} array in the other byte order "
            f"({value.dtype.str}); .astype({value.dtype.name!r}) makes a native one"
        )
    return None
