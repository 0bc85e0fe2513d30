# ruff: noqa
"""The CPU backend's power of a NumPy integer scalar to a negative integer returned 0.

Found by the fuzzer as `np.power(np.sum(x), s)` with an int32 `x` and `s = -1`: NumPy
raises ValueError ("Integers to negative integer powers are not allowed."); the CPU
backend returned 0 (for arrays it raised, as NumPy does). Fixed: NumPy integer scalars
power by `helpers.integer_power`, which raises NumPy's error and wraps large powers
around as NumPy does (Numba's power had rounded them through floats).
"""

import numpy as np


def f(x, s):
    return np.power(np.sum(x), s)


ARGS = (np.array([1, 2], dtype=np.int32), -1)
BACKENDS = ("interpret", "cpu")
