"""Fused elementwise kernels of the CPU backend compute NumPy's values bit for bit:
``np.clip`` (NaNs and signed zeros included), powers, and the staged kernels that call
NumPy's own loops of ``exp``, ``tanh``, ``//``, ... on blocks."""

from __future__ import annotations

import re

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.backend.numba_cpu import float32_powers as float32_power
from nbgraph.backend.numba_cpu import staged as staged_kernels

SPECIAL = [np.nan, -np.inf, np.inf, -0.0, 0.0, -1.0, 1.0, 0.5, -2.5, 3.0]


def same_bits(eager: np.ndarray, graph: np.ndarray) -> None:
    """Equal dtypes, shapes and bit patterns (NaN payloads aside, signs of zeros kept)."""
    assert (eager.dtype, eager.shape) == (graph.dtype, graph.shape)
    nan = np.isnan(eager)
    assert np.array_equal(nan, np.isnan(graph))
    assert np.array_equal(eager[~nan], graph[~nan])
    assert np.array_equal(np.signbit(eager[~nan]), np.signbit(graph[~nan]))


def source_of(g) -> str:
    entry = next(iter(g.specializations.values()))
    return entry.run.__self__.source


def clip_scaled(x, lo, hi):
    return np.clip(2.0 * x, lo, hi)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_clip_of_special_values_is_numpys_to_the_bit(dtype):
    x = np.array(SPECIAL, dtype)
    g = ng.function(clip_scaled)
    for lo in SPECIAL:
        for hi in SPECIAL:
            same_bits(clip_scaled(x, lo, hi), g(x, lo, hi))
    assert "np.clip" not in source_of(g)  # fused into the kernel


def test_clip_with_array_bounds_and_integer_operands():
    """NumPy's loop for array bounds orders its comparisons differently (signed zeros)."""
    rng = np.random.default_rng(3)
    values = np.array(SPECIAL)
    x = rng.choice(values, (30, 8))
    lo = rng.choice(values, 8)
    hi = rng.choice(values, (30, 1))
    g = ng.function(clip_scaled)
    same_bits(clip_scaled(x, lo, hi), g(x, lo, hi))
    ints = rng.integers(-5, 5, (30, 8))
    same_bits(clip_scaled(ints, -2.5, 3.0), g(ints, -2.5, 3.0))
    narrow = x.astype(np.float32)
    same_bits(
        clip_scaled(narrow, lo.astype(np.float32), np.float32(1.0)),
        g(narrow, lo.astype(np.float32), np.float32(1.0)),
    )


def cubes(x):
    return x**3 + 0.5 * x**2, (x - 1.0) ** 0.5


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_powers_are_numpys_to_the_bit(dtype):
    """``x ** 2`` and ``x ** 0.5`` are ``x * x`` and ``sqrt``; ``x ** 3`` gives NumPy's
    ``power``'s bits (``x * x * x`` differs from it in the last bit for many values)."""
    x = np.random.default_rng(5).uniform(0.5, 40.0, 10_000).astype(dtype)
    with np.errstate(invalid="ignore"):
        for e, g in zip(cubes(x), ng.function(cubes)(x)):
            same_bits(e, g)


def gelu_cubes(x):
    """Groups with members NumPy's loops compute (a staged kernel), a cube inside."""
    return np.tanh(0.79 * (x + 0.044715 * x**3)), np.exp(x**2 * -0.5) + x**0.5


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_powers_in_staged_groups_are_numpys_to_the_bit(dtype):
    x = np.random.default_rng(6).uniform(0.0, 3.0, (200, 300)).astype(dtype)
    g = ng.function(gelu_cubes)
    for e, r in zip(gelu_cubes(x), g(x)):
        same_bits(e, r)


def float32_powers(x, i):
    return x**3 - x, 2.0 * x**4, x[i] ** 3, x[i] ** 4


def test_float32_cubes_and_fourth_powers_are_numpys_over_every_magnitude():
    """float32 ``x ** 3`` and ``x ** 4`` are computed in float64 and rounded (NumPy's
    ``powf`` next to rounding boundaries): eager's bits from the smallest subnormal to
    overflow, zeros, infinities and NaN included, in a kernel and of a scalar."""
    bits = np.random.default_rng(7).integers(0, 1 << 32, 1 << 20, dtype=np.uint64)
    x = np.concatenate([bits.astype(np.uint32).view(np.float32), np.float32(SPECIAL)])
    g = ng.function(float32_powers)
    with np.errstate(all="ignore"):
        for i in (0, 1, len(x) - 1, -4, -7):
            for e, r in zip(float32_powers(x, i), g(x, i)):
                same_bits(np.asarray(e), np.asarray(r))


