"""Counted loops that update arrays element by element (which the CPU backend runs block
by block: ``element_loops``), and the loops next to them that it must run as written:
other shapes, strides, counts, carried values and failures."""

import numpy as np
import pytest
from harness import check, check_writes

X = np.linspace(-1.5, 1.5, 37)  # (tests/backend/test_element_loops.py: many blocks)
COEFFS = np.array([0.5, -1.0, 0.25, 2.0, -0.75, 1.5, 0.1, -0.3])


def horner(x, coeffs):
    out = np.zeros_like(x)
    for c in coeffs:
        out = out * x + c
    return out


@pytest.mark.parametrize(
    "x, coeffs",
    [
        (X, COEFFS),
        (X[:36].reshape(4, 9), COEFFS),
        (X.astype(np.float32), COEFFS.astype(np.float32)),
        (X, COEFFS[:1]),
        (X, COEFFS[:0]),  # no iteration: the zeros come back
        (X[::3], COEFFS),  # strided: as written
        (np.arange(-6, 7), np.array([3, -2, 7])),  # integers
        (np.float64(0.5) * X[:7], COEFFS.astype(np.float32)),
    ],
    ids=["f64", "2-d", "f32", "one", "none", "strided", "int", "mixed"],
)
def test_polynomial_by_horners_rule(x, coeffs):
    check(horner, x, coeffs)


def iterate(z, c, steps):
    for _ in range(steps):
        z = z * z + c
    return z


@pytest.mark.parametrize("steps", [0, 1, 40])
@pytest.mark.parametrize("c", [0.25, np.float64(0.3)])
def test_iterated_map_leaves_the_argument_alone(steps, c):
    check_writes(iterate, X * 0.5, c, steps)


def pair(a, b, n):
    for _ in range(n):
        a, b = a + b, a * 0.5
    return a, b


@pytest.mark.parametrize("n", [0, 1, 7])
def test_states_update_together(n):
    check(pair, X, X[::-1].copy(), n)


def counted(x, n):
    out = x
    for i in range(n):
        out = out * 0.9 + i * 0.25
    return out


def counted_ints(x, n):
    out = x
    for i in range(1, n, 2):
        out = out + i
    return out


def test_the_counter_inside_the_arithmetic():
    check(counted, X, 6)
    check(counted_ints, X, 6)
    check(counted_ints, np.arange(10, dtype=np.int32), 6)


def selects(z, n):
    for _ in range(n):
        z = np.where(z > 1.0, z - 1.0, z * 2.0)
        z = np.clip(z, -0.5, 1.5)
    return z


def test_selections_and_clips():
    check(selects, X, 12)


def broadcasting(out, row, n):
    for _ in range(n):
        out = out * row + 1.0
    return out


def test_operands_of_another_shape_run_as_written():
    check(broadcasting, np.ones((4, 5)), np.linspace(0.0, 1.0, 5).reshape(1, 5), 3)
    check(broadcasting, np.ones((1, 5)), np.ones((4, 5)) * 0.5, 3)  # the state grows


def hashes(h, x, n):
    for _ in range(n):
        h = h * 1000003 + x
    return h


def test_integer_states_wrap_around_as_numpy_does():
    check(hashes, np.arange(50, dtype=np.int64), np.arange(50, dtype=np.int64) * 7, 9)
    check(hashes, np.arange(50, dtype=np.uint32), np.arange(50, dtype=np.uint32), 9)


def too_many(x, coeffs, n):
    out = np.zeros_like(x)
    for i in range(n):
        out = out * x + coeffs[i]
    return out


def test_an_index_error_among_the_scalars():
    check(too_many, X, COEFFS, 9)
    check(too_many, X, COEFFS, 8)


def reduced_inside(x, n):
    out = x
    for _ in range(n):
        out = out - out.mean()
        out = out * 2.0
    return out


def test_a_reduction_in_the_loop_runs_as_written():
    check(reduced_inside, X, 4)
