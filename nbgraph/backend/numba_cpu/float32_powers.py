"""``y ** 3`` and ``y ** 4`` of float32 values at the speed of multiplications, with the
bits of NumPy's ``power``.

NumPy raises float32 values to a power with the C library's ``powf``, about 20 ns an
element; ``y * y * y`` takes one but differs from it in the last bit for some inputs.
Here the power is computed in float64, where ``y * y`` is exact and only the last
product rounds, and that value is rounded to float32.  Rounding gives NumPy's result
wherever the float64 value is zero, infinite, or at least 2**-124 and further than
2**-30 of itself from a point where the float32 rounding changes: NumPy's own error is
smaller than that, checked over every float32 input for both exponents against
``powf`` and against NumPy's AVX-512 loop for negative bases (whose largest error there,
2**-30.4 of the value, was the bound; a single input, whose power is near 2**-126,
lay further).  The rest, about one input in 45, goes to NumPy's loop.

Which loop NumPy runs depends on the machine (another C library, NumPy's AVX-512
loops), so ``matching_signs`` checks these functions against ``np.power`` on sample
inputs of each sign first.  Where both signs match, a power is one more step of a
fused loop (``power_3``); where one does, blocks of elements (``power_into``) send the
bases of the other sign through NumPy's loop in one call: with AVX-512, NumPy's loop is
SIMD code (about 1 ns an element) for positive bases, whose last bits differ from
``powf``'s, and calls out to a slow path (about 90 ns) for negative ones, which the
float64 route matches away from rounding boundaries.  Where neither matches, graph mode
keeps NumPy's loop for every element.
"""

from __future__ import annotations

import functools
import operator

import numpy as np
from numba import njit

from ...graph.ir import Node
from . import numpy_loops

EXPONENTS = (3, 4)
_MARGIN = 2.0**-30  # relative distance from a rounding boundary NumPy's error stays within
_SMALLEST = 2.0**-124  # below it NumPy's loops round otherwise (near float32's subnormals)


@njit(cache=True, error_model="numpy")
def _wide(x, exponent):
    """``x ** exponent`` in float64: exact up to the last product's rounding."""
    wide = np.float64(x)
    square = wide * wide
    return square * wide if exponent == 3 else square * square


@njit(cache=True, error_model="numpy")
def _sure(wide):
    """Whether ``wide`` rounded to float32 is NumPy's result (without branches, so
    that loops calling it vectorize)."""
    near = np.float32(wide)
    size = abs(wide)
    return (
        (size == 0.0)
        | (size == np.inf)
        | (
            (size >= _SMALLEST)
            & (np.float32(wide * (1.0 + _MARGIN)) == near)
            & (np.float32(wide * (1.0 - _MARGIN)) == near)
        )
    )


@njit(cache=True)
def power_3(x):
    """``x ** 3`` of a float32 ``x``, as NumPy computes it."""
    wide = _wide(x, 3)
    return np.float32(wide) if _sure(wide) else numpy_loops.power(x, np.float32(3))


@njit(cache=True)
def power_4(x):
    """``x ** 4`` of a float32 ``x``, as NumPy computes it."""
    wide = _wide(x, 4)
    return np.float32(wide) if _sure(wide) else numpy_loops.power(x, np.float32(4))


@njit(cache=True, error_model="numpy")
def power_into(x, out, exponent, negative, positive):
    """``x ** exponent`` of a block of float32 values into ``out`` (which may be ``x``),
    as NumPy computes it: in float64 for bases of a sign that matches NumPy here
    (``negative``, ``positive``: zeros count as positive), the rest by one call of
    NumPy's loop over the block with 1 in their place.  Both loops vectorize."""
    n = x.size
    scratch = np.empty(3 * n, np.float32)  # one allocation: a block is short
    nears = scratch[:n]  # NaN where NumPy's loop computes the element
    bases = scratch[n : 2 * n]
    exponents = scratch[2 * n :]
    exponents[:] = exponent
    for j in range(n):
        v = x[j]
        wide = _wide(v, exponent)
        take = _sure(wide) & (((v < 0) & negative) | ((v >= 0) & positive))
        nears[j] = np.float32(wide) if take else np.float32(np.nan)
        bases[j] = np.float32(1.0) if take else v
    numpy_loops.power_into(bases, exponents, bases)
    for j in range(n):
        near = nears[j]
        out[j] = bases[j] if near != near else near


@njit(cache=True)
def _routed(x, exponent):
    """The float64 route's values of a 1-d array ``x``, and where ``_sure`` takes them
    (the check of ``matching_signs``, by the very functions kernels call)."""
    near = np.empty(x.size, np.float32)
    sure = np.empty(x.size, np.bool_)
    for j in range(x.size):
        wide = _wide(x[j], exponent)
        near[j] = np.float32(wide)
        sure[j] = _sure(wide)
    return near, sure


@functools.cache
def matching_signs(exponent: int) -> tuple[bool, bool]:
    """Whether the float64 route gives NumPy's bits here for negative and for positive
    bases, on 2**16 inputs of each sign spread over every float32 magnitude whose power
    is finite (about 10 ms, once)."""
    if exponent not in EXPONENTS:
        return False, False
    bits = np.random.default_rng(exponent).integers(0, 1 << 31, 1 << 16, dtype=np.uint64)
    x = bits.astype(np.uint32).view(np.float32)
    x = x[np.isfinite(x) & (x < 1e9)]
    matches = []
    for base in (-x, x):
        with np.errstate(all="ignore"):
            near, sure = _routed(base, exponent)
            expected = np.power(base, np.float32(exponent))
        matches.append(np.array_equal(near[sure].view(np.uint32), expected[sure].view(np.uint32)))
    return matches[0], matches[1]


def _power(node: Node) -> int | None:
    """The exponent of a node computing ``y ** 3`` or ``y ** 4`` of float32 ``y``."""
    call = node.arg
    if (
        call.fn not in (operator.pow, np.power)
        or call.kwargs
        or len(node.inputs) != 1
        or len(call.args) != 2
        or node.inputs[0].type.dtype != np.float32
        or node.type.dtype != np.float32
    ):
        return None
    k = call.args[1]
    return int(k) if type(k) in (int, float) and k in EXPONENTS else None


def exponent(node: Node) -> int | None:
    """The exponent of a float32 ``y ** 3`` or ``y ** 4`` that ``power_3``/``power_4``
    compute as NumPy does here for bases of both signs; None for any other node."""
    k = _power(node)
    return k if k is not None and all(matching_signs(k)) else None


def by_blocks(node: Node) -> tuple[int, bool, bool] | None:
    """The exponent and matching signs of a float32 ``y ** 3`` or ``y ** 4`` that
    ``power_into`` computes faster than NumPy's loop (one sign matches, not both)."""
    k = _power(node)
    if k is None:
        return None
    negative, positive = matching_signs(k)
    return (k, negative, positive) if negative != positive else None
