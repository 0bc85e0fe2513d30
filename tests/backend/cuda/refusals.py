"""What the CUDA backend refuses before running, and why: the only refusals tests accept.

The differential harness skips a CUDA case whose ``DeviceUnsupportedError`` matches an entry
here and fails one that matches none; ``test_refusals.py`` runs each entry's example and
fails once the backend stops refusing it, so the list stays exactly what the backend does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Refusal:
    """One kind of refusal: the message's pattern, the reason, and an example call."""

    pattern: str
    why: str
    example: str  # the body of ``def f(x):``, called with ``argument``
    argument: Any


REFUSALS: dict[str, Refusal] = {
    "complex arguments": Refusal(
        r"cannot take argument \d+ of graph '\w+': it is an array of complex numbers",
        "complex arrays have no GPU kernels: they are refused at the call",
        "return x",
        np.array([1 + 2j]),
    ),
    "complex arithmetic": Refusal(
        r"cannot run \S+ on \([^)]*(complex|\) giving complex)",
        "complex values made inside the graph (abs of a complex array, a complex constant "
        "times an array, x.astype(np.complex128)) have no GPU kernel",
        "return 1j * x",
        np.array([1.0, 2.0]),
    ),
    "order statistics": Refusal(
        r"cannot run np\.(median|nanmedian|percentile|nanpercentile|quantile|nanquantile|"
        r"sort|argsort|partition|unique) on",
        "sorting and selection have no GPU kernel",
        "return np.median(x)",
        np.array([3.0, 1.0, 2.0]),
    ),
    "element moves": Refusal(
        r"cannot run np\.(roll|flip|diff|outer) on",
        "np.roll, np.flip, np.diff and np.outer (elements moved or paired across "
        "positions) have no GPU kernel",
        "return np.roll(x, 1)",
        np.array([1.0, 2.0, 3.0]),
    ),
    "lists": Refusal(
        r"cannot run list_to_array on \(list",
        "a list grown in a graph loop becomes an array on the GPU through np.array, "
        "np.asarray, np.stack or np.concatenate; np.vstack, np.hstack and lists of "
        "tuples have no GPU path",
        "out = []\n    for i in range(len(x)):\n        out.append(x * i)\n"
        "    return np.vstack(out)",
        np.array([1.0, 2.0]),
    ),
    "arrays from host scalars": Refusal(
        r"cannot run np\.(array|stack|eye) on \((int|float|bool|np\.\w+)"
        r"(, (int|float|bool|np\.\w+))*\)",
        "arrays built from host scalars (np.array of numbers, np.stack of scalars, "
        "np.eye) are made on the host, which the GPU graph does not do",
        "return np.eye(len(x))",
        np.array([1.0, 2.0]),
    ),
    "indexing by one bool": Refusal(
        r"cannot index with a boolean scalar",
        "x[flag] and x[flag] = v with a boolean scalar (a new axis of length 1 or 0, "
        "an advanced index NumPy copies) have no GPU path",
        "x[np.sum(x) > 0] = 0.0\n    return x",
        np.array([1.0, 2.0]),
    ),
    "writes at an index array": Refusal(
        r"cannot run setitem on \(\w+ \d+-d array, "
        r"(u?int\d+ \d+-d array[,)]|bool \d+-d array, \w+ \d+-d array\))",
        "x[i] = v with an integer index array, and x[mask] = v with an array v, have no "
        "GPU kernel (x[mask] = number has one)",
        "x[np.array([1, 0])] = 1.0\n    return x",
        np.array([1.0, 2.0]),
    ),
}


def expected(error: BaseException) -> str | None:
    """The name of the entry a CUDA refusal is, or None if it is none of them."""
    message = str(error)
    return next(
        (name for name, refusal in REFUSALS.items() if re.search(refusal.pattern, message)), None
    )
