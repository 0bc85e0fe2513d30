"""Device functions the generated kernels call (``df.`` in their source): NumPy's
scalar semantics where CUDA's or Python's differ.

Out-of-domain arguments give NaN and overflow gives inf, as NumPy's ufuncs do; the
guards also keep numba-cuda's simulator, which runs kernels as Python, from raising
Python's math errors.  Integer division by zero gives 0, as NumPy's does.
"""

from __future__ import annotations

import math

from ..common.wrapping import wrapping
from .checks import VALUE_ERROR
from .device import cuda, simulated

_device = cuda().jit(device=True)

# Products that are never fused with an addition into one FMA.  NVVM contracts a * b + c
# into fma(a, b, c) by default (one rounding), where NumPy rounds the product and then
# the sum; libdevice's mul_rn is "never merged".  (The simulator computes in Python.)
if simulated():

    @_device
    def mul_f64(x, y):
        return x * y

    mul_f32 = mul_f64
else:
    from numba.cuda import libdevice

    @_device
    def mul_f64(x, y):
        return libdevice.dmul_rn(x, y)

    @_device
    def mul_f32(x, y):
        return libdevice.fmul_rn(x, y)


_EXP_MAX = 709.782712893384  # math.log(sys.float_info.max)


@_device
def exp(x):
    return math.inf if x > _EXP_MAX else math.exp(x)


@_device
def expm1(x):
    return math.inf if x > _EXP_MAX else math.expm1(x)


@_device
def exp2(x):
    return math.inf if x > 1024.0 else math.pow(2.0, x)


@_device
def sinh(x):
    if abs(x) > _EXP_MAX + 0.6931471805599453:
        return math.copysign(math.inf, x)
    return math.sinh(x)


@_device
def cosh(x):
    return math.inf if abs(x) > _EXP_MAX + 0.6931471805599453 else math.cosh(x)


@_device
def log(x):
    if x < 0 or x != x:
        return math.nan
    return -math.inf if x == 0 else math.log(x)


@_device
def log2(x):
    if x < 0 or x != x:
        return math.nan
    return -math.inf if x == 0 else math.log2(x)


@_device
def log10(x):
    if x < 0 or x != x:
        return math.nan
    return -math.inf if x == 0 else math.log10(x)


@_device
def log1p(x):
    if x < -1 or x != x:
        return math.nan
    return -math.inf if x == -1 else math.log1p(x)


@_device
def sqrt(x):
    return math.nan if x < 0 or x != x else math.sqrt(x)


@_device
def cbrt(x):
    return -math.pow(-x, 1.0 / 3.0) if x < 0 else math.pow(x, 1.0 / 3.0)


@_device
def sin(x):
    return math.nan if math.isinf(x) else math.sin(x)


@_device
def cos(x):
    return math.nan if math.isinf(x) else math.cos(x)


@_device
def tan(x):
    return math.nan if math.isinf(x) else math.tan(x)


@_device
def arcsin(x):
    return math.nan if abs(x) > 1 or x != x else math.asin(x)


@_device
def arccos(x):
    return math.nan if abs(x) > 1 or x != x else math.acos(x)


@_device
def arccosh(x):
    return math.nan if x < 1 or x != x else math.acosh(x)


@_device
def arctanh(x):
    if abs(x) > 1 or x != x:
        return math.nan
    if abs(x) == 1:
        return math.copysign(math.inf, x)
    return math.atanh(x)


@_device
def deg2rad(x):
    return x * (math.pi / 180.0)


@_device
def rad2deg(x):
    return x * (180.0 / math.pi)


_INTEGRAL = 4503599627370496.0  # 2**52: floats this large are integers


@_device
def trunc(x):
    """Toward zero, as a float (math.trunc gives an int); inf and NaN kept, and the sign
    of a zero result (``trunc(-0.5)`` is -0.0, as NumPy's)."""
    if x != x or abs(x) >= _INTEGRAL:
        return x
    return math.copysign(x - math.fmod(x, 1.0), x)


@_device
def floor(x):
    t = trunc(x)
    return t - 1.0 if t > x else t


@_device
def ceil(x):
    t = trunc(x)
    return t + 1.0 if t < x else t


@_device
def rint(x):
    """Round half to even, as np.rint and np.round, the sign of a zero result kept
    (``rint(-0.4)`` is -0.0).  From the truncation and its exact remainder: adding 0.5
    first would round twice (0.49999999999999994 + 0.5 is 1.0)."""
    if x != x or abs(x) >= _INTEGRAL:
        return x
    t = trunc(x)
    rest = abs(x - t)
    if rest > 0.5 or (rest == 0.5 and math.fmod(t, 2.0) != 0):
        t += math.copysign(1.0, x)
    return t


