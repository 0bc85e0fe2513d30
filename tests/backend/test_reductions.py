"""The CPU backend's reductions equal NumPy's bit for bit where NumPy's order is known.

NumPy sums a contiguous run pairwise (``pairwise.py``); these tests run eager NumPy and
graph mode on the same inputs and compare the bits: whole arrays, rows, columns,
keepdims, ddof, float32 at scale, ill-conditioned sums, integers, and reductions whose
operand is a fused expression computed element by element.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import nbgraph as ng

SIZES = [0, 1, 7, 9, 16, 129, 1000, 4097, 8193, 100_003]


def same_bits(eager, graph) -> None:
    """Equal values (NaN where NaN), dtypes and shapes, element by element of tuples."""
    if isinstance(eager, tuple):
        assert isinstance(graph, tuple) and len(graph) == len(eager)
        for e, g in zip(eager, graph):
            same_bits(e, g)
        return
    e, g = np.asarray(eager), np.asarray(graph)
    assert (e.dtype, e.shape) == (g.dtype, g.shape)
    assert np.array_equal(e, g, equal_nan=True), (e, g)


def run_both(fn, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # eager's empty-slice warnings
        eager = fn(*args)
        graph = ng.function(fn)(*args)
    return eager, graph


def whole(x):
    return x.sum(), np.mean(x), x.var(), np.std(x, ddof=1)


def fused_whole(x):
    return np.sum(x * x), np.mean((x - 1.5) ** 2), np.sum(np.abs(x) + 1)


def rows(x):
    return (
        np.sum(x, axis=1),
        x.mean(axis=-1),
        np.var(x, axis=1),
        x.std(axis=-1, ddof=1),
        np.sum(x * x, axis=1),
        np.mean(x, axis=1, keepdims=True),
    )


def columns(x):
    return (
        x.sum(axis=0),
        np.mean(x, axis=0),
        np.var(x, axis=0),
        np.std(x * 2, axis=0),
        np.sum(x, axis=0, keepdims=True),
    )


def extremes(x):
    return x.max(), np.min(x), np.max(np.abs(x - 0.5))


def extremes_2d(x):
    return x.max(axis=0), np.min(x, axis=1), np.max(x * x, axis=-1, keepdims=True)


def noisy(n: int, dtype, seed: int = 0) -> np.ndarray:
    """Values over many magnitudes and both signs: every rounding shows."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) * 10.0 ** rng.uniform(-6, 6, n)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", SIZES)
def test_whole_array_reductions_match_numpy_bits(n, dtype):
    x = noisy(n, dtype)
    same_bits(*run_both(whole, x))
    same_bits(*run_both(fused_whole, x))
    if n:
        same_bits(*run_both(extremes, x))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(3, 5), (40, 129), (7, 4097), (300, 2), (0, 4), (4, 0)])
def test_row_and_column_reductions_match_numpy_bits(shape, dtype):
    x = noisy(int(np.prod(shape)), dtype, seed=1).reshape(shape)
    same_bits(*run_both(rows, x))
    same_bits(*run_both(columns, x))
    same_bits(*run_both(whole, x))
    if 0 not in shape:
        same_bits(*run_both(extremes_2d, x))


def fused_rows(x):
    return (
        np.sum(x * 2, axis=1),
        np.mean(x - 1, axis=1),
        np.var(x * x, axis=1),
        np.std(x + x, axis=1, ddof=1),
        np.max(x * 3, axis=1),
        np.min(-x, axis=1),
    )


