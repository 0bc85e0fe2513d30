"""Differential tests for NumPy operations: arithmetic, ufuncs, reductions, indexing, creation."""

import numpy as np
import pytest
from harness import backend, check, check_writes

import nbgraph as ng

VEC = np.array([1.5, -2.0, 0.0, 3.25, -0.5])
IVEC = np.array([7, -3, 0, 12, -8])
POS = np.array([0.5, 1.0, 2.0, 10.0])
MAT = np.array([[1.0, -2.0, 3.0], [4.0, 0.5, -6.0]])
IMAT = np.arange(12).reshape(3, 4) - 5
CUBE = np.arange(24.0).reshape(2, 3, 4)
F32 = np.array([1.5, -2.25, 3.0], dtype=np.float32)
I32 = np.array([5, -7, 9, 0], dtype=np.int32)
CPLX = np.array([1 + 2j, -0.5 + 0j, 3 - 1j])


def ids_of(cases):
    return [f"{fn.__name__}-{i}" for i, (fn, _) in enumerate(cases)]


# Elementwise arithmetic and comparisons.


def arithmetic(x, y):
    return x + y, x - y, x * y, x / y, -x, +y


def floor_div_mod(x, y):
    return x // y, x % y, np.floor_divide(x, y), np.mod(x, y)


def powers(x):
    return x**2, x**3, np.abs(x) ** 0.5, 2.0**x


def complex_square(z, c):
    return z**2 + c, (z * 2.0) ** 2


def comparisons(x, y):
    return x < y, x <= y, x == y, x != y, x > y, x >= y


ELEMENTWISE = [
    (arithmetic, (VEC, np.array([2.0, 4.0, -1.0, 0.5, 8.0]))),
    (arithmetic, (IVEC, 3)),
    (arithmetic, (MAT, np.array([1.0, 2.0, 4.0]))),
    (arithmetic, (2.5, 4.0)),
    (arithmetic, (I32, 2)),
    (floor_div_mod, (IVEC, 3)),
    (floor_div_mod, (IVEC, -4)),
    (floor_div_mod, (VEC, 0.75)),
    (floor_div_mod, (IMAT, np.array([1, 2, 3, -5]))),
    (floor_div_mod, (I32, np.int32(4))),
    (powers, (VEC,)),
    (powers, (np.array([1, 2, 3]),)),
    (powers, (F32,)),
    (complex_square, (VEC + 1j * VEC[::-1], 0.5 - 1j)),
    (complex_square, ((F32 - 1j * F32).astype(np.complex64), np.complex64(2j))),
    (comparisons, (VEC, 0.0)),
    (comparisons, (IMAT, np.array([0, 1, -1, 2]))),
    (comparisons, (IVEC, np.array([7.0, 0.0, 0.0, 1.0, -8.0]))),
]


@pytest.mark.parametrize("fn, args", ELEMENTWISE, ids=ids_of(ELEMENTWISE))
def test_elementwise(fn, args):
    check(fn, *args)


# Unary and binary ufuncs.


def unary_math(x):
    return np.exp(x), np.log(np.abs(x) + 1), np.sqrt(np.abs(x)), np.abs(x), np.tanh(x)


def trig(x):
    return np.sin(x), np.cos(x), np.sin(x) ** 2 + np.cos(x) ** 2


def min_max_where_clip(x, y):
    return np.maximum(x, y), np.minimum(x, y), np.where(x > y, x, y), np.clip(x, -1, 1)


def clip_bits(x, lo, hi):
    """np.clip's value with its signs of zero and NaNs, which comparisons overlook."""
    y = np.clip(x, lo, hi)
    return y, np.copysign(1.0, y), np.isnan(y)


SPECIAL = np.array([np.nan, -np.inf, -0.0, 0.0, -1.0, 0.5, 3.0, np.inf])


def leaky_relu(x):
    return np.where(x > 0, x, 0.1 * x)


def sign_floor_ceil_round(x):
    return np.sign(x), np.floor(x), np.ceil(x), np.round(x, 1)


def outer_products(a, b, m):
    return (
        np.add.outer(a, b),
        np.multiply.outer(b, a),
        np.subtract.outer(a, 2.0),
        np.minimum(m, np.add.outer(m[:, 0], m[0, :])),
    )