def near_rounding_boundaries(k: int, count: int) -> np.ndarray:
    """float32 bases of both signs whose ``k``-th power lies within 2**-32 to 2**-30
    (relative) of a float32 rounding boundary, from the smallest normal power to
    overflow: where powers computed in different ways (NumPy's loops for each sign on
    each machine, a float64 product) are most likely to round apart."""
    rng = np.random.default_rng(k)
    magnitudes = np.exp(rng.uniform(-87.0 / k, 88.0 / k, count)).astype(np.float32)
    x = np.concatenate([magnitudes, -magnitudes])
    wide = x.astype(np.float64) ** k
    near = wide.astype(np.float32)
    gap = np.abs(np.nextafter(near, np.float32(np.inf)).astype(np.float64) - near)
    boundary = near + np.where(wide >= near, gap, -gap) / 2  # midpoint on wide's side
    distance = np.abs(wide - boundary) / np.abs(wide)
    finite = np.abs(wide) < np.finfo(np.float32).max
    return x[(distance > 2.0**-32) & (distance < 2.0**-30) & finite]


@pytest.mark.parametrize("k", [3, 4])
def test_float32_powers_next_to_rounding_boundaries_are_numpys(k):
    """Where the float64 value of ``x ** k`` is close to a float32 rounding boundary,
    NumPy's own ``power`` may round either way (it is not correctly rounded): graph mode
    keeps its bits there too, in a fused loop and of a scalar."""
    x = near_rounding_boundaries(k, 1 << 23)
    assert x.size > 200_000

    def powers(x):
        return -(x**k), x[3] ** k  # negation is exact: the power's bits show

    g = ng.function(powers)
    with np.errstate(all="ignore"):
        for e, r in zip(powers(x), g(x)):
            same_bits(np.asarray(e), np.asarray(r))


def test_float32_small_powers_take_the_fastest_route_that_matches_numpy():
    """Where the float64 route matches NumPy's loop here for both signs, a cube is one
    more step of the fused loop; where it matches for one sign, blocks send the other
    sign's bases through NumPy's loop in one call; else NumPy's loop computes them all."""
    g = ng.function(gelu_cubes)
    g(np.ones((4, 5), np.float32))
    signs = float32_power.matching_signs(3)
    source = source_of(g)
    fused, blocks = "float32_powers.power_3(" in source, "float32_powers.power_into(" in source
    assert (fused, blocks) == (all(signs), any(signs) and not all(signs))
    assert float32_power.matching_signs(5) == (False, False)  # only 3 and 4


@pytest.mark.parametrize("sign", [0, 1], ids=["negative", "positive"])
def test_float32_power_blocks_are_numpys_for_either_sign_alone(monkeypatch, sign):
    """Blocks that take the float64 route for one sign only (the other through NumPy's
    loop) give eager's bits over every magnitude, both signs, specials included."""
    if not float32_power.matching_signs(3)[sign]:
        pytest.skip("the float64 route does not match NumPy's loop for this sign here")
    only = (sign == 0, sign == 1)
    monkeypatch.setattr(float32_power, "matching_signs", lambda k: only)
    bits = np.random.default_rng(8).integers(0, 1 << 32, 1 << 18, dtype=np.uint64)
    x = np.concatenate([bits.astype(np.uint32).view(np.float32), np.float32(SPECIAL)])
    g = ng.function(float32_powers)
    with np.errstate(all="ignore"):
        result = g(x, 0)
        assert "float32_powers.power_into(" in source_of(g)
        for e, r in zip(float32_powers(x, 0), result):
            same_bits(np.asarray(e), np.asarray(r))


def test_float32_powers_are_checked_against_numpys_loop(monkeypatch):
    """A NumPy whose float32 power rounds otherwise (another C library, AVX-512 loops),
    for one sign of the base or both, keeps its own loop for the bases of that sign."""
    exact = float32_power.matching_signs.__wrapped__
    power = np.power

    def other_rounding(sign):
        def rounding(x, k):
            wide = np.float32(x.astype(np.float64) ** int(k))
            moved = np.nextafter(wide, np.float32(np.inf))
            return np.where(np.sign(x) == sign, moved, power(x, k))

        return rounding

    monkeypatch.setattr(float32_power.np, "power", other_rounding(1))
    assert exact(3)[1] is False
    monkeypatch.setattr(float32_power.np, "power", other_rounding(-1))
    assert exact(3)[0] is False
    monkeypatch.undo()
    assert exact(3) == float32_power.matching_signs(3)


def staged(x, y):
    """NumPy's loops on blocks: unary and binary, chained, at the root and inside."""
    return (
        1.0 / (1.0 + np.exp(-x)),
        np.log1p(np.exp(x * 0.5)) - y,
        np.arctan2(x, y * y + 1.0),
        np.exp(x - y),
        (x * 3.0) // (y + 4.0) + x % 0.3,
    )


