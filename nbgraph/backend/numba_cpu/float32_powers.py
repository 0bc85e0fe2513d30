"""``y ** 3`` and ``y ** 4`` of float32 values at the speed of multiplications, with the
bits of NumPy's ``power``.

NumPy raises float32 values to a power with the C library's ``powf``, about 20 ns an
element; ``y * y * y`` takes one but differs from it in the last bit for some inputs.
Here the power is computed in float64, where ``y * y`` is exact and only the last
product rounds, and that value is rounded to float32.  Rounding gives ``powf``'s result
wherever the float64 value lies further than 2**-31 of itself from a point where the
float32 rounding changes: ``powf``'s own error is smaller than that (checked over every
float32 input for both exponents).  The rest, about one input in 140, goes to
NumPy's loop.

Which loop NumPy runs depends on the machine (another C library, NumPy's AVX-512
loops), so ``matches_numpy`` checks these functions against ``np.power`` on sample
inputs first; where they differ, graph mode keeps NumPy's loop for every element.
"""

from __future__ import annotations

import functools
import operator

import numpy as np
from numba import njit

from ...graph.ir import Node
from . import numpy_loops

EXPONENTS = (3, 4)
_MARGIN = 2.0**-31  # relative distance from a rounding boundary that powf's error stays within


@njit(cache=True)
def _rounded(wide, x, exponent):
    """``wide`` rounded to float32 where that is ``powf``'s result, else NumPy's loop."""
    near = np.float32(wide)
    if np.float32(wide * (1.0 + _MARGIN)) == near and np.float32(wide * (1.0 - _MARGIN)) == near:
        return near
    return numpy_loops.power(x, np.float32(exponent))


@njit(cache=True)
def power_3(x):
    """``x ** 3`` of a float32 ``x``, as NumPy computes it."""
    wide = np.float64(x)
    return _rounded(wide * wide * wide, x, 3)


@njit(cache=True)
def power_4(x):
    """``x ** 4`` of a float32 ``x``, as NumPy computes it."""
    square = np.float64(x) * np.float64(x)
    return _rounded(square * square, x, 4)


def _sure(x: np.ndarray, exponent: int) -> tuple[np.ndarray, np.ndarray]:
    """What ``_rounded`` computes without NumPy's loop, and where it does, in NumPy."""
    wide = x.astype(np.float64)
    square = wide * wide
    wide = square * wide if exponent == 3 else square * square
    near = wide.astype(np.float32)
    up, down = (
        (wide * (1.0 + _MARGIN)).astype(np.float32),
        (wide * (1.0 - _MARGIN)).astype(np.float32),
    )
    return near, (up == near) & (down == near)


@functools.cache
def matches_numpy(exponent: int) -> bool:
    """Whether ``power_<exponent>`` gives NumPy's bits here, on 2**17 inputs spread over
    every float32 magnitude whose power is finite (a few milliseconds, once)."""
    if exponent not in EXPONENTS:
        return False
    bits = np.random.default_rng(exponent).integers(0, 1 << 32, 1 << 17, dtype=np.uint64)
    x = bits.astype(np.uint32).view(np.float32)
    with np.errstate(all="ignore"):
        x = x[np.isfinite(x) & (np.abs(x) < 1e9)]
        near, sure = _sure(x, exponent)
        expected = np.power(x, np.float32(exponent))
    return bool(np.array_equal(near[sure].view(np.uint32), expected[sure].view(np.uint32)))


def exponent(node: Node) -> int | None:
    """The exponent of a node computing ``y ** 3`` or ``y ** 4`` of float32 ``y`` that
    ``power_3``/``power_4`` compute as NumPy does here; None for any other node."""
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
    if type(k) not in (int, float) or k not in EXPONENTS or not matches_numpy(int(k)):
        return None
    return int(k)
