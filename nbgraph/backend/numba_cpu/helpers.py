"""Small compiled functions the generated code calls (lists, ranges, NumPy scalar math)."""

from __future__ import annotations

import sys

import numpy as np
from numba import njit, types

from . import wrapping

_MADV_HUGEPAGE = 14
_HUGE_MIN_BYTES = 4 << 20
HAVE_MADVISE = sys.platform.startswith("linux")
# libc's madvise, linked by symbol name (so functions using it can be cached on disk).
_madvise = types.ExternalFunction("madvise", types.intc(types.uintp, types.uintp, types.intc))


@njit(cache=True)
def advise_huge(array):
    """Ask for transparent huge pages on a large fresh array, before it is touched: a
    big output then costs few page faults (NumPy does the same for its own arrays)."""
    size = array.size * array.itemsize
    if HAVE_MADVISE and size >= _HUGE_MIN_BYTES:
        start = (array.ctypes.data + 4095) & ~4095
        end = array.ctypes.data + size
        _madvise(start, end - start, _MADV_HUGEPAGE)
    return array


@njit(cache=True)
def filled(array, value):
    """``array`` with every element set to ``value`` (``np.zeros``/``np.ones`` of an
    array ``advise_huge`` saw before it was touched)."""
    array.fill(value)
    return array


@njit(cache=True)
def check_broadcast(source, target):
    """Raise ValueError unless shape ``source`` broadcasts to shape ``target`` (the
    interpret backend then finds the failing line and raises NumPy's own message)."""
    for k in range(1, len(source) + 1):
        size = source[len(source) - k]
        if size != 1 and (k > len(target) or size != target[len(target) - k]):
            raise ValueError("could not broadcast input array")


@njit(cache=True)
def _extent(array):
    """The first and one past the last byte address ``array`` reads (0, 0 if empty)."""
    low = array.ctypes.data
    high = low + array.itemsize
    for size, stride in zip(array.shape, array.strides):
        if size == 0:
            return 0, 0
        if stride < 0:
            low += (size - 1) * stride
        else:
            high += (size - 1) * stride
    return low, high


@njit(cache=True)
def apart(source, target):
    """``source``, or a copy of it where it may share memory with array ``target`` (their
    extents intersect): NumPy copies such a source before assigning it."""
    source_low, source_high = _extent(source)
    target_low, target_high = _extent(target)
    if source_low < target_high and target_low < source_high:
        return source.copy()
    return source


@njit(cache=True)
def put(out, index, values):
    """``out[index] = values`` for a vector ``out``, an integer vector ``index`` and a
    vector ``values`` (a scalar: of length 1), as NumPy does it: every index checked
    before anything is written (Numba's loop wrote up to a bad negative index), then
    the values broadcast to the index's length."""
    size = out.shape[0]
    for k in range(index.shape[0]):
        if index[k] < -size or index[k] >= size:
            raise IndexError("index out of bounds")
    if values.shape[0] != index.shape[0] and values.shape[0] != 1:
        raise ValueError("shape mismatch")
    index = apart(index, out)
    values = apart(values, out)
    step = 0 if values.shape[0] == 1 else 1
    for k in range(index.shape[0]):
        at = index[k]
        out[at + size if at < 0 else at] = values[k * step]


@njit(cache=True)
def put_masked(out, mask, values):
    """``out[mask] = values`` for vectors, as NumPy does it: the mask as long as
    ``out``, the values as many as its true elements (or one)."""
    if mask.shape[0] != out.shape[0]:
        raise IndexError("boolean index did not match indexed array")
    count = 0
    for k in range(mask.shape[0]):
        if mask[k]:
            count += 1
    if values.shape[0] != count and values.shape[0] != 1:
        raise ValueError("cannot assign the values where the mask is true")
    mask = apart(mask, out)
    values = apart(values, out)
    step = 0 if values.shape[0] == 1 else 1
    j = 0
    for k in range(mask.shape[0]):
        if mask[k]:
            out[k] = values[j * step]
            j += 1