UFUNCS = [
    (outer_products, (VEC, IVEC[:3], MAT[:, :2])),
    (unary_math, (VEC,)),
    (unary_math, (MAT,)),
    (unary_math, (F32,)),
    (unary_math, (1.5,)),
    (unary_math, (IVEC,)),
    (trig, (np.linspace(-3.0, 3.0, 7),)),
    (trig, (0.25,)),
    (min_max_where_clip, (VEC, 0.0)),
    (min_max_where_clip, (IMAT, np.array([0, 1, -1, 5]))),
    (min_max_where_clip, (F32, np.float32(0.5))),
    (clip_bits, (SPECIAL, 0.0, 1.0)),
    (clip_bits, (SPECIAL, -0.0, 0.0)),
    (clip_bits, (SPECIAL, 0.0, -0.0)),
    (clip_bits, (SPECIAL, np.nan, 1.0)),
    (clip_bits, (SPECIAL, -1.0, np.nan)),
    (clip_bits, (SPECIAL.astype(np.float32), 0.0, -0.0)),
    (clip_bits, (SPECIAL, SPECIAL[::-1], np.array([0.0, -0.0] * 4))),
    (clip_bits, (SPECIAL, np.zeros(8), -0.0)),
    (leaky_relu, (VEC,)),
    (leaky_relu, (IMAT,)),
    (sign_floor_ceil_round, (np.array([-1.26, 0.0, 2.55, 7.0]),)),
]


@pytest.mark.parametrize("fn, args", UFUNCS, ids=ids_of(UFUNCS))
def test_ufuncs(fn, args):
    check(fn, *args)


# Reductions.


def reduce_all(x):
    return x.sum(), np.mean(x), x.min(), np.max(x), np.prod(x), np.argmin(x), x.argmax()


def reduce_axis0(m):
    return m.sum(axis=0), m.mean(axis=0), np.min(m, axis=0), m.max(0), np.argmin(m, axis=0)


def reduce_last_axis_keepdims(m):
    return (
        m.sum(axis=-1, keepdims=True),
        np.max(m, axis=-1, keepdims=True),
        m.mean(axis=1, keepdims=True),
        np.argmax(m, axis=1),
        np.prod(m, axis=1),
    )


def counting(x):
    return np.count_nonzero(x), np.count_nonzero(x > 0, axis=0), np.sum(x > 0), np.any(x < 0)


def cumulative(x):
    return np.cumsum(x), np.cumsum(x, axis=0), x.cumsum(axis=-1)


def std_var(x):
    return np.std(x), np.var(x, axis=0)


REDUCTIONS = [
    (reduce_all, (VEC,)),
    (reduce_all, (IVEC,)),
    (reduce_all, (MAT,)),
    (reduce_all, (F32,)),
    (reduce_all, (I32,)),
    (reduce_axis0, (MAT,)),
    (reduce_axis0, (IMAT,)),
    (reduce_axis0, (CUBE,)),
    (reduce_last_axis_keepdims, (MAT,)),
    (reduce_last_axis_keepdims, (IMAT,)),
    (reduce_last_axis_keepdims, (CUBE,)),
    (counting, (IMAT,)),
    (counting, (VEC,)),
    (cumulative, (IMAT,)),
    (cumulative, (CUBE,)),
    (cumulative, (F32,)),
    (std_var, (MAT,)),
]


@pytest.mark.parametrize("fn, args", REDUCTIONS, ids=ids_of(REDUCTIONS))
def test_reductions(fn, args):
    check(fn, *args)


# Linear algebra.


def matmul_forms(a, b):
    return a @ b, np.dot(a, b), np.matmul(a, b)


def vector_dot(u, v):
    return np.dot(u, v), u @ v


def quadratic_form(a, x):
    return x @ a @ x


def covariance(m):
    return np.cov(m), np.corrcoef(m)


def gram_schmidt(a):
    """Products of columns (non-contiguous vectors): NumPy's BLAS call, not Numba's loop."""
    q = np.zeros_like(a)
    for k in range(a.shape[1]):
        q[:, k] = a[:, k] / np.sqrt(np.dot(a[:, k], a[:, k]))
        for j in range(k + 1, a.shape[1]):
            a[:, j] -= q[:, k] * (q[:, k] @ a[:, j])
    return q, a[1:, :] @ a[:-1, 1:].T