def values(shape, dtype, seed: int) -> np.ndarray:
    if np.dtype(dtype).kind == "f":
        return noisy(int(np.prod(shape)), dtype, seed=seed).reshape(shape)
    return np.random.default_rng(seed).integers(-1000, 1000, shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
@pytest.mark.parametrize("n1", [1, 3, 7, 8, 9, 16, 127, 128, 129, 300, 4096, 4097])
def test_fused_row_reductions_match_numpy_bits(n1, dtype):
    """Short rows and long ones: each row computed into a buffer and summed by the
    tree all rows share (or split as NumPy splits rows over 4096), NaN kept."""
    x = values((20, n1), dtype, seed=n1)
    if x.dtype.kind == "f":
        x[3, n1 // 2] = np.nan
    same_bits(*run_both(fused_rows, x))


def along_outer_axes(x):
    return (
        np.sum(x, axis=-1),
        x.mean(axis=0),
        np.var(x, axis=-1),
        x.std(axis=0, ddof=1),
        np.max(x, axis=-1, keepdims=True),
        x.min(axis=0, keepdims=True),
        np.sum(np.abs(x - 1), axis=-1),
        np.mean(x * x, axis=0, keepdims=True),
    )


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
@pytest.mark.parametrize("shape", [(3, 4, 20), (2, 3, 4, 9), (4, 130, 129), (5, 0, 3)])
def test_reductions_beyond_2d_along_the_first_or_last_axis_match_numpy_bits(shape, dtype):
    """NumPy reduces the last axis of a C-contiguous array row by row and the first one
    row after row, as for the 2-d view that merges the other axes."""
    x = values(shape, dtype, seed=len(shape))
    same_bits(*run_both(along_outer_axes, x))
    same_bits(*run_both(along_outer_axes, x[::-1, :, ::2]))  # copied first, same bits


def test_fortran_ordered_arrays_are_summed_in_memory_order():
    x = np.asfortranarray(noisy(300 * 77, np.float64, seed=2).reshape(300, 77))
    same_bits(*run_both(whole, x))
    same_bits(*run_both(fused_whole, x))
    # Along the rows NumPy adds the columns one after the other; along the columns, each
    # column pairwise. (Of a fused expression of them, see README, Known limitations.)
    same_bits(*run_both(in_memory, x))


def in_memory(x):
    return (
        np.sum(x, axis=1),
        x.mean(axis=-1),
        np.var(x, axis=1),
        x.std(axis=-1, ddof=1),
        x.sum(axis=0),
        np.var(x, axis=0),
        np.max(x, axis=1),
    )


def broadcast(x, m, w):
    return (
        np.sum((x - m) ** 2, axis=1),
        np.mean(x - m[:, 0:1], axis=0),
        np.sum(x - m),
        np.mean((x - m) ** 2, axis=-1),
        np.sum(x * w, axis=1),
        np.max(x - m, axis=1),
        np.min(x * w, axis=0),
        np.var(x - m, axis=0),
        np.std(x * w[None, :], axis=1),
    )


@pytest.mark.parametrize("shape", [(50, 300), (60, 3), (20, 10), (7, 129), (3, 5000)])
def test_broadcast_operands_match_numpy_bits(shape):
    """Operands broadcast along rows (a column of means) or columns (weights) are read
    in place at their own offsets, short rows and long ones alike."""
    x = noisy(int(np.prod(shape)), np.float64, seed=3).reshape(shape)
    w = noisy(shape[1], np.float64, seed=4)
    same_bits(*run_both(broadcast, x, x.mean(axis=1, keepdims=True), w))


def test_float32_sums_at_scale_are_numpy_s():
    """Sequential float32 accumulation stops at 2**24; NumPy's pairwise sum does not."""

    def stats(n):
        ones = np.ones(n, np.float32)
        return ones.sum(), ones.mean(), np.sum(ones * 3)

    eager, graph = run_both(stats, 20_000_000)
    same_bits(eager, graph)
    assert graph[0] == np.float32(2e7) and graph[1] == np.float32(1.0)


def test_large_float64_and_ill_conditioned_sums():
    rng = np.random.default_rng(4)
    big = rng.standard_normal(10_000_019)
    same_bits(*run_both(whole, big))
    cancelling = np.tile([1e16, 1.0, -1e16, 3.0, 1e-3, -2.5e15, 2.5e15, 7.0], 100_001)
    cancelling[::13] *= -1
    same_bits(*run_both(whole, cancelling))
    same_bits(*run_both(whole, cancelling.astype(np.float32)))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.bool_])