@_device
def divide(a, b):
    if b == 0:
        if a == 0 or a != a:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


@_device
def power(a, b):
    if a == 1 or b == 0:
        return 1.0
    if a != a or b != b:
        return math.nan
    if a < 0 and b != trunc(b):
        return math.nan
    if a == 0:
        return math.inf if b < 0 else 0.0
    magnitude = b * math.log(abs(a))
    if magnitude > _EXP_MAX:
        sign = -1.0 if a < 0 and math.fmod(b, 2.0) != 0 else 1.0
        return sign * math.inf
    return math.pow(a, b)


if simulated():  # kernels run as Python, where NumPy's integers wrap already

    @_device
    def wrapping_add(a, b):
        return a + b

    @_device
    def wrapping_sub(a, b):
        return a - b

    @_device
    def wrapping_mul(a, b):
        return a * b

else:
    from numba.cuda.extending import intrinsic

    wrapping_add = wrapping("add", intrinsic)
    wrapping_sub = wrapping("sub", intrinsic)
    wrapping_mul = wrapping("mul", intrinsic)


@_device
def int_power(a, b, one, err, node):
    """a ** b for integers, wrapping like NumPy (``one``: 1 in a's dtype, so an unsigned
    product stays unsigned instead of meeting a signed 1 in a float); a negative exponent
    is NumPy's ValueError, reported through ``err``."""
    if b < 0:
        err[0] = VALUE_ERROR
        err[1] = node
        return a - a
    result = one
    while b > 0:
        if b & 1:
            result *= a
        a *= a
        b >>= 1
    return result


@_device
def fmod_float(a, b):
    return math.nan if b == 0 or a != a or b != b or math.isinf(a) else math.fmod(a, b)


@_device
def fmod_int(a, b):
    """C's integer remainder (the sign of the dividend), 0 for a zero divisor."""
    if b == 0:
        return a - a
    r = a % b
    if r != 0 and (r < 0) != (a < 0):
        r -= b
    return r


@_device
def floor_divide_int(a, b):
    return a - a if b == 0 else a // b


@_device
def remainder_int(a, b):
    return a - a if b == 0 else a % b


@_device
def remainder_float(a, b):
    """NumPy's float remainder: the sign of the divisor."""
    if b == 0 or a != a or b != b or math.isinf(a):
        return math.nan
    if math.isinf(b):
        return a if (a >= 0) == (b > 0) or a == 0 else b
    mod = math.fmod(a, b)
    if mod != 0:
        if (b < 0) != (mod < 0):
            mod += b
    else:
        mod = math.copysign(0.0, b)
    return mod


@_device
def floor_divide_float(a, b):
    """NumPy's float floor division (its npy_divmod)."""
    if b == 0 or a != a or b != b:
        return divide(a, b)
    if math.isinf(a):
        return math.nan
    mod = math.fmod(a, b)
    div = (a - mod) / b
    if mod != 0 and (b < 0) != (mod < 0):
        div -= 1.0
    if div == 0:
        return math.copysign(0.0, a / b)
    result = floor(div)
    if div - result > 0.5:
        result += 1.0
    return result


@_device
def maximum(a, b):
    """NaN wins, as in np.maximum; of two equal values (signed zeros) the second."""
    return a if a > b or a != a else b


@_device
def minimum(a, b):
    return a if a < b or a != a else b


@_device
def clip(x, low, high):
    """np.clip with scalar bounds as NumPy's loop for them computes it: NaN wins; of two
    equal values (signed zeros) the element is kept."""
    t = low if low != low or low > x else x
    return high if high != high or high < t else t


@_device
def clip_between(x, low, high):
    """np.clip with array bounds as NumPy's loop for them computes it: NaN wins; of two
    equal values (signed zeros) the bound is kept."""
    t = x if x > low or x != x else low
    return t if t < high or t != t else high


@_device
def fmax(a, b):
    """NaN loses, as in np.fmax."""
    return a if a >= b or b != b else b


@_device
def fmin(a, b):
    return a if a <= b or b != b else b


@_device
def sign(x):
    if x != x:
        return x
    return 1 if x > 0 else (-1 if x < 0 else 0)


@_device
def square(x):
    return x * x


@_device
def reciprocal(x):
    return 1 / x