def histogram_on_bin_edges(x, bins):
    return np.histogram(x, bins)[0], np.linalg.cholesky(x[:4, None] * x[:4] + np.eye(4) * 9)


RNG = np.random.default_rng(5)
LINALG = [
    (matmul_forms, (MAT, MAT.T)),
    (matmul_forms, (MAT, np.array([1.0, 0.0, -1.0]))),
    (matmul_forms, (IMAT, np.arange(8).reshape(4, 2))),
    (matmul_forms, (F32.reshape(1, 3), F32.reshape(3, 1))),
    (vector_dot, (VEC, np.append(POS, 1.0))),
    (vector_dot, (IVEC, IVEC)),
    (quadratic_form, (np.array([[2.0, 1.0], [1.0, 3.0]]), np.array([1.0, -1.0]))),
]


@pytest.mark.parametrize("fn, args", LINALG, ids=ids_of(LINALG))
def test_linalg(fn, args):
    check_writes(fn, *args)


# Indexing and slicing.


def basic_indexing(x):
    return x[0], x[-1], x[1:3], x[::2], x[::-1], x[-3:-1], x[4:1:-2]


def matrix_indexing(m):
    return m[1, 2], m[1], m[:, 0], m[-1, :], m[::-1, 1:], m[:, ::-2], m[0:2, 1:3]


def integer_array_indexing(x, idx):
    return x[idx], x[[0, -1]]


def boolean_indexing(x):
    return x[x > 0], x[np.abs(x) < 2]


def boolean_scalar_index(x, s):
    """A boolean scalar indexes as a new axis of length 1 (True) or 0 (False)."""
    return x[s > 0], x[True], x[False], x[s > 0, ...], x[np.bool_(s < 0)]


def dynamic_slice(x, start, stop):
    return x[start:stop], x[:stop], x[start:]


def ellipsis_newaxis(t):
    return t[..., 0], t[:, None, :], t[None], t[0, ..., 1:]


INDEXING = [
    (basic_indexing, (VEC,)),
    (basic_indexing, (np.arange(10),)),
    (matrix_indexing, (MAT,)),
    (matrix_indexing, (IMAT,)),
    (integer_array_indexing, (VEC, np.array([4, 0, 2, 2]))),
    (integer_array_indexing, (MAT, np.array([1, 0]))),
    (boolean_indexing, (VEC,)),
    (boolean_indexing, (IMAT,)),
    (boolean_indexing, (np.array([-5.0, -6.0]),)),
    (boolean_scalar_index, (VEC, 1)),
    (boolean_scalar_index, (IMAT, -1)),
    (dynamic_slice, (VEC, 1, 4)),
    (dynamic_slice, (VEC, 3, 1)),
    (dynamic_slice, (IMAT, -2, 10)),
    (ellipsis_newaxis, (np.arange(8.0).reshape(2, 2, 2),)),
    (ellipsis_newaxis, (CUBE,)),
]


@pytest.mark.parametrize("fn, args", INDEXING, ids=ids_of(INDEXING))
def test_indexing(fn, args):
    check(fn, *args)


# Item assignment.


def setitem_created(n, i, v):
    out = np.zeros(n)
    out[i] = v
    out[-1] += 1
    return out


def setitem_argument(x, i, v):
    x[i] = v
    x[0] += v
    return x


def setitem_rows_and_slices(m):
    m[0] = 0
    m[:, -1] = m[:, 0] * 2
    m[1:, 1] += 10
    return m


def setitem_slices_of_arrays(m, v, k):
    m[1:, :2] = m[:-1, 1:] * 2
    m[::-1] = m
    m[0] = v[: m.shape[1]]
    m[1:, 1:] = v[:1]
    m[..., 0] = np.arange(m.shape[0]) * k
    v[1:] = v[:-1]
    v[-2::-1] = v[1:]
    return m, v


def setitem_slice_of_another_shape(m):
    m[0] = 1
    m[1:, :] = m[:, :]
    return m