def test_integer_reductions(dtype):
    def ints(x):
        return x.sum(), x.mean(), x.sum(axis=1), x.mean(axis=0), x.var(), np.std(x, axis=1)

    rng = np.random.default_rng(5)
    x = rng.integers(0, 2 if dtype is np.bool_ else 100, (30, 9000)).astype(dtype)
    same_bits(*run_both(ints, x))


def test_integer_means_are_summed_buffer_by_buffer_like_numpy():
    """NumPy converts integers to float64 through an 8192-element buffer and adds the
    buffers one after the other; large values make any other order visible."""
    x = np.random.default_rng(6).integers(-(2**62), 2**62, 100_000)
    same_bits(*run_both(lambda_free_mean, x))


def lambda_free_mean(x):
    return x.mean(), np.var(x)


def test_nan_and_empty_extremes_as_numpy():
    x = np.arange(12.0).reshape(3, 4)
    x[1, 2] = np.nan
    same_bits(*run_both(extremes, x))
    same_bits(*run_both(extremes_2d, x))

    def top(x):
        return x.max(axis=0)

    for empty in (np.zeros(0), np.zeros((0, 3))):
        with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
            top(empty)
        with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
            ng.function(top)(empty)


def signs(x):
    return (
        x.max(axis=0),
        np.min(x, axis=0),
        x.max(axis=1),
        np.min(x, axis=-1),
        x[:1, :7].max(),
        np.min(x[:1, :7]),
        np.max(x * 1.0, axis=0),
        np.min(x * 1.0, axis=1),
    )


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_extremes_of_equal_values_keep_numpy_s_choice(dtype):
    """Of equal values NumPy keeps the last; the sign of a zero max shows which.  (Runs at
    least as long as NumPy's vectors compare lane by lane: there its choice depends on the
    vector width, so only short runs are NumPy's exactly.)"""
    rng = np.random.default_rng(5)
    for _ in range(40):
        rows, cols = rng.integers(1, 8, 2)
        x = np.where(rng.random((rows, cols)) < 0.5, -0.0, 0.0).astype(dtype)
        eager, graph = run_both(signs, x)
        for e, g in zip(eager, graph):
            assert np.array_equal(np.signbit(e), np.signbit(g)), (x, e, g)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [1, 15, 16, 17, 100, 1000, 4097])
def test_extremes_find_a_nan_or_an_infinity_anywhere(n, dtype):
    rng = np.random.default_rng(n)
    for special in (np.nan, np.inf, -np.inf):
        for where in {0, n // 2, n - 1, int(rng.integers(n))}:
            x = noisy(n, dtype, seed=where)
            x[where] = special
            same_bits(*run_both(extremes, x))
            same_bits(*run_both(extremes_2d, x.reshape(1, n)))
            same_bits(*run_both(extremes_2d, x.reshape(n, 1)))
    same_bits(*run_both(extremes, np.full(n, -np.inf, dtype)))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.uint64, np.bool_])
def test_integer_and_bool_extremes(dtype):
    info = np.iinfo(dtype) if dtype is not np.bool_ else None
    rng = np.random.default_rng(3)
    for n in (1, 16, 1001):
        x = (
            rng.integers(0, 2, n).astype(dtype)
            if info is None
            else rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        )

        def ends(x):
            return x.max(), x.min(), x.reshape(1, -1).max(axis=1), x.reshape(-1, 1).min(axis=0)

        same_bits(*run_both(ends, x))


