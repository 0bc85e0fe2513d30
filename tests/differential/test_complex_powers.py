"""Differential tests for complex powers: NumPy and Python multiply for integer exponents
(exact, infinities kept apart) and differ from each other in how; printed values show
every last digit and signed zero."""

import numpy as np
import pytest
from harness import case_id, check

BASES = [
    complex(3, 4),
    complex(-1, 0),
    complex(1.5, -2),
    complex(0, np.inf),
    complex(0, 0),
    complex(-0.0, 2),
    complex(1e-200, 1e-200),
    complex(1e200, -1),
    complex(np.nan, 1),
]
EXPONENTS = [1, 2, 3, 5, -1, -3, 0, 7, 99, -99, 100]


def numpy_scalar_powers(z, n):
    print(np.power(z, n), z**n, z**2)
    return z**n


def numpy_general_powers(z, w):
    print(np.power(z, w), z ** (w + 0.5), z**1e9)
    return np.power(w, z)


@pytest.mark.parametrize("z", BASES, ids=case_id)
def test_numpy_scalar_powers(z):
    for n in EXPONENTS:
        check(numpy_scalar_powers, np.complex128(z), n)
        check(numpy_scalar_powers, np.complex64(z), n)
    # Exponents that are not small integers: the C library's cpow(f), as NumPy's.
    check(numpy_general_powers, np.complex128(z), np.complex128(1.5 - 0.25j))
    check(numpy_general_powers, np.complex64(z), np.complex64(1.5 - 0.25j))


def python_complex_powers(z, n):
    w = complex(z)
    print(w**n, w**2, w ** complex(n, 0))
    return w**n


@pytest.mark.parametrize("z", BASES, ids=case_id)
def test_python_complex_powers_and_their_errors(z):
    for n in EXPONENTS:
        check(python_complex_powers, z, n)  # 0j ** -1 raises, 1e200 ** 2 overflows


def array_powers(z, n):
    print(np.power(z, 3)[:4], (z**n)[:4], z**-2)
    return z**n, np.power(z + 1, 2)


@pytest.mark.parametrize("size", [5, 40_000], ids=["compiled", "large"])
def test_array_powers(size):
    rng = np.random.default_rng(size)
    z = (rng.standard_normal(size) + 1j * rng.standard_normal(size)) * 10.0
    z[: len(BASES)] = BASES[:size]
    check(array_powers, z, 5)
    check(array_powers, z.astype(np.complex64), -3)
