# ruff: noqa
"""The CPU backend's power of a NumPy integer scalar to a negative integer returns 0.

Found by the fuzzer as `np.power(np.sum(x), s)` with an int32 `x` and `s = -1`: NumPy
raises ValueError ("Integers to negative integer powers are not allowed."); the CPU
backend returns 0 (for arrays it raises, as NumPy does).
"""

import numpy as np


def f(x, s):
    return np.power(np.sum(x), s)


ARGS = (np.array([1, 2], dtype=np.int32), -1)
BACKENDS = ("interpret", "cpu")
XFAIL = {"cpu": "a NumPy integer scalar to a negative integer power gives 0, not ValueError"}
SIGNATURE = {"source": r"np\.power|\*\*", "kind": "error order"}