def stencil_steps(a, b, n):
    for _ in range(n):
        b[1:-1] = 0.5 * (a[:-2] + a[2:])
        a[1:-1] = 0.5 * (b[:-2] + b[2:])
    return a, b


def setitem_boolean_mask(x):
    x[x < 0] = 0
    return x


def setitem_boolean_scalar(x, s):
    x[s > 0] = -1
    x[s > 1] += 2
    return x


def accumulate_histogram(values, bins):
    counts = np.zeros(bins, dtype=np.int64)
    for v in values:
        counts[v % bins] += 1
    return counts


def setitem_in_loop(n):
    out = np.ones((n, 2))
    for i in range(n):
        out[i, 0] = i
        out[i, 1] *= i * 0.5
    return out


def add_at_repeated_indices(x, index, values):
    y = np.zeros_like(x)
    np.add.at(y, index, values)
    np.add.at(x, index, 1.0)  # into the argument, as eagerly
    return y


SETITEM = [
    (setitem_created, (4, 1, 2.5)),
    (setitem_created, (1, 0, -1.0)),
    (setitem_created, (6, -2, 7)),
    (setitem_argument, (VEC, 2, 9.0)),
    (setitem_argument, (IVEC, -1, 4)),
    (setitem_argument, (MAT, 1, np.array([1.0, 1.0, 1.0]))),
    (setitem_rows_and_slices, (MAT,)),
    (setitem_rows_and_slices, (IMAT,)),
    (setitem_slices_of_arrays, (MAT, VEC, 0.5)),
    (setitem_slices_of_arrays, (IMAT, VEC, 3)),
    (setitem_slices_of_arrays, (IMAT, IVEC, 3)),
    (setitem_slice_of_another_shape, (MAT,)),
    (stencil_steps, (VEC, VEC[::-1], 3)),
    (setitem_boolean_mask, (VEC,)),
    (setitem_boolean_mask, (IMAT,)),
    (setitem_boolean_scalar, (VEC, 1)),
    (setitem_boolean_scalar, (IMAT, 2)),
    (setitem_boolean_scalar, (MAT, 0)),
    (accumulate_histogram, (np.array([], dtype=np.int64), 3)),
    (accumulate_histogram, (np.array([1, 4, 2, 2, 7, 0]), 3)),
    (setitem_in_loop, (0,)),
    (setitem_in_loop, (1,)),
    (setitem_in_loop, (5,)),
]


@pytest.mark.parametrize("fn, args", SETITEM, ids=ids_of(SETITEM))
def test_setitem(fn, args):
    check_writes(fn, *args)


# Shape manipulation and joining.


def reshapes(x):
    return x.reshape(2, -1), x.reshape((-1,)), np.reshape(x, (-1, 2)), x.ravel(), x.flatten()


def transposes(t):
    return t.T, np.transpose(t), t.transpose(), np.swapaxes(t, 0, -1)


def transpose_axes(t):
    return np.transpose(t, (1, 0, 2)), t.transpose(2, 0, 1)


def joins(a, b):
    return (
        np.concatenate([a, b]),
        np.concatenate((a, b), axis=-1),
        np.stack([a, b]),
        np.stack([a, b], axis=1),
        np.vstack([a, b]),
        np.hstack([a, b]),
    )


def expand_squeeze(x):
    e = np.expand_dims(x, 0)
    return e, np.squeeze(e, axis=0), x[:, None].squeeze(axis=1)


SHAPES = [
    (reshapes, (np.arange(8),)),
    (reshapes, (MAT.reshape(-1, 2),)),
    (transposes, (MAT,)),
    (transposes, (CUBE,)),
    (transposes, (VEC,)),
    (transpose_axes, (CUBE,)),
    (joins, (VEC, VEC * 2)),
    (joins, (MAT, MAT + 1)),
    (joins, (IMAT, IMAT)),
    (expand_squeeze, (VEC,)),
]


@pytest.mark.parametrize("fn, args", SHAPES, ids=ids_of(SHAPES))
def test_shapes(fn, args):
    check(fn, *args)


# Array creation.


