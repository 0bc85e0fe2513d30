# ruff: noqa
"""The CPU backend's integer floor division of the dtype's minimum by -1 returns 0.

Found by the differential tests of Python ints meeting int32 arrays: NumPy's
`np.int32(-2**31) // -1` overflows and wraps to -2**31 (with a RuntimeWarning), as does
`-2**63 // -1` in int64; the CPU backend returned 0, and on NumPy scalars its division
instruction trapped and killed the process (see
cpu_int_min_floor_divide_of_scalars.py). Fixed: signed integer `//`, `%` and `np.fmod`
go through helpers that give NumPy's result for a divisor of -1.
"""

import numpy as np


def f(x, k):
    return x // np.int32(-1), k // np.int64(-1)


ARGS = (np.array([-2147483648, 6], dtype=np.int32),
        np.array([-9223372036854775808, 6], dtype=np.int64))
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {}
