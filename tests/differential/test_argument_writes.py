"""Writes into argument arrays reach the caller's arrays, as eagerly, on every backend.

Each test runs the function eagerly and in graph mode on separate copies of the same
arguments, and compares the return value or exception (``harness.compare_outcomes``) and
then every argument array as the call left it.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from harness import backend, check_writes

import nbgraph as ng
from nbgraph.errors.exceptions import StagingError

# --- direct writes ------------------------------------------------------------------


def element_write(x):
    x[0] = 5.0
    return x.sum()


def augmented(x, k):
    x += k
    x *= 2
    return 0


def slice_write(x):
    x[1:3] = -1.0
    x[::2] *= 3
    return x[0]


def view_write(x):
    v = x[1:]
    v[0] = 5.0
    v += 1
    w = v[::2]
    w[-1] = 9.0
    return v.sum()


def ufunc_out(x, y):
    np.add(x, 1.0, out=x)
    np.multiply(y, x, out=y)
    return 0


def sort_fill(x, y):
    x.sort()
    y.fill(3.0)
    return 0


def two_dims(m):
    m[0, :] = 1.0
    m[:, 1] += m[:, 0]
    return m.shape[0]


def indexed_write(x, index, values):
    x[index] = values
    x[index] += 1
    return x.sum()


def writes_through_its_own_values(x, k):
    x[x.astype(np.int64) % k] = x[::-1] * 2
    x[x > 2] = x[: np.count_nonzero(x > 2)]
    x[1:] = x[:-1]
    return x


@pytest.mark.parametrize(
    "fn, args",
    [
        (element_write, (np.arange(4.0),)),
        (augmented, (np.arange(4.0), 3.0)),
        (slice_write, (np.arange(6.0),)),
        (view_write, (np.arange(8.0),)),
        (ufunc_out, (np.arange(4.0), np.ones(4))),
        (sort_fill, (np.array([3.0, 1.0, 2.0]), np.zeros(3))),
        (two_dims, (np.arange(12.0).reshape(3, 4),)),
        (indexed_write, (np.arange(5.0), np.array([0, 4, -2]), np.array([7.0, 8.0, 9.0]))),
        (indexed_write, (np.arange(5.0), np.array([0, 0, 1]), np.array([7.0, 8.0, 9.0]))),
        (indexed_write, (np.arange(5.0), np.array([-1, 1], np.int32), np.array([7.0]))),
        (indexed_write, (np.arange(5), np.array([3, 1]), 2.5)),
        (indexed_write, (np.arange(5.0), np.array([0, 1, -9]), np.array([7.0, 8.0, 9.0]))),
        (indexed_write, (np.arange(5.0), np.array([0, 1, 7]), 2.0)),
        (indexed_write, (np.arange(5.0), np.array([0, 1, 2]), np.array([7.0, 8.0]))),
        (indexed_write, (np.arange(5.0), np.arange(5) % 2 == 0, np.array([7.0, 8.0, 9.0]))),
        (indexed_write, (np.arange(5.0), np.arange(5) > 2, np.array([7.0]))),
        (indexed_write, (np.arange(5.0), np.arange(5) > 2, np.array([7.0, 8.0, 9.0]))),
        (indexed_write, (np.arange(5.0), np.array([True, False]), np.array([7.0]))),
        (writes_through_its_own_values, (np.arange(6.0), 4)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_straight_line_writes(fn, args):
    check_writes(fn, *args)


# --- writes under graph control flow -------------------------------------------------


def clip_loop(y, z):
    for i in range(y.shape[0]):
        if z[i] > 1.0:
            y[i] = 1.0
        else:
            y[i] = z[i]
    return 0


def elif_chain(y, z):
    for i in range(y.shape[0]):
        if z[i] > 2.0:
            y[i] = 2.0
        elif z[i] < 0.0:
            y[i] = 0.0
        elif z[i] == 1.0:
            pass
        else:
            y[i] = z[i] * 10
    return y.sum()


def nested(m, n):
    for i in range(n):
        for j in range(m.shape[1]):
            m[i, j] += i * j
    return 0


def while_write(y, tol):
    i = 0
    while i < y.shape[0] and y[i] > tol:
        y[i] = tol
        i += 1
    return i


def loop_in_branch(y, flag):
    if flag > 0:
        for i in range(y.shape[0]):
            y[i] = i
    else:
        y[0] = -1.0
    return 0


def write_in_branch(y, c):
    if c > 0:
        y += 1
    return 0


def alias_in_loop(b, n):
    for _ in range(n):
        tmp = b
        tmp -= 1
    return b


def alias_outside(b, n):
    tmp = b
    for _ in range(n):
        tmp -= 1
    return b.sum()


def two_names_in_branch(x, c):
    a = x
    s = 0.0
    if c > 0:
        a[0] = 10.0
        s = x[0] + a[0]
    else:
        x[1] = 5.0
        s = a[1]
    return s


def two_names_in_loop(x, n):
    a = x
    s = 0.0
    for i in range(n):
        a[i] = 10.0 + i
        s += x[i]
        x[i] += 1.0
        s += a[i]
    return s


def returns_argument(y, n):
    for i in range(n):
        y[i] = 1.0
    return y


@pytest.mark.parametrize(
    "fn, args",
    [
        (clip_loop, (np.zeros(6), np.array([0.5, 2.0, 3.0, 0.1, 1.0, 7.0]))),
        (elif_chain, (np.full(6, 4.0), np.array([0.5, 2.5, -3.0, 1.0, 1.5, 7.0]))),
        (nested, (np.ones((3, 4)), 2)),
        (while_write, (np.array([5.0, 4.0, 0.5, 6.0]), 1.0)),
        (loop_in_branch, (np.zeros(4), 1)),
        (loop_in_branch, (np.zeros(4), 0)),
        (write_in_branch, (np.zeros(4), 1)),
        (write_in_branch, (np.zeros(4), 0)),
        (alias_in_loop, (np.zeros(3), 2)),
        (alias_outside, (np.zeros(3), 3)),
        (returns_argument, (np.zeros(4), 2)),
        (two_names_in_branch, (np.zeros(3), 1)),
        (two_names_in_branch, (np.zeros(3), 0)),
        (two_names_in_loop, (np.zeros(3), 3)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_control_flow_writes(fn, args):
    check_writes(fn, *args)


def test_result_is_the_argument():
    """``return y`` after writing into y returns the caller's array itself."""
    y = np.zeros(3)
    out = ng.function(returns_argument, backend=backend())(y, 2)
    assert out is y
    assert y.tolist() == [1.0, 1.0, 0.0]