def creation(n):
    return (
        np.zeros(n),
        np.ones((n, 2)),
        np.full(n, 3.5),
        np.full((2, n), 7),
        np.arange(n),
        np.arange(1, n, 2),
        np.arange(0.0, 1.0, 0.25),
        np.linspace(0, 1, n),
        np.zeros(n, dtype=np.int32),
        np.ones(n, dtype=bool),
        np.eye(n),
    )


def creation_like(x):
    return np.zeros_like(x), np.ones_like(x), np.full_like(x, 2), np.ones_like(x, dtype=np.float32)


def empty_filled(n):
    out = np.empty(n)
    for i in range(n):
        out[i] = i * 1.5
    return out, np.empty((n, 3)).shape


def arange_from_argument(start, stop, step):
    return np.arange(start, stop, step)


def grids_of_graph_sizes(n, m):
    rows, cols = np.mgrid[0:n, 1:m:2]
    a, b = np.ogrid[0:n, 0.5:m]
    return rows * cols, np.mgrid[0:m], a + b


def shape_assigned(x):
    y = x.copy()
    y.shape = (2, -1)
    return y


def test_shape_assignment_is_refused_with_the_fix():
    with pytest.raises(ng.StagingError, match=r"x\.shape = \.\.\. changes a graph array.*reshape"):
        ng.function(shape_assigned, backend=backend())(np.arange(4.0))


CREATION = [
    (creation, (0,)),
    (creation, (1,)),
    (creation, (5,)),
    (creation_like, (VEC,)),
    (creation_like, (IMAT,)),
    (creation_like, (F32,)),
    (creation_like, (2.5,)),
    (empty_filled, (0,)),
    (empty_filled, (4,)),
    (arange_from_argument, (0, 10, 3)),
    (arange_from_argument, (10, 0, -2)),
    (arange_from_argument, (0.0, 1.0, 0.3)),
]


@pytest.mark.parametrize("fn, args", CREATION, ids=ids_of(CREATION))
def test_creation(fn, args):
    check(fn, *args)


# Dtypes, conversion and copies.


def conversions(x):
    return x.astype(np.int32), x.astype(np.float32), x.astype(bool), x.astype(np.float64)


def float32_preserved(x):
    return x * 2.5, x + 1, x / 3, np.sqrt(np.abs(x)), x.mean(), x.sum() + 1.0, x * x.max()


def int32_preserved(x):
    return x + 1, x * x, x // 2, x % 3, -x, x.sum(), x * np.int32(2), x + 0.5


def mixed_promotion(a, b):
    return a + b, a * b, a - b


def copy_then_modify(x):
    y = x.copy()
    y[0] = 100
    return x, y


def alias_then_modify(x):
    y = x
    y[0] = 100
    return x, y


def view_then_modify(x):
    v = x[1:]
    v[0] = -1
    return x, v


DTYPES = [
    (conversions, (VEC,)),
    (conversions, (IVEC,)),
    (conversions, (F32,)),
    (float32_preserved, (F32,)),
    (float32_preserved, (F32.reshape(3, 1),)),
    (int32_preserved, (I32,)),
    (mixed_promotion, (IVEC[:3], F32)),
    (mixed_promotion, (I32, IVEC[:4])),
    (mixed_promotion, (F32, np.float64(2.0))),
    (mixed_promotion, (F32, 3)),
    (mixed_promotion, (np.float32(1.5), 2.0)),
    (mixed_promotion, (np.int32(4), 3)),
    (mixed_promotion, (I32, np.int64(2))),
    (copy_then_modify, (VEC,)),
    (copy_then_modify, (IMAT,)),
    (alias_then_modify, (IVEC,)),
    (view_then_modify, (VEC,)),
]


@pytest.mark.parametrize("fn, args", DTYPES, ids=ids_of(DTYPES))
def test_dtypes_and_copies(fn, args):
    check(fn, *args)


# Array attributes.


def attributes(x):
    return x.shape, x.ndim, x.size, len(x), x.shape[0], x.shape[-1]


def size_dependent_arithmetic(x):
    return x.sum() / x.size, len(x) * 2, x.size // 2


ATTRIBUTES = [
    (attributes, (VEC,)),
    (attributes, (np.zeros(0),)),
    (attributes, (MAT,)),
    (attributes, (CUBE,)),
    (size_dependent_arithmetic, (VEC,)),
    (size_dependent_arithmetic, (IMAT,)),
]