def test_float_extremes_compile_to_vector_instructions():
    """max/min compare floats as ordered integer keys: integer max/min reductions are what
    LLVM vectorizes without fast-math flags (float ones are not, NaN being unordered)."""
    import numba

    from nbgraph.backend.numba_cpu import array_reductions as reductions

    @numba.njit  # compiled here, not loaded from the disk cache: its assembly is readable
    def best(f):
        return reductions._vectorized(f, 0, f.size, reductions.MAX)

    # A packed 64-bit max is one instruction with AVX-512 (vpmaxsq), a packed compare and
    # blend without it; a 32-bit one is vpmaxsd with AVX2 too.
    packed = {
        np.float64: r"\t(vpmaxsq|vpcmpgtq)\t[^\n]*[yz]mm",
        np.float32: r"\tvpmaxsd\t[^\n]*[yz]mm",
    }
    for dtype, instruction in packed.items():
        assert best(np.arange(40.0, dtype=dtype)) == (39.0, True)
        asm = best.inspect_asm(best.signatures[-1])
        assert re.search(instruction, asm), dtype


def test_pairwise_leaf_adds_its_eight_accumulators_as_one_vector():
    """NumPy's eight accumulators are the lanes of one vector: a packed add per eight
    elements (LLVM leaves the scalar version scalar), with NumPy's bits."""
    import numba

    from nbgraph.backend.numba_cpu import pairwise

    leaf = numba.njit(pairwise.block_sum.py_func)  # not from the disk cache: readable
    rng = np.random.default_rng(12)
    for dtype, suffix in ((np.float64, "pd"), (np.float32, "ps")):
        for n in range(129):
            x = noisy(n + 3, dtype, seed=n)
            same_bits(np.sum(x[3:]), dtype(leaf(x, 3, n, dtype(0))))
        asm = leaf.inspect_asm(leaf.signatures[-1])
        assert re.search(rf"\tv?add{suffix}\t", asm), dtype
    ints = rng.integers(-9, 9, 100)
    assert leaf(ints, 0, 100, 0) == ints.sum()


def sums_between(p, q):
    d = p[:, None, :] - q[None, :, :]
    return (
        np.sum(np.abs(p[:, None, :] - q[None, :, :]), axis=-1),
        np.sqrt(np.sum(d * d, axis=-1)),
        np.mean(d * 2.0, axis=2, keepdims=True),
        np.var(p[:, None, :] + q[None, :, :], axis=-1),
        np.std(q[None, :, :] * p[:, None, :], axis=-1, ddof=1),
    )


def extremes_between(p, q):
    d = p[:, None, :] - q[None, :, :]
    return np.max(np.abs(d - 1.0), axis=-1), np.min(p[:, None, :] * q, axis=-1)


ROWS_AND_TYPES = [(0, np.float64), (3, np.float64), (7, np.int64), (8, np.float32)]


@pytest.mark.parametrize(
    ("dims", "dtype"), [*ROWS_AND_TYPES, (16, np.float64), (129, np.float32), (4097, np.float64)]
)
def test_reductions_of_broadcast_expressions_beyond_2d_match_numpy_bits(dims, dtype):
    """The last axis of an expression of broadcast views (pairwise distances), each row
    computed in place from the views' memory: no 3-d temporary, NumPy's bits; rows over
    4096 long, empty ones and strided operands through the stored temporary, as
    before."""
    p, q = values((6, dims), dtype, seed=dims), values((5, dims), dtype, seed=dims + 1)
    same_bits(*run_both(sums_between, p, q))
    if not dims:  # NumPy's error for the extremes of nothing
        for fn in (extremes_between, ng.function(extremes_between)):
            with pytest.raises(ValueError, match="zero-size array"):
                fn(p, q)
        return
    same_bits(*run_both(extremes_between, p, q))
    same_bits(*run_both(sums_between, p[::2], q[:, ::-1]))


def test_a_reduction_of_broadcast_views_computes_their_difference_in_place():
    """``d`` is read twice by ``d * d``, and only there: it is computed in the
    reduction's loop, not stored by a kernel of its own."""

    def distances(p, q):
        d = p[:, None, :] - q[None, :, :]
        return np.sqrt(np.sum(d * d, axis=-1))

    g = ng.function(distances)
    p, q = values((40, 3), np.float64, seed=1), values((30, 3), np.float64, seed=2)
    same_bits(distances(p, q), g(p, q))
    main = source_of(g).split("def graph_function")[1]
    assert main.count("_reduce") == 1 and main.count("_kernel") == 1  # (sqrt's kernel)


