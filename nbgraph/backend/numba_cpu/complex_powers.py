"""Complex powers as NumPy and Python compute them.

Numba computes ``a ** b`` of complex numbers through exp and log (CPython's
``_Py_c_pow``) except for ``b == 2``.  NumPy and Python both multiply for small integer
exponents, which is exact where the logarithm is not (``(3+4j) ** 1`` is ``3+4j``, not
``3.0000000000000004+3.9999999999999996j``) and keeps infinities apart (``(infj) ** 1``
is ``infj``, not ``inf+infj``).  They multiply in different ways, and they differ in
what they do with zero, so each has its own function here.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np
from llvmlite import binding, ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

_NUMPY_INTEGERS = 100  # NumPy multiplies for integer exponents strictly inside ±100
_PYTHON_INTEGERS = 100  # Python multiplies for integer exponents up to ±100

# Other complex128 powers NumPy leaves to the C library's cpow: called here too.
_C_LIBRARY = ctypes.CDLL(ctypes.util.find_library("m"))
binding.add_symbol("cpow", ctypes.cast(_C_LIBRARY.cpow, ctypes.c_void_p).value)


@intrinsic
def _c_cpow(typingctx, a, b):
    """The C library's ``cpow(a, b)`` of two complex128 (passed as C passes a
    ``double complex``: like a struct of two doubles)."""
    pair = ir.LiteralStructType([ir.DoubleType(), ir.DoubleType()])

    def codegen(context, builder, signature, args):
        cpow = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(pair, [pair, pair]), "cpow")
        operands = []
        for value in args:
            z = context.make_complex(builder, types.complex128, value)
            operands.append(cgutils.pack_struct(builder, [z.real, z.imag]))
        result = builder.call(cpow, operands)
        out = context.make_complex(builder, types.complex128)
        out.real = builder.extract_value(result, 0)
        out.imag = builder.extract_value(result, 1)
        return out._getvalue()
    return types.complex128(types.complex128, types.complex128), codegen


def numpy_power(a, b):
    """``np.power(a, b)`` of two complex numbers of the result's type."""


@overload(numpy_power, jit_options={"cache": True, "error_model": "numpy"})
def _numpy_power(a, b):
    if not isinstance(a, types.Complex):
        return None
    real = np.float32 if a.bitwidth == 64 else np.float64
    complex_type = np.complex64 if a.bitwidth == 64 else np.complex128
    # complex64: Numba's power, not the C library's cpowf (a C ``float complex`` is
    # passed unlike a struct on x86-64); it may differ from NumPy's in the last digits.
    general = _c_cpow if a.bitwidth == 128 else _numba_power

    def power(a, b):
        if b.real == 0 and b.imag == 0:
            return complex_type(1)
        if a.real == 0 and a.imag == 0:
            # 0 ** b is 0 where b's real part is positive, else undefined.
            return complex_type(0) if b.real > 0 else complex_type(complex(np.nan, np.nan))
        if b.imag == 0 and -_NUMPY_INTEGERS < b.real < _NUMPY_INTEGERS and \
                b.real == int(b.real):
            n = int(b.real)
            if n == 1:
                return a
            if n == 2:
                return a * a
            if n == 3:
                return a * (a * a)
            # Binary powers of a, multiplied in from the lowest bit up.
            n = abs(n)
            result = complex_type(1)
            square = a
            bit = 1
            while True:
                if n & bit:
                    result = result * square
                bit <<= 1
                if n < bit:
                    break
                square = square * square
            if b.real > 0:
                return result
            # 1 / result by NumPy's complex division: the larger part's ratio scales.
            one, zero = real(1.0), real(0.0)
            zr, zi = result.real, result.imag
            if abs(zr) >= abs(zi):
                if zr == 0 and zi == 0:
                    return complex_type(complex(one / abs(zr), zero / abs(zi)))
                ratio = zi / zr
                scale = one / (zr + zi * ratio)
                return complex_type(complex((one + zero * ratio) * scale,
                                            (zero - one * ratio) * scale))
            ratio = zr / zi
            scale = one / (zi + zr * ratio)
            return complex_type(complex((one * ratio + zero) * scale,
                                        (zero * ratio - one) * scale))
        return general(a, b)
    return power


@njit(cache=True, inline="always")
def _numba_power(a, b):
    return a ** b


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
        result = a ** b  # CPython's _Py_c_pow, as Numba's for b != 2
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