@pytest.mark.parametrize("fn, args", ATTRIBUTES, ids=ids_of(ATTRIBUTES))
def test_attributes(fn, args):
    check(fn, *args)


# Complex arrays.


def complex_ops(z):
    return np.abs(z), z.real, z.imag, np.conj(z), z * z, z + 1, np.angle(z), z.sum()


def make_complex(x, y):
    z = x + 1j * y
    return z, np.exp(1j * x), (z * np.conj(z)).real


COMPLEX = [
    (complex_ops, (CPLX,)),
    (complex_ops, (CPLX.reshape(3, 1) * CPLX,)),
    (complex_ops, (CPLX.astype(np.complex64),)),
    (make_complex, (VEC, VEC[::-1])),
    (make_complex, (1.5, -0.5)),
]


@pytest.mark.parametrize("fn, args", COMPLEX, ids=ids_of(COMPLEX))
def test_complex(fn, args):
    check(fn, *args)


def moving_average(x, w):
    c = np.cumsum(np.concatenate([np.zeros(1), x]))
    return (c[w:] - c[:-w]) / w


@pytest.mark.parametrize("w", [1, 2, 3])
@pytest.mark.parametrize("x", [np.arange(6.0), np.array([1.0, 5.0, 2.0])], ids=["six", "three"])
def test_moving_average(x, w):
    check(moving_average, x, w)


def softmax(x):
    z = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=-1, keepdims=True)


@pytest.mark.parametrize("x", [VEC, MAT, F32], ids=["vec", "mat", "f32"])
def test_softmax(x):
    check(softmax, x)


ROUNDING_EDGES = np.array(
    [
        -0.0,
        0.0,
        -0.4,
        -0.5,
        0.5,
        1.5,
        2.5,
        -2.5,
        0.49999999999999994,
        -0.49999999999999994,
        4503599627370497.0,
        -4503599627370497.0,
        2.0**60 + 2048.0,
        1e300,
        -np.inf,
        np.inf,
        np.nan,
        -7.25,
    ]
)


UNARY_FLOAT_FUNCTIONS = [
    *(np.exp, np.expm1, np.exp2, np.log, np.log2, np.log10, np.log1p, np.sqrt, np.cbrt),
    *(np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan),
    *(np.sinh, np.cosh, np.tanh, np.arcsinh, np.arccosh, np.arctanh),
    *(np.floor, np.ceil, np.trunc, np.rint, np.deg2rad, np.rad2deg),
    *(np.sign, np.square, np.reciprocal, np.abs, np.negative),
]


def _of_special_values(fn):
    def special_values(x):
        return fn(x), fn(x * 0.5 + x)

    return special_values


@pytest.mark.parametrize("fn", UNARY_FLOAT_FUNCTIONS, ids=lambda fn: fn.__name__)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_unary_functions_of_infinities_nans_and_zeros(fn, dtype):
    """Out of a function's domain, NumPy gives NaN (and a warning), never an error."""
    with np.errstate(all="ignore"):
        check(_of_special_values(fn), SPECIAL.astype(dtype))


def integral_roundings(x):
    flags, small = x > 0.5, x.astype(np.int32)
    return np.ceil(flags), np.floor(flags), np.trunc(small), np.ceil(small + 1)


def test_rounding_bools_and_integers_keeps_their_dtype():
    check(integral_roundings, np.array([-2.5, 0.0, 0.75, 3.0]))


def rounding_printed(x):
    print(np.floor(x), np.ceil(x), np.trunc(x))
    print(np.rint(x), np.round(x), np.round(x, 1))
    return np.rint(x * 0.5)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rounding_keeps_the_sign_of_zero_and_large_values(dtype):
    """Printed, so -0.0 against 0.0 shows: NumPy keeps the input's sign on a zero result
    (trunc(-0.5), ceil(-0.5), rint(-0.4) are -0.0), and floats past 2**52 are integers."""
    with np.errstate(all="ignore"):
        check(rounding_printed, ROUNDING_EDGES.astype(dtype))


