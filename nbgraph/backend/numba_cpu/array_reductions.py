"""Reductions of a whole array, its rows or its columns, in NumPy's order.

Compiled once per machine (Numba's disk cache) and shared by every graph: a reduction of
an array that is already in memory needs no generated code.  ``method`` is one of the
constants below; ``zero`` is 0 in the accumulator's type, which is also the result's;
``converts``: NumPy converts the elements on the way (an integer array's mean), so it
sums them buffer by buffer.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from .pairwise import BUFFER, LEAF, flat, flat_sum, pairwise_sum, workspace

SUM, MEAN, VAR, STD, MAX, MIN = range(6)
CODES = {"sum": SUM, "mean": MEAN, "var": VAR, "std": STD, "max": MAX, "min": MIN}


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
        for i in range(size):
            d = f[begin + i] - shift
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
    """Whether ``v`` replaces ``m`` as the running max (or min)."""
    return v > m if method == MAX else v < m


@njit(cache=True, boundscheck=False)
def extreme(f, start, n, method):
    """max or min of ``f[start:start + n]``: NaN if any element is NaN, NumPy's error if
    there are none."""
    if n == 0:
        if method == MAX:
            raise ValueError("zero-size array to reduction operation maximum which has no "
                             "identity")
        raise ValueError("zero-size array to reduction operation minimum which has no "
                         "identity")
    return _extreme(f, start, n, method)


@njit(cache=True, boundscheck=False)
def _extreme(f, start, n, method):
    """The max (or min) of ``f[start:start + n]`` (n > 0), or its first NaN."""
    lanes = n - n % 8 if n >= 16 else 0
    m = f[start]
    if lanes:
        m, ok = _lanes(f, start, lanes, method)
        if not ok:  # a NaN somewhere: the result is NaN
            return _run(f, start, n, f[start], method)
    return _run(f, start + lanes, n - lanes, m, method)


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


@njit(cache=True, boundscheck=False)
def _lanes(f, start, n, method):
    """The best of ``f[start:start + n]`` (n a multiple of 8) over eight lanes, whose
    comparisons do not wait on each other, with unsigned indices (no negative-index
    checks); and whether no element was NaN."""
    s = uint64(start)
    m0, m1, m2, m3 = f[s], f[s + uint64(1)], f[s + uint64(2)], f[s + uint64(3)]
    m4, m5, m6, m7 = f[s + uint64(4)], f[s + uint64(5)], f[s + uint64(6)], f[s + uint64(7)]
    ok = (m0 == m0) & (m1 == m1) & (m2 == m2) & (m3 == m3) & (m4 == m4) & (m5 == m5) & \
        (m6 == m6) & (m7 == m7)
    i, end = s + uint64(8), s + uint64(n)
    while i < end:
        v0, v1, v2, v3 = f[i], f[i + uint64(1)], f[i + uint64(2)], f[i + uint64(3)]
        v4, v5, v6, v7 = f[i + uint64(4)], f[i + uint64(5)], f[i + uint64(6)], f[i + uint64(7)]
        ok = ok & (v0 == v0) & (v1 == v1) & (v2 == v2) & (v3 == v3) & (v4 == v4) & \
            (v5 == v5) & (v6 == v6) & (v7 == v7)
        m0 = v0 if _better(v0, m0, method) else m0
        m1 = v1 if _better(v1, m1, method) else m1
        m2 = v2 if _better(v2, m2, method) else m2
        m3 = v3 if _better(v3, m3, method) else m3
        m4 = v4 if _better(v4, m4, method) else m4
        m5 = v5 if _better(v5, m5, method) else m5
        m6 = v6 if _better(v6, m6, method) else m6
        m7 = v7 if _better(v7, m7, method) else m7
        i += uint64(8)
    for v in (m1, m2, m3, m4, m5, m6, m7):
        m0 = v if _better(v, m0, method) else m0
    return m0, ok


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
    cell[0] = np.float64(s) / np.float64(n)
    if method == MEAN:
        return cell[0]
    shift = cell[0]
    squares = zero + squared_deviations(f, start, n, shift, zero, buf, ws)
    cell[0] = np.float64(squares) / np.float64(max(n - ddof, 0))
    if method == STD:
        cell[0] = np.sqrt(cell[0])
    return cell[0]


@njit(cache=True)
def _scratch(zero, size):
    """What ``statistic`` works in: a result cell, a run buffer and the tree stacks."""
    return np.full(1, zero), np.empty(min(size, BUFFER), np.asarray(zero).dtype), \
        workspace(zero)


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
    """``method`` along the last axis of a 2-d array: each row as a whole array."""
    n0, n1 = a.shape
    out = np.empty(n0, np.asarray(zero).dtype)
    cell, buf, ws = _scratch(zero, n1)
    if not a.flags.c_contiguous and (n1 == 1 or a.strides[1] == a.itemsize):
        for i in range(n0):  # contiguous rows, apart
            out[i] = statistic(flat(a[i]), 0, n1, zero, method, ddof, converts, cell, buf, ws)
        return out
    f = flat(np.ascontiguousarray(a))
    for i in range(n0):
        out[i] = statistic(f, i * n1, n1, zero, method, ddof, converts, cell, buf, ws)
    return out


@njit(cache=True, boundscheck=False, error_model="numpy")
def columns(a, zero, method, ddof, converts):
    """``method`` along the first axis of a 2-d array.  NumPy adds the rows one after the
    other when rows are contiguous, and each column pairwise when columns are."""
    if a.shape[0] > 1 and a.shape[1] > 1 and a.strides[0] == a.itemsize:
        return rows(a.T, zero, method, ddof, converts)
    a = np.ascontiguousarray(a)
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
