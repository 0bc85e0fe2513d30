# ruff: noqa
"""The CPU backend's integer division of NumPy scalars, the dtype's minimum by -1,
killed the process (SIGFPE).

The processor's signed division instruction traps on this one quotient that does not fit;
NumPy checks for it and wraps to the minimum (`%` and `np.fmod` give 0). Fixed with
cpu_int_min_floor_divide_by_minus_one.py.
"""

import numpy as np


def f(a, b, c, d):
    return a // b, a % b, np.floor_divide(c, d), np.remainder(c, d), np.fmod(a, b)


ARGS = (np.int64(-9223372036854775808), np.int64(-1), np.int32(-2147483648), np.int32(-1))
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {}