def _cases(dtype):
    """Operands reaching every loop nest of a staged kernel, around block edges: flat
    (same shapes, C-contiguous), rows in place (2-d, broadcast), general (Fortran
    order, gaps, 3-d broadcast, scalars)."""
    rng = np.random.default_rng(9)
    block = staged_kernels.BLOCK

    def a(*shape):
        return (3 * rng.standard_normal(shape)).astype(dtype)

    for n in (0, 1, block - 1, block, block + 1, 3 * block + 5):
        yield a(n), a(n)
    for rows, cols in ((1, 1), (3, block + 2), (2 * block + 1, 3), (700, 11), (0, 4)):
        yield a(rows, cols), a(cols)
        yield a(rows, cols), a(rows, 1)
        yield a(rows, 1), a(1, cols)
    yield a(40, 30).T, a(40, 30).T
    yield a(50, 60)[::2, 1::3], a(25, 20)
    yield a(4, 5, 300), a(300)
    yield a(2 * block), dtype(0.75)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_staged_kernels_are_numpys_to_the_bit(dtype):
    g = ng.function(staged)
    with np.errstate(all="ignore"):
        for x, y in _cases(dtype):
            for e, r in zip(staged(x, y), g(x, y)):
                same_bits(e, r)


def tanh_and_angle(x, y):
    return np.tanh(x), np.arctan2(x, y) + 1.0


def test_staged_kernels_read_inputs_in_place():
    """In the flat loop NumPy's loop reads an input of its operand's dtype where it
    lies, block by block, instead of from a copy in a block buffer."""
    x = np.linspace(-3.0, 3.0, 2000, dtype=np.float32)
    g = ng.function(tanh_and_angle)
    for args in ((x, x[::-1].copy()), (x[::2], np.float32(0.5)), (x.reshape(40, 50), x[:50])):
        for e, r in zip(tanh_and_angle(*args), g(*args)):
            same_bits(e, r)
    source = source_of(g)
    assert "numpy_loops.tanh_into(f0[lo:hi], o[lo:hi])" in source
    assert "numpy_loops.arctan2_into(f0[lo:hi], f1[lo:hi], " in source


def complex_staged(z):
    return np.exp(z * 0.5) + np.tanh(z), np.log(z) ** 2.5


def test_staged_kernels_of_complex_numbers():
    rng = np.random.default_rng(10)
    z = rng.standard_normal(3000) + 1j * rng.standard_normal(3000)
    for e, r in zip(complex_staged(z), ng.function(complex_staged)(z)):
        assert e.dtype == r.dtype and np.array_equal(e, r)


def test_staged_kernels_stay_compiled_and_vectorized():
    """No block goes back to Python (no ``objmode``), and the loops around NumPy's
    ``exp`` are packed float64 arithmetic."""

    def sigmoid_and_softplus(x, y):  # compiled here only: Numba inspects no cached code
        return 1.0 / (1.0 + np.exp(-x)), np.log1p(np.exp(x - y)) * 0.5

    g = ng.function(sigmoid_and_softplus)
    x = np.ones((10, 100))
    g(x, x[0])
    source = source_of(g)
    assert "objmode" not in source.split("def graph_function")[1] and "_cb" not in source
    module = next(iter(g.specializations.values())).run.__self__.module
    for name in dir(module):
        if re.fullmatch(r"_staged\d+", name):
            (asm,) = getattr(module, name).inspect_asm().values()
            assert re.search(r"\tv(?:add|mul|sub|div|xor)pd\t[^\n]*%[yz]mm", asm), name


def selections(c, x, y):
    return (
        np.where(c, x, y),
        np.where(x > 0.5, x, 0.01 * x),
        np.where(c, 1, x),
        np.where(x != x, -0.0, y),
        np.where(c, 2**40, 3),
        np.where(x > 0, True, c),
    )


def test_where_is_fused_with_numpys_dtypes_and_values():
    rng = np.random.default_rng(7)
    values = np.array(SPECIAL)
    x = rng.choice(values, (30, 8))
    y = rng.choice(values, 8).astype(np.float32)
    c = rng.random((30, 1)) < 0.5
    g = ng.function(selections)
    for e, r in zip(selections(c, x, y), g(c, x, y)):
        e, r = np.asarray(e), np.asarray(r)
        if e.dtype.kind == "f":
            same_bits(e, r)
        else:
            assert e.dtype == r.dtype and np.array_equal(e, r)
    assert "np.where" not in source_of(g)  # each one a loop of the kernels


def stencil_on_views(x, col, row):
    """Operands whose rows are contiguous but not one after the other, some broadcast
    along rows (``col``) or columns (``row``), read and written row by row."""
    y = np.zeros_like(x)
    y[1:, 1:] = 0.5 * (x[1:, 1:] - x[:-1, :-1]) + col[1:] * row[:, 1:]
    y[:-1, :] -= x[1:, :] * 0.25
    return y, x[:, 2:] / (x[:, :-2] + 1.0)


@pytest.mark.parametrize("columns", [3, 9, 40])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kernels_over_rows_of_views_are_numpys_to_the_bit(columns, dtype):
    rng = np.random.default_rng(columns)
    x = rng.standard_normal((7, columns)).astype(dtype)
    col = rng.standard_normal((7, 1)).astype(dtype)
    row = rng.standard_normal((1, columns)).astype(dtype)
    g = ng.function(stencil_on_views)
    for eager, graph in zip(stencil_on_views(x, col, row), g(x, col, row)):
        same_bits(eager, graph)
    for eager, graph in zip(stencil_on_views(x, col, row), g(x, col, row)):  # compiled
        same_bits(eager, graph)