def test_repeated_calls_accumulate():
    """State kept in an argument drifts between calls exactly as eagerly."""
    eager, graph = np.zeros(3), np.zeros(3)
    f = ng.function(augmented, backend=backend())
    for _ in range(3):
        augmented(eager, 1.0)
        f(graph, 1.0)
    np.testing.assert_array_equal(graph, eager)


# --- raising midway -------------------------------------------------------------------


def fill_until_negative(y, z):
    for i in range(z.shape[0]):
        if z[i] < 0:
            raise ValueError("negative")
        y[i] = z[i]
    return 0


def bump_then_fail(x, limit):
    x += 1
    i = 0
    while i < x.shape[0]:
        x[i] *= 2
        if x[i] > limit:
            raise OverflowError(f"x[{i}] is over the limit")
        i += 1
    return x


def nested_then_fail(m):
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            m[i, j] = i + j
            if i * j == 2:
                assert False, "stop"
    return 0


def bump_in_loop_then_fail(x, n):
    for i in range(n):
        x += 1
        if i == 2:
            raise RuntimeError("third pass")
    return 0


@pytest.mark.parametrize(
    "fn, args",
    [
        (fill_until_negative, (np.zeros(4), np.array([1.0, 2.0, -1.0, 3.0]))),
        (bump_in_loop_then_fail, (np.zeros(3), 5)),
        (bump_then_fail, (np.arange(5.0), 6.0)),
        (nested_then_fail, (np.zeros((3, 3)),)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_raise_midway(fn, args):
    """The exception is eager's, and the arguments are left as eager code leaves them at
    the point of the error (the CUDA backend copies its device copies' writes back)."""
    check_writes(fn, *args)


# --- refused before running -------------------------------------------------------------


def rebind_after_write(y, n):
    for _ in range(n):
        y[0] = 1.0
        y = y * 2
    return y


def test_write_then_rebind_in_loop_is_refused():
    with pytest.raises(StagingError, match=r"argument array 'y'.*y = y\.copy"):
        ng.function(rebind_after_write, backend=backend())(np.zeros(3), 2)


def test_same_array_twice_is_refused():
    x = np.zeros(3)
    with pytest.raises(ng.ArgumentAliasError, match=r"argument 'x'.*argument 'y' shares memory"):
        ng.function(ufunc_out, backend=backend())(x, x)
    assert x.tolist() == [0.0, 0.0, 0.0]


def test_read_only_argument():
    x = np.zeros(3)
    x.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ng.function(element_write, backend=backend())(x)


def test_no_write_returns_nothing_extra():
    """A function that only reads its arguments has no written arguments."""

    def reads(x):
        return x.sum() + x[0]

    graph = ng.function(reads, backend=backend()).graph(np.zeros(3))
    assert graph.writes == ()


def transpose_write(x):
    t = x.T
    t[0, 1] = 5.0
    return 0


def reshape_write(x):
    r = x.reshape(6)
    r[0] = 5.0
    return 0


def ravel_in_loop(x, n):
    r = np.ravel(x)
    for i in range(n):
        r[i] = i
    return 0


def flip_write(x):
    y = np.flip(x)
    y[0] = 5.0
    return 0


def passthrough_write(x):
    y = np.atleast_1d(x)  # x itself, eagerly
    y += 1
    return 0


@pytest.mark.parametrize(
    "fn, args",
    [
        (transpose_write, (np.zeros((2, 3)),)),
        (flip_write, (np.zeros(3),)),
        (passthrough_write, (np.zeros(3),)),
        (reshape_write, (np.zeros((2, 3)),)),
        (ravel_in_loop, (np.zeros((2, 3)), 2)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_writes_through_other_views_of_arguments_are_refused(fn, args):
    with pytest.raises(
        StagingError,
        match=r"view of an argument \(made at line \d+\).*"
        r"basic slices",
    ):
        ng.function(fn, backend=backend())(*args)


def local_reshape_write(n):
    a = np.zeros(n * 2).reshape(2, n)
    a[0, 0] = 5.0
    b = np.arange(6.0).T
    b[1] += 1
    return a.sum() + b.sum()


def test_writes_through_views_of_local_arrays_still_work():
    check_writes(local_reshape_write, 3)


# --- views made by functions, of arrays the function computes ----------------------
# Graph mode follows writes through basic slices only.  A view made otherwise (x.T,
# x.reshape(...)) that a write reaches from the other side is refused where it is read;
# one that is not read again is no concern.


def base_written_view_returned(x):
    a = x * 1.0
    t = a.T
    a[0, 1] = 100.0
    return t


def view_written_base_summed(x):
    a = x + 1.0
    flat = a.reshape(-1)
    flat[2] = -1.0
    return a.sum()


def view_of_a_view_after_base_write(x):
    a = x * 2.0
    column = np.transpose(a)[:, 0]
    a += 1.0
    return column * 1.0


def view_read_in_a_later_iteration(x, n):
    a = x * 1.0
    t = a.T
    total = 0.0
    for i in range(n):
        total += t[0, i]
        a[i, 0] = -1.0
    return total


def view_printed_after_write_in_branch(x, flag):
    a = x - 1.0
    r = np.ravel(a)
    if flag:
        a[0, 0] = 9.0
    print(r)
    return 0


@pytest.mark.parametrize(
    "fn, args",
    [
        (base_written_view_returned, (np.arange(6.0).reshape(2, 3),)),
        (view_written_base_summed, (np.arange(6.0).reshape(2, 3),)),
        (view_of_a_view_after_base_write, (np.arange(6.0).reshape(2, 3),)),
        (view_read_in_a_later_iteration, (np.arange(4.0).reshape(2, 2), 2)),
        (view_printed_after_write_in_branch, (np.arange(4.0).reshape(2, 2), True)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_a_view_read_after_a_write_it_does_not_follow_is_refused(fn, args):
    with pytest.raises(StagingError) as refused:
        ng.function(fn, backend=backend())(*args)
    message = str(refused.value)
    assert re.search(r"a view \(np\.\w+, made at line \d+\)", message), message
    assert "basic slices" in message and ".copy()" in message


def views_not_read_again(x, n):
    a = x * 1.0
    t = a.T  # never read after a's writes
    total = t.sum()
    for i in range(n):
        a[i, 0] = total
    b = np.zeros(a.size).reshape(a.shape)  # the zeros are never read but through b
    b[0, 0] = 1.0
    i = 0
    while i < t.shape[0] and len(t) == t.size // t.shape[1]:  # its shape is unchanged
        b[i, 1] = 2.0
        i += 1
    return a, b


def test_views_not_read_after_a_write_are_no_concern():
    check_writes(views_not_read_again, np.arange(4.0).reshape(2, 2), 2)


def method_views(x):
    v = x.view()
    v[0] = 5.0
    a = x * 2.0
    w = a.view(np.float64)
    a[1] = -1.0
    return w + v


def test_the_view_method_is_followed_as_a_slice():
    check_writes(method_views, np.arange(4.0))


def bits_view(x):
    return x.view(np.int64)


def test_a_view_as_another_dtype_is_refused():
    with pytest.raises(StagingError, match=r"x\.view\(int64\).*astype"):
        ng.function(bits_view, backend=backend())(np.arange(3.0))


# --- an array that is the argument on one path of an if only ---------------------------


def written_if_chosen(x, t):
    y = x if t > 0 else x.copy()
    y[0] = 50.0
    return y


def updated_if_kept(x, t):
    if t > 0:
        y = x
    else:
        y = np.zeros(4)
    y += 1
    return y


def written_part_chosen(x, t):
    v = x[:2] if t > 0 else x[2:]
    v[0] = -9.0
    return x


def local_written_if_chosen(x, t):
    a = x * 2
    y = a if t > 0 else a.copy()
    y[1] = 4.0
    return a


@pytest.mark.parametrize(
    "fn, args",
    [
        (written_if_chosen, (np.arange(4.0), 1.0)),
        (updated_if_kept, (np.arange(4.0), -1.0)),
        (written_part_chosen, (np.arange(4.0), 1.0)),
        (local_written_if_chosen, (np.arange(4.0), 1.0)),
    ],
    ids=lambda v: getattr(v, "__name__", None),
)
def test_a_write_into_an_array_that_is_another_on_one_path_is_refused(fn, args):
    """Eagerly the write reaches the other array on one path only: refused at the
    write, naming the if, where graph mode used to write into the if's result alone."""
    with pytest.raises(StagingError, match=r"another array \(or part of one\) on one path"):
        ng.function(fn, backend=backend())(*args)


def read_after_writing_the_other(x, t):
    y = x if t > 0 else x * 2
    x[0] = 7.0
    return y.sum()


def test_reading_it_after_a_write_into_the_other_is_refused():
    with pytest.raises(StagingError, match=r"same memory on one path of the if"):
        ng.function(read_after_writing_the_other, backend=backend())(np.arange(4.0), 1.0)


def chosen_then_copied(x, t):
    y = x.copy() if t > 0 else x * 2
    y[0] = 5.0
    z = x if t > 0 else x * 2
    return y, z.sum() + x.sum()


@pytest.mark.parametrize("t", [1.0, -1.0])
def test_arrays_chosen_by_an_if_and_not_written_are_no_concern(t):
    check_writes(chosen_then_copied, np.arange(4.0), t)
