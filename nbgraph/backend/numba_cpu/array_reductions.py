"""Reductions of a whole array, its rows or its columns, in NumPy's order.

Compiled once per machine (Numba's disk cache) and shared by every graph: a reduction of
an array that is already in memory needs no generated code.  ``method`` is one of the
constants below; ``zero`` is 0 in the accumulator's type, which is also the result's;
``converts``: NumPy converts the elements on the way (an integer array's mean), so it
sums them buffer by buffer.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic, overload

from .pairwise import BUFFER, LEAF, flat, flat_sum, pairwise_sum, planned_sum, tree_plan, workspace

SUM, MEAN, VAR, STD, MAX, MIN = range(6)
CODES = {"sum": SUM, "mean": MEAN, "var": VAR, "std": STD, "max": MAX, "min": MIN}
# How a value replaces the running max or min in generated code (``_better`` here).
REPLACES = {"max": ">=", "min": "<="}


@njit(cache=True, boundscheck=False)
def squared_deviations(f, start, n, shift, zero, buf, ws):
    """The sum of ``(f[i] - shift) ** 2`` over ``f[start:start + n]`` in NumPy's pairwise
    order (as ``np.var`` adds the squares it stored), a run of ``LEAF`` at a time."""
    fo, po, fi, pi = ws
    depth = 0
    begin, size = start, n
    while True:
        while size > LEAF:
            half = size // 2
            half -= half % 8
            fo[depth, 0] = begin + half
            fo[depth, 1] = size - half
            fo[depth, 2] = 0
            depth += 1
            size = half
        run = f[begin : begin + size]  # indexed from 0: the loop vectorizes
        for i in range(size):
            d = run[i] - shift
            buf[i] = d * d
        value = pairwise_sum(buf, 0, size, zero, fi, pi)
        finished = True
        while depth > 0:
            d = depth - 1
            if fo[d, 2] == 0:
                po[d] = value
                fo[d, 2] = 1
                begin, size = fo[d, 0], fo[d, 1]
                finished = False
                break
            value = po[d] + value
            depth -= 1
        if finished:
            return value


@njit(cache=True, inline="always")
def _better(v, m, method):
    """Whether ``v`` replaces ``m`` as the running max (or min): of equal values NumPy
    keeps the last (it shows in the sign of a zero result)."""
    return v >= m if method == MAX else v <= m


@njit(cache=True, boundscheck=False)
def extreme(f, start, n, method):
    """max or min of ``f[start:start + n]``: NaN if any element is NaN, NumPy's error if
    there are none."""
    if n == 0:
        if method == MAX:
            raise ValueError("zero-size array to reduction operation maximum which has no identity")
        raise ValueError("zero-size array to reduction operation minimum which has no identity")
    return nonempty_extreme(f, start, n, method)


@njit(cache=True, boundscheck=False, inline="always")
def nonempty_extreme(f, start, n, method):
    """The max (or min) of ``f[start:start + n]`` (n > 0), or its first NaN.  Short runs
    go one element at a time, as NumPy does below its vector width.  Inlined: a call per
    short row would cost more than the row (its arrays' reference counting)."""
    if n < _SHORT:
        return _run(f, start, n, f[start], method)
    m, ok = _vectorized(f, start, n, method)
    return m if ok else _run(f, start, n, f[start], method)


@njit(cache=True, boundscheck=False)
def _run(f, start, n, m, method):
    """``m`` combined with ``f[start:start + n]`` one element at a time."""
    if m != m:
        return m
    for i in range(start, start + n):
        v = f[i]
        if v != v:
            return v
        if _better(v, m, method):
            m = v
    return m


_SHORT = 16  # runs shorter than this are compared one element at a time


def _vectorized(f, start, n, method):
    """(the best of ``f[start:start + n]``, whether no element was NaN) in one pass that
    LLVM vectorizes: integer max/min reductions need no fast-math flags, float ones do."""


@overload(_vectorized, jit_options={"boundscheck": False})
def _vectorized_impl(f, start, n, method):
    dtype = f.dtype
    if not isinstance(dtype, types.Float) or dtype.bitwidth not in (32, 64):

        def best(f, start, n, method):
            w = f[start : start + n]  # indexed from 0: no negative-index checks
            m = w[0]
            if method == MAX:
                for i in range(n):
                    m = max(m, w[i])
            else:
                for i in range(n):
                    m = min(m, w[i])
            return m, True

        return best
    # A float's bits as a signed integer, its magnitude bits flipped when negative, order
    # the floats (-0.0 below 0.0); the largest magnitude bits above infinity's are a NaN.
    bits = np.dtype(f"int{dtype.bitwidth}")
    magnitude = bits.type(np.iinfo(bits).max)
    sign = bits.type(dtype.bitwidth - 1)
    infinity = np.array(np.inf, str(dtype)).view(bits)[()]

    def best_of_bits(f, start, n, method):
        b = f.view(bits)[start : start + n]  # indexed from 0: no negative-index checks
        x = b[0]
        key = bits.type(x ^ ((x >> sign) & magnitude))
        size = bits.type(x & magnitude)
        if method == MAX:
            for i in range(n):
                x = b[i]
                key = max(key, bits.type(x ^ ((x >> sign) & magnitude)))
                size = max(size, bits.type(x & magnitude))
        else:
            for i in range(n):
                x = b[i]
                key = min(key, bits.type(x ^ ((x >> sign) & magnitude)))
                size = max(size, bits.type(x & magnitude))
        key = bits.type(key ^ ((key >> sign) & magnitude))
        return _float_of_bits(key, f[start]), size <= infinity

    return best_of_bits


@intrinsic
def _float_of_bits(typingctx, value, like):
    """The float of ``like``'s type whose bits are the integer ``value``."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(signature.return_type))

    return like(value, like), codegen


@njit(cache=True, boundscheck=False, error_model="numpy")
def statistic(f, start, n, zero, method, ddof, converts, cell, buf, ws):
    """``method`` of ``f[start:start + n]``, ``f`` being 1-d and contiguous (``cell``: a
    1-element array of the result's type, which converts as NumPy's ``dtype.type(...)``
    does)."""
    if method in (MAX, MIN):
        cell[0] = extreme(f, start, n, method)
        return cell[0]
    s = flat_sum(f, start, n, zero, converts, ws[2], ws[3], buf)
    if method == SUM:
        return s
    shift = _mean(s, n, cell)
    if method == MEAN:
        return shift
    squares = zero + squared_deviations(f, start, n, shift, zero, buf, ws)
    return _spread(squares, n, ddof, method, cell)


@njit(cache=True, inline="always")
def _mean(s, n, cell):
    """The mean from the sum, in the result's type (``cell``'s), as NumPy divides."""
    cell[0] = np.float64(s) / np.float64(n)
    return cell[0]


@njit(cache=True, inline="always")
def _spread(squares, n, ddof, method, cell):
    """var (or std) from the summed squared deviations, as NumPy divides them."""
    cell[0] = np.float64(squares) / np.float64(max(n - ddof, 0))
    if method == STD:
        cell[0] = np.sqrt(cell[0])
    return cell[0]


@njit(cache=True)
def _scratch(zero, size):
    """What ``statistic`` works in: a result cell, a run buffer and the tree stacks."""
    return np.full(1, zero), np.empty(min(size, BUFFER), np.asarray(zero).dtype), workspace(zero)


@njit(cache=True, boundscheck=False)
def whole(a, zero, method, ddof, converts):
    """``method`` of all of ``a``, its elements taken in memory order as NumPy does."""
    if a.flags.c_contiguous:
        f = flat(a)
    elif a.flags.f_contiguous:
        f = flat(a.T)
    else:
        f = flat(np.ascontiguousarray(a))
    cell, buf, ws = _scratch(zero, f.size)
    return statistic(f, 0, f.size, zero, method, ddof, converts, cell, buf, ws)


@njit(cache=True, boundscheck=False)
def rows(a, zero, method, ddof, converts):
    """``method`` along the last axis of a 2-d array: each row as a whole array; of a
    Fortran-ordered one, the columns added one after the other, as NumPy does."""
    n0, n1 = a.shape
    if n0 > 1 and n1 > 1 and a.strides[0] == a.itemsize and a.strides[1] != a.itemsize:
        return added_rows(np.ascontiguousarray(a.T), zero, method, ddof, converts)
    out = np.empty(n0, np.asarray(zero).dtype)
    cell, buf, ws = _scratch(zero, n1)
    if not a.flags.c_contiguous and (n1 == 1 or a.strides[1] == a.itemsize):
        for i in range(n0):  # contiguous rows, apart
            out[i] = statistic(flat(a[i]), 0, n1, zero, method, ddof, converts, cell, buf, ws)
        return out
    f = flat(np.ascontiguousarray(a))
    buffered = converts or method in (VAR, STD)  # a row goes through ``buf`` (LEAF long)
    if method not in (MAX, MIN) and n1 and (n1 <= LEAF or not buffered):
        # Every row has the same pairwise tree: planned once, not walked per row.
        plan, stack = tree_plan(n1), np.full(64, zero)
        for i in range(n0):
            out[i] = _planned_statistic(
                f, i * n1, n1, zero, method, ddof, converts, cell, buf, plan, stack
            )
        return out
    for i in range(n0):
        out[i] = statistic(f, i * n1, n1, zero, method, ddof, converts, cell, buf, ws)
    return out


@njit(cache=True, boundscheck=False, error_model="numpy", inline="always")
def _planned_statistic(f, start, n, zero, method, ddof, converts, cell, buf, plan, stack):
    """``statistic``'s sum, mean, var or std of ``f[start:start + n]`` by ``plan``
    (``tree_plan(n)``); ``buf`` holds ``n`` elements if ``converts`` or for var and std."""
    if converts:
        run = f[start : start + n]
        for j in range(n):
            buf[j] = run[j]
        s = zero + planned_sum(buf, 0, plan, zero, stack)
    else:
        s = zero + planned_sum(f, start, plan, zero, stack)
    if method == SUM:
        return s
    shift = _mean(s, n, cell)
    if method == MEAN:
        return shift
    run = f[start : start + n]  # indexed from 0: the loop vectorizes
    for j in range(n):
        d = run[j] - shift
        buf[j] = d * d
    squares = zero + planned_sum(buf, 0, plan, zero, stack)
    return _spread(squares, n, ddof, method, cell)


@njit(cache=True)
def last_axis(a, zero, method, ddof, converts):
    """``method`` along the last axis of an array of 3 or more dimensions: ``rows`` of
    the 2-d view whose rows are its last axis."""
    lead = 1
    for d in a.shape[:-1]:
        lead *= d
    view = np.ascontiguousarray(a).reshape((lead, a.shape[-1]))
    return rows(view, zero, method, ddof, converts).reshape(a.shape[:-1])


@njit(cache=True)
def first_axis(a, zero, method, ddof, converts):
    """``method`` along the first axis of an array of 3 or more dimensions: ``columns``
    of the 2-d view whose columns are its first axis."""
    rest = 1
    for d in a.shape[1:]:
        rest *= d
    view = np.ascontiguousarray(a).reshape((a.shape[0], rest))
    return columns(view, zero, method, ddof, converts).reshape(a.shape[1:])


@njit(cache=True, boundscheck=False, error_model="numpy")
def columns(a, zero, method, ddof, converts):
    """``method`` along the first axis of a 2-d array.  NumPy adds the rows one after the
    other when rows are contiguous, and each column pairwise when columns are."""
    if a.shape[0] > 1 and a.shape[1] > 1 and a.strides[0] == a.itemsize:
        return rows(a.T, zero, method, ddof, converts)
    return added_rows(np.ascontiguousarray(a), zero, method, ddof, converts)


@njit(cache=True, boundscheck=False, error_model="numpy")
def added_rows(a, zero, method, ddof, converts):
    """``method`` along the first axis of a C-contiguous 2-d array: its rows added one
    after the other (as NumPy adds them; ``converts`` changes nothing there)."""
    n0, n1 = a.shape
    out = np.empty(n1, np.asarray(zero).dtype)
    if method in (MAX, MIN):
        if n0 == 0 and n1 != 0:
            extreme(a[0], 0, 0, method)  # raises NumPy's error
        if n1:
            out[:] = a[0]
        _column_extremes(a, out, method)
        return out
    s = np.full(n1, zero)
    for i in range(n0):
        for j in range(n1):
            s[j] += a[i, j]
    if method == SUM:
        out[:] = s
        return out
    for j in range(n1):
        out[j] = np.float64(s[j]) / np.float64(n0)
    if method == MEAN:
        return out
    s[:] = zero
    for i in range(n0):
        for j in range(n1):
            d = a[i, j] - out[j]
            s[j] += d * d
    for j in range(n1):
        out[j] = np.float64(s[j]) / np.float64(max(n0 - ddof, 0))
        if method == STD:
            out[j] = np.sqrt(out[j])
    return out


@njit(cache=True, boundscheck=False)
def _column_extremes(a, out, method):
    """Rows 1, 2, ... of ``a`` compared into ``out`` (row 0), NaN sticking."""
    for i in range(1, a.shape[0]):
        row = a[i]
        for j in range(a.shape[1]):
            v = row[j]
            if _better(v, out[j], method) or v != v:
                out[j] = v
