# ruff: noqa
"""Complex powers with integer exponents are exact on the CPU backend, as NumPy's are.

Found by the fuzzer as `np.sqrt(np.power(a, a))` printed, a = complex(-1, 0): eager
printed -1j, the CPU backend (6.123233995736766e-17-1j). NumPy multiplies for integer
exponents inside ±100 ((-1+0j) ** 3 is exactly -1+0j); Numba went through exp and log
and left ~1e-16 imaginary parts. The CPU backend now calls NumPy's own power loop
(`numpy_loops.py`).
"""

import numpy as np


def f(z):
    print(np.power(z, z), np.power(z, 3), z ** -1)
    return z


ARGS = (np.complex128(complex(-1.0, 0.0)),)
BACKENDS = ("interpret", "cpu", "cuda")