@njit(cache=True, inline="always")
def clip(x, lo, hi):
    """One element of ``np.clip(x, lo, hi)`` with scalar bounds as NumPy's loop computes
    it: a NaN bound or element wins; of two equal values (signed zeros) the element is
    kept."""
    low = lo if lo != lo or lo > x else x
    return hi if hi != hi or hi < low else low


@njit(cache=True, inline="always")
def maximum(a, b):
    """One element of ``np.maximum`` of floats: a NaN wins; of two equal values (signed
    zeros) NumPy keeps the second."""
    return a if a > b or a != a else b


@njit(cache=True, inline="always")
def minimum(a, b):
    """One element of ``np.minimum`` of floats (see ``maximum``)."""
    return a if a < b or a != a else b


@njit(cache=True, inline="always")
def floor_divide(a, b):
    """One element of NumPy's ``//`` of signed integers: the minimum // -1 wraps around
    to the minimum (computed in 64 bits; the caller casts back), where the processor's
    division instruction traps and kills the process."""
    if b == -1:
        return wrapping.sub(np.int64(0), np.int64(a))
    return np.floor_divide(a, b)


@njit(cache=True, inline="always")
def remainder(a, b):
    """One element of NumPy's ``%`` of signed integers: 0 for a divisor of -1 (see
    ``floor_divide``)."""
    return np.remainder(a, b) if b != -1 else np.remainder(a, 1)


@njit(cache=True)
def broadcast_dim(size, other):
    """The broadcast of two dimension sizes, as NumPy defines it."""
    if size == other or other == 1:
        return size
    if size == 1:
        return other
    raise ValueError("operands could not be broadcast together")


