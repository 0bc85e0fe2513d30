"""Differential tests for Python and NumPy scalar arguments and their result types."""

import numpy as np
import pytest
from harness import backend, case_id, check


def int_polynomial(n):
    return 3 * n * n - 2 * n + 1


@pytest.mark.parametrize("n", [0, 5, -3, np.int64(4), np.int32(-2)], ids=case_id)
def test_int_arithmetic(n):
    check(int_polynomial, n)


def int_true_division(n):
    return (n - 1) / 2, n / 4


@pytest.mark.parametrize("n", [1, 6, -7], ids=case_id)
def test_int_true_division_gives_float(n):
    check(int_true_division, n)


def int_floor_div_mod(n, d):
    return n // d, n % d, -n // d, divmod(n, d)


@pytest.mark.parametrize(
    "n, d", [(7, 2), (-7, 2), (7, -3), (0, 5), (np.int64(-9), 4), (7.5, 2)], ids=case_id
)
def test_floor_division_by_python_int(n, d):
    check(int_floor_div_mod, n, d)


def numpy_integer_powers(x, s):
    return np.power(np.sum(x), s), np.int8(x[0]) ** s, np.uint64(x[-1]) ** s


@pytest.mark.parametrize("s", [0, 3, 40, 64, -1], ids=case_id)
@pytest.mark.parametrize(
    "x", [np.array([3, -7], np.int64), np.array([200, 9], np.uint8)], ids=case_id
)
def test_numpy_integer_scalar_powers_wrap_or_raise(x, s):
    """NumPy integer scalars to an integer power wrap around as NumPy's do, and a
    negative exponent raises NumPy's ValueError."""
    with np.errstate(over="ignore"):
        check(numpy_integer_powers, x, s)


def float_arithmetic(x):
    return x**2 + 0.5 * x, x / 3, -x, abs(x)


@pytest.mark.parametrize("x", [0.0, 1.5, -2.25, np.float64(3.0), np.float32(0.5)], ids=case_id)
def test_float_arithmetic(x):
    check(float_arithmetic, x)


def bool_arithmetic(a, b, c):
    return a + b + c, a * 2, a & b, a | c, a ^ b


@pytest.mark.parametrize(
    "a, b, c", [(True, True, False), (False, False, False), (True, True, True)], ids=case_id
)
def test_bool_arithmetic(a, b, c):
    check(bool_arithmetic, a, b, c)


def scale_by_flag(flag, x):
    return x * 2 if flag else x


@pytest.mark.parametrize("flag", [True, False])
@pytest.mark.parametrize("x", [3, 1.5, np.array([1, 2])], ids=["int", "float", "array"])
def test_bool_argument_condition(flag, x):
    check(scale_by_flag, flag, x)


def mixed_scalars(a, b):
    return a * b, a + b, b - a


@pytest.mark.parametrize(
    "a, b",
    [
        (3, np.float64(1.5)),
        (3, np.int32(2)),
        (2.5, np.float32(2.0)),
        (2, np.float32(0.25)),
        (np.int64(7), 0.5),
        (True, np.int32(4)),
    ],
    ids=case_id,
)
def test_python_with_numpy_scalars(a, b):
    check(mixed_scalars, a, b)


def numpy_int_division(x, d):
    return x // d, x % d, x / d


@pytest.mark.parametrize(
    "x, d",
    [(np.int64(17), 5), (np.int32(-17), 5), (np.array([10, -10, 3]), 4), (np.uint8(200), 7)],
    ids=case_id,
)
def test_numpy_integer_division_by_python_int(x, d):
    check(numpy_int_division, x, d)


def triangular(n):
    total = 0
    for i in range(n):
        total += i
    return total


@pytest.mark.parametrize("n", [0, 1, 2, 100])
def test_range_over_int_argument(n):
    check(triangular, n)


def geometric_sum(r, n):
    total = 0.0
    term = 1.0
    for _ in range(n):
        total += term
        term *= r
    return total


