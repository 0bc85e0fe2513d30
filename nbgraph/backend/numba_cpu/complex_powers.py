"""Python's complex power, with its errors.

Numba computes ``a ** b`` of complex numbers through exp and log (CPython's
``_Py_c_pow``) except for ``b == 2``.  Python multiplies for integer exponents up to
±100, which is exact where the logarithm is not (``(3+4j) ** 1`` is ``3+4j``, not
``3.0000000000000004+3.9999999999999996j``), and raises where Numba returns NaN or
infinity.  (NumPy's complex powers are its own loop's: ``numpy_loops``.)
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_PYTHON_INTEGERS = 100  # Python multiplies for integer exponents up to ±100


@njit(cache=True)
def python_power(a, b):
    """``a ** b`` of two Python complex numbers, with Python's errors: ZeroDivisionError
    for 0 to a negative or complex power, OverflowError for an infinite result."""
    if b.imag == 0 and b.real == np.floor(b.real) and abs(b.real) <= _PYTHON_INTEGERS:
        n = int(b.real)
        result = _python_unsigned_power(a, abs(n))
        if n <= 0:
            if result.real == 0 and result.imag == 0:
                raise ZeroDivisionError("0.0 to a negative or complex power")
            result = 1 / result  # Python's complex division, as Numba's
    else:
        if a.real == 0 and a.imag == 0:
            if b.imag != 0 or b.real < 0:
                raise ZeroDivisionError("0.0 to a negative or complex power")
        else:
            # CPython's _Py_c_pow takes the cosine of this phase; an infinite one is a
            # domain error, which Python reports as this ZeroDivisionError.
            phase = math.atan2(a.imag, a.real) * b.real
            if b.imag != 0:
                phase += b.imag * math.log(math.hypot(a.real, a.imag))
            if np.isinf(phase):
                raise ZeroDivisionError("0.0 to a negative or complex power")
        result = a**b  # CPython's _Py_c_pow, as Numba's for b != 2
    if np.isinf(result.real) or np.isinf(result.imag):
        raise OverflowError("complex exponentiation")
    return result


@njit(cache=True, inline="always")
def _python_unsigned_power(a, n):
    """``a ** n`` for an integer ``n >= 0`` as Python multiplies it: binary powers of
    ``a`` multiplied into 1, from the lowest bit up."""
    result = complex(1.0, 0.0)
    square = a
    bit = 1
    while n >= bit:
        if n & bit:
            result = result * square
        bit <<= 1
        square = square * square
    return result