@njit(cache=True)
def range_len(start, stop, step):
    """len(range(start, stop, step)); ValueError for a zero step, like Python."""
    if step == 0:
        raise ValueError("range() arg 3 must not be zero")
    if step > 0:
        return max(0, (stop - start + step - 1) // step)
    return max(0, (start - stop - step - 1) // (-step))


def _empty_extremum_message() -> str:
    try:
        max([])
    except ValueError as error:
        return str(error)
    raise AssertionError("max([]) returned")


# Python's own words for max([]) ("max() arg is an empty sequence" before 3.12).
_EMPTY_MAX = _empty_extremum_message()
_EMPTY_MIN = _EMPTY_MAX.replace("max", "min")


@njit(cache=True)
def list_extremum(lst, largest):
    """max(lst) (``largest``) or min(lst) of numbers as Python picks it: the first item
    that no later one beats."""
    if len(lst) == 0:
        raise ValueError(_EMPTY_MAX if largest else _EMPTY_MIN)
    best = lst[0]
    for i in range(1, len(lst)):
        if (lst[i] > best) if largest else (lst[i] < best):
            best = lst[i]
    return best


@njit(cache=True)
def stack_scalars(lst, zero, needs_items):
    """np.array(list of scalars); ``zero`` gives the dtype; ``needs_items``: an empty
    list is NumPy's ValueError (np.stack, not np.array)."""
    if needs_items and len(lst) == 0:
        raise ValueError("need at least one array to stack")
    out = np.full(len(lst), zero)
    for i in range(len(lst)):
        out[i] = lst[i]
    return out


@njit(cache=True)
def stack_arrays(lst, empty, needs_items):
    """np.stack(list of equal-shape arrays); ``empty`` gives dtype (and shape if empty);
    ``needs_items``: an empty list is NumPy's ValueError (np.stack, not np.array)."""
    if needs_items and len(lst) == 0:
        raise ValueError("need at least one array to stack")
    first = lst[0] if len(lst) > 0 else empty
    out = np.empty((len(lst),) + first.shape, dtype=empty.dtype)  # noqa: RUF005 (Numba)
    for i in range(len(lst)):
        if lst[i].shape != first.shape:
            raise ValueError("all input arrays must have the same shape")
        out[i] = lst[i]
    return out


@njit(cache=True)
def concat_arrays(lst, empty):
    """np.concatenate(list of arrays) along axis 0."""
    if len(lst) == 0:
        raise ValueError("need at least one array to concatenate")
    first = lst[0]
    total = 0
    for i in range(len(lst)):
        total += lst[i].shape[0]
    out = np.empty((total,) + first.shape[1:], dtype=empty.dtype)  # noqa: RUF005 (Numba)
    at = 0
    for i in range(len(lst)):
        n = lst[i].shape[0]
        out[at : at + n] = lst[i]
        at += n
    return out


@njit(cache=True)
def math_result(r, x, y, overflows):
    """Python's math module's errors for a result of ``math.f(x[, y])`` on Python floats:
    NaN from non-NaN inputs is a domain error; infinity from finite inputs is a range
    error where the function can overflow, else a domain error (``math.log(0.0)``)."""
    if np.isnan(r) and not (np.isnan(x) or np.isnan(y)):
        raise ValueError("math domain error")
    if np.isinf(r) and np.isfinite(x) and np.isfinite(y):
        if overflows:
            raise OverflowError("math range error")
        raise ValueError("math domain error")
    return r


@njit(cache=True)
def float_power(x, y):
    """``x ** y`` on Python floats, with Python's ZeroDivisionError for 0.0 ** negative."""
    if x == 0.0 and y < 0.0:
        raise ZeroDivisionError("0.0 cannot be raised to a negative power")
    return x**y


@njit(cache=True)
def sign(x, one):
    """np.sign of a float, ``one`` in its type: NumPy's +0.0 for both zeros (Numba's
    keeps -0.0), and NaN for NaN."""
    if x > 0:
        return one
    if x < 0:
        return -one
    return one - one if x == 0 else x


@njit(cache=True)
def float_to_int(x):
    """int(x) of a float: Python's errors for NaN and infinities; beyond the 64-bit
    range, where Python's int keeps growing, an OverflowError rather than a wrapped
    value (the backend's Python ints are 64-bit)."""
    if x != x:
        raise ValueError("cannot convert float NaN to integer")
    if x == np.inf or x == -np.inf:
        raise OverflowError("cannot convert float infinity to integer")
    if not -9.223372036854775808e18 <= x < 9.223372036854775808e18:
        raise OverflowError("int() of a float beyond the 64-bit range on the CPU backend")
    return int(x)


@njit(cache=True)
def integer_power(x, y):
    """NumPy's power of integers, by squaring, wrapping around as NumPy's does (in 64
    bits; callers cast to the result's type), and ValueError for a negative exponent,
    as NumPy raises it for scalars and arrays alike (Numba's gives 0, and rounds large
    powers through floats)."""
    if y < 0:
        raise ValueError("Integers to negative integer powers are not allowed.")
    base, n, result = np.int64(x), np.int64(y), np.int64(1)
    while n > 0:
        if n & 1:
            result = wrapping.mul(result, base)
        base = wrapping.mul(base, base)
        n >>= 1
    return result


@njit(cache=True)
def add_at(x, index, values):
    """np.add.at on a copy of x, for one 1-d integer array indexing x's first axis:
    repeated indices add up (the gradient of ``x[index]``)."""
    out = x.copy()
    n = out.shape[0]
    if values.shape[0] != index.size and values.shape[0] != 1:
        raise ValueError("shape mismatch: value array could not be broadcast to indexing result")
    step = 1 if values.shape[0] == index.size else 0
    for k in range(index.size):
        i = index[k]
        if i < -n or i >= n:
            raise IndexError("index out of bounds for the first axis")
        out[i if i >= 0 else i + n] += values[k * step]
    return out


class Interrupted(Exception):
    """A compiled graph loop saw a pending signal (Ctrl-C, Jupyter's stop button); its
    arguments number the loop and count the iterations it completed.  The caller turns it
    into the KeyboardInterrupt Python has for it, at the loop's line."""


# Python's own check for pending signals; compiled code holds the GIL, so it may run
# the handlers (the default SIGINT handler raises KeyboardInterrupt).
_check_signals = types.ExternalFunction("PyErr_CheckSignals", types.intc())
_CHECK_EVERY = 1 << 14  # loop iterations between checks: a few microseconds at most


@njit(cache=True)
def interrupted(ticks):
    """Whether a signal is pending, looked at every ``_CHECK_EVERY`` iterations."""
    return (ticks & (_CHECK_EVERY - 1)) == 0 and _check_signals() != 0