@pytest.mark.parametrize("n", [0, 1, 30])
@pytest.mark.parametrize("r", [0.5, -0.9], ids=case_id)
def test_float_accumulator_over_int_range(r, n):
    check(geometric_sum, r, n)


def builtins_on_scalars(a, b):
    return abs(a - b), min(a, b), max(a, b), min(a, b, a - b), max(a, b, b - a)


@pytest.mark.parametrize(
    "a, b", [(3, 8), (-4, -2), (2.5, -1.5), (np.float64(1.0), np.float64(-1.0))], ids=case_id
)
def test_builtin_abs_min_max(a, b):
    check(builtins_on_scalars, a, b)


def conversions_to_python(x):
    return int(np.argmax(x)), float(np.sum(x)), bool(np.any(x > 2)), int(x[0] * 10)


@pytest.mark.parametrize(
    "x", [np.array([1.5, 3.5, 2.0]), np.array([4, 1]), np.array([-0.26])], ids=case_id
)
def test_conversions_to_python_scalars(x):
    check(conversions_to_python, x)


def round_scalars(x):
    return round(x), round(x, 2), int(x), float(int(x))


@pytest.mark.parametrize("x", [2.5, 3.5, -1.2345, 7.0], ids=case_id)
def test_round_and_int_of_float(x):
    check(round_scalars, x)


def compare_scalars(a, b):
    return a < b, a == b, a >= b, a != b


@pytest.mark.parametrize(
    "a, b",
    [(1, 2), (2, 2), (3.5, 1), (np.float64(1.0), 1), (np.int32(5), np.int32(5))],
    ids=case_id,
)
def test_scalar_comparisons(a, b):
    check(compare_scalars, a, b)


def int_powers(n):
    return n**2, 2**n, n**0.5, 2**-1


@pytest.mark.parametrize("n", [0, 3, 10])
def test_int_powers(n):
    check(int_powers, n)


def size_from_argument(n, value):
    return np.full(n, value), np.zeros(n * 2).shape


@pytest.mark.parametrize(
    "n, value", [(0, 1.5), (3, 2), (2, True), (4, np.float32(0.5))], ids=case_id
)
def test_int_argument_as_shape(n, value):
    check(size_from_argument, n, value)


def reciprocal(x):
    return 1 / x


@pytest.mark.parametrize("x", [4, 0.5, 0, 0.0], ids=case_id)
def test_python_division_by_zero(x):
    check(reciprocal, x)


def mean_of_int_range(n):
    acc = 0
    for i in range(n):
        acc += i
    return acc / n


@pytest.mark.parametrize("n", [1, 4, 0], ids=["one", "many", "zero_raises"])
def test_int_loop_then_divide(n):
    check(mean_of_int_range, n)


def int_to_negative_powers(n):
    return n**-1, n**-2, 2**-3


@pytest.mark.parametrize("n", [7, -3, 0], ids=repr)
def test_python_int_to_a_negative_constant_power_is_a_float(n):
    check(int_to_negative_powers, n)


def truncated(a):
    return int(a[0])


@pytest.mark.parametrize(
    "a",
    [np.array([v]) for v in (2.7, -2.7, np.nan, np.inf, -np.inf)],
    ids=repr,
)
def test_int_of_a_float_raises_as_python_does(a):
    check(truncated, a)


def signs(a):
    return np.sign(a), np.sign(a[0])


@pytest.mark.parametrize(
    "a",
    [
        np.array([-0.0, 0.0, -2.0, 3.0, np.nan]),
        np.array([-0.0, 5.0], dtype=np.float32),
        np.array([-3, 0, 7, 12]),
    ],
    ids=repr,
)
def test_sign_of_zeros(a):
    check(signs, a)


def clipped(a):
    return a.clip(-1.5, 2.5)


@pytest.mark.parametrize("a", [np.array([-3, 0, 7, 12]), np.array([-2.0, np.nan, 9.0])], ids=repr)
def test_clip_method_with_bounds_of_another_dtype(a):
    if backend() == "cuda":
        pytest.skip("the CUDA backend refuses the .clip() method")
    check(clipped, a)
