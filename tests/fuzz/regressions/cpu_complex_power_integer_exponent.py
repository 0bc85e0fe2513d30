# ruff: noqa
"""The CPU backend's complex power with an integer exponent is not exact, as NumPy's is.

Found by the fuzzer as `np.sqrt(np.power(a, a))` printed, a = complex(-1, 0): eager prints
-1j, the CPU backend (6.123233995736766e-17-1j). NumPy computes complex powers with small
integer exponents by multiplication ((-1+0j) ** 3 is exactly -1+0j); the CPU backend goes
through exp/log and leaves ~1e-16 imaginary parts. The values agree within tolerance; the
printed output does not.
"""

import numpy as np


def f(z):
    print(np.power(z, z), np.power(z, 3), z ** -1)
    return z


ARGS = (np.complex128(complex(-1.0, 0.0)),)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {"cpu": "complex ** integer is not exact (NumPy multiplies)"}
SIGNATURE = {"source": r"\*\*|np\.power\(", "kind": "last digits"}