def wrapped_integers(x):
    y = x + x
    return np.logical_not(y), (x - 1) > x, -x == x, (x * 3) - x == x + x


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_signed_integer_arithmetic_wraps_around_like_numpy(dtype):
    """NumPy's integers wrap around; compiled code must not let LLVM assume they do not
    (Numba's "no signed wrap" flag folded x + x == 0 to x == 0)."""
    info = np.iinfo(dtype)
    x = np.array([info.min, info.max, 0, -1, 1, info.min // 2 - 1], dtype=dtype)
    with np.errstate(all="ignore"):
        check(wrapped_integers, x)
        check(wrapped_integers, x[:1].reshape(()))


def transcendental_printed(x, s):
    e = np.exp(x)
    print(e[0], np.tanh(x * 2)[1], np.log1p(np.abs(x))[2], np.power(np.abs(x), x)[3])
    print(np.exp(s), np.arctan2(s, x[4]), np.sin(s) + np.cos(s), np.expm1(s) ** 1.5)
    return e


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_transcendental_functions_give_numpys_last_bits(dtype):
    """NumPy's own SIMD loops differ from the C library's functions in the last bit for
    some inputs (exp: 5% of float64 and 39% of float32 values); printed scalars show
    every digit, and compiled code calls NumPy's loops."""
    if backend() == "cuda":
        pytest.skip("the GPU computes these with its own functions: to NumPy's accuracy")
    rng = np.random.default_rng(5)
    for _ in range(4):
        check(
            transcendental_printed, rng.uniform(-4, 4, 7).astype(dtype), dtype(rng.uniform(0.1, 4))
        )


def rounded_integers(x):
    return np.floor(x), np.ceil(x).astype(np.float64), np.trunc(x) + 1, np.rint(x)


@pytest.mark.parametrize("dtype", [np.int64, np.int32])  # (np.rint of uint8 is float16)
def test_rounding_integers_gives_them_back(dtype):
    check(rounded_integers, np.array([0, 1, 7, 100], dtype=dtype))


def outer_product(a, b):
    p = np.outer(a, b)
    print(p)  # every digit: a product in a narrower type shows
    return p


@pytest.mark.parametrize(
    "a_type, b_type",
    [(np.int64, np.float32), (np.int8, np.uint8), (np.bool_, np.float64), (np.float32, np.int16)],
)
def test_outer_products_in_numpys_result_type(a_type, b_type):
    """NumPy converts both operands to the result's type before multiplying."""
    check(
        outer_product,
        np.array([2147483647, -3, 1], dtype=np.int64).astype(a_type),
        np.array([1.0, 0.1, 7.0]).astype(b_type),
    )


# Routines the CUDA backend refuses (np.histogram, np.cov, np.meshgrid for np.mgrid,
# np.add.at of a number, np.asarray of a NumPy scalar for ufunc.outer) or sums in
# another order (float32 products of strided vectors): checked on the host backends.
HOST_ROUTINES = [
    (outer_products, (F32, np.float32(2.0), np.ones((2, 2), np.float32))),
    (covariance, (MAT,)),
    (gram_schmidt, (RNG.standard_normal((40, 12)).astype(np.float32),)),
    (histogram_on_bin_edges, (np.linspace(0.0, 1.0, 1001), 7)),
    # (Numba's own np.histogram bins 6 of these values differently.)
    (histogram_on_bin_edges, (np.random.default_rng(60000).random(60000, np.float32), 1000)),
    (add_at_repeated_indices, (VEC, np.array([0, 1, 1, -1]), np.array([1.0, 2.0, 3.0, 4.0]))),
    (add_at_repeated_indices, (MAT, np.array([1, 0, 1]), np.ones((3, 3)))),
    (add_at_repeated_indices, (VEC, np.array([0, 1]), np.array([1.0]))),
    (grids_of_graph_sizes, (3, 7)),
    (grids_of_graph_sizes, (0, 2)),
]


@pytest.mark.parametrize("fn, args", HOST_ROUTINES, ids=ids_of(HOST_ROUTINES))
def test_host_routines(fn, args):
    if backend() == "cuda":
        pytest.skip("refused by the CUDA backend, or summed in another order there")
    check_writes(fn, *args)
