"""Recognising Dask arrays among a call's arguments without importing Dask."""

from __future__ import annotations

import sys
from typing import Any


def is_dask_array(value: Any) -> bool:
    """Whether ``value`` is a ``dask.array.Array`` (False while Dask is not imported)."""
    core = sys.modules.get("dask.array.core")
    return core is not None and isinstance(value, core.Array)


def holds_dask_array(args: tuple, kwargs: dict) -> bool:
    """Whether a call's arguments hold a Dask array (also inside tuples, lists, dicts)."""
    core = sys.modules.get("dask.array.core")
    if core is None:
        return False

    def holds(value: Any) -> bool:
        if isinstance(value, core.Array):
            return True
        if type(value) in (tuple, list):
            return any(holds(v) for v in value)
        return type(value) is dict and any(holds(v) for v in value.values())

    return holds(args) or holds(kwargs)