def test_views_with_new_axes_are_contiguous_in_compiled_code_as_in_numpy():
    """``pairwise.is_c``/``is_f`` decide as NumPy's flags do (an axis of length 1 has
    any stride), and ``flat`` of such a view is a view of the same memory: compiled
    code reads broadcast operands (``p[:, None, :]``) in place, not by general loops."""
    from numba import njit

    from nbgraph.backend.numba_cpu import pairwise

    @njit
    def both(v):
        return pairwise.is_c(v), pairwise.is_f(v)

    @njit
    def facts(a):
        flags = [
            both(a[:, None, :]),
            both(a[None, :, :]),
            both(a[:, :, None]),
            both(a[:, ::2]),
            both(a[::-1]),
            both(a[:1]),
        ]
        pairwise.flat(a[:, None, :])[1] = -1.0
        return flags

    a = np.arange(12.0).reshape(3, 4)
    views = (a[:, None, :], a[None, :, :], a[:, :, None], a[:, ::2], a[::-1], a[:1])
    expected = [(v.flags.c_contiguous, v.flags.f_contiguous) for v in views]
    assert facts(a) == expected
    assert a[0, 1] == -1.0  # written through the flat view


def test_strided_views_agree_to_numpy_accuracy():
    x = noisy(400 * 300, np.float64, seed=7).reshape(400, 300)[::3, 1::2]
    eager, graph = run_both(whole, x)
    np.testing.assert_allclose(graph, eager, rtol=1e-13)
    same_bits(*run_both(rows, x))


def source_of(g) -> str:
    entry = next(iter(g.specializations.values()))
    return entry.run.__self__.source


def test_a_reduction_of_an_expression_writes_no_temporary():
    def row_norms(x):
        return np.sqrt(np.sum(x * x, axis=1))

    g = ng.function(row_norms)
    x = np.random.default_rng(8).random((20, 30))
    same_bits(row_norms(x), g(x))
    main = source_of(g).split("def graph_function")[1]
    # The reduction kernel computes x * x element by element; only sqrt's kernel stores.
    assert main.count("_reduce") == 1 and main.count("_kernel") == 1


def _kernels(g) -> dict[str, str]:
    """The assembly of each generated kernel of g's compiled graph."""
    entry = next(iter(g.specializations.values()))
    module = entry.run.__self__.module
    out = {}
    for name in dir(module):
        if re.fullmatch(r"_(kernel|reduce)\d+", name):
            for asm in getattr(module, name).inspect_asm().values():
                out[name] = asm
    return out


def test_fused_loops_and_column_sums_compile_to_vector_instructions():
    """Kernels have no bounds checks and a contiguous loop, so LLVM vectorizes them:
    packed (``pd``) arithmetic on vector registers, not only scalar (``sd``)."""

    def fused(a, b):
        return (
            np.maximum(a * b + 1.0, 0.0) * (a - 0.5 * b),
            a.sum(axis=0),
            np.sum((a - b) * a, axis=1),
        )

    g = ng.function(fused)
    a = np.ones((4, 64))
    g(a, a)
    asm = _kernels(g)
    # (The function summing a fused reduction's runs, ``_runs``, is inlined into it.)
    assert {re.sub(r"\d+", "", name) for name in asm} == {"_kernel", "_reduce"}
    for name, text in asm.items():
        packed = re.findall(r"\tv?(?:add|mul|sub|max)pd\t", text)
        assert packed, f"kernel {name} has no packed float64 arithmetic"
    # The loop computing a run of a fused reduction's operand loads vectors: no gathers
    # (what a negative-index check per element turns a vectorized load into).
    reduce = next(text for name, text in asm.items() if name.startswith("_reduce"))
    assert re.search(r"\tv?mulpd\t", reduce) and "gather" not in reduce
