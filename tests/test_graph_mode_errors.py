"""What a user sees when a function cannot run as a graph, and when it fails while
running: the exception type (a graph-mode error that is also the built-in type Python
would raise), the variable or call it is about, and the line of the user's code."""

import inspect
import math
import random
import traceback
import warnings

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.staging.tracing import is_tracing

# --- functions under test ---------------------------------------------------------------


def assigned_in_one_branch(x):
    if x.sum() > 0:
        y = x * 2
    z = y + 1
    return z


def returned_from_one_branch(x):
    if x.sum() > 0:
        y = x * 2
    return y


def dtype_changes_in_loop(n):
    x = 0
    for _i in range(n):
        x = x + 0.5
    return x


def row_totals(m):
    totals = []
    for row in m:
        s = 0
        for v in row:
            s = s * 10 + v
        totals.append(s)
    return totals


def row_totals_one_type(m):
    totals = []
    for row in m:
        s = 0
        for v in row:
            s = s * 10 + v
        totals.append(int(s))
    return totals


def dtype_fixed_in_loop(n):
    x = 0.0
    for _i in range(n):
        x = x + 0.5
    return x


def halve_forever(x):
    return halve_forever(x / 2)


def halve_until_small(x):
    if x.sum() < 1:
        return x
    return halve_until_small(x / 2)


def ping(x):
    return pong(x - 1)


def pong(x):
    if x.sum() > 0:
        return ping(x)
    return x


def squares(x):
    for v in x:
        yield v * v


def sum_of_squares(x):
    return sum(squares(x))


def uses_math(a, n):
    t = 0.0
    for i in range(n):
        t = t + math.sqrt(a + i) + math.floor(a) + math.hypot(a, i)
    return t


def array_or_scalar(x):
    if x.sum() > 0:
        y = x
    else:
        y = 0.0
    return y


def assigned_only_in_for(x, n):
    for i in range(n):
        z = x * i
    w = z + 1
    return w


def assigned_only_in_while(x):
    while x.sum() < 10:
        z = x
        x = x * 2
    w = z * 1
    return w


def assigned_in_unrolled_loop(x):
    for i in range(2):
        z = x * i
    w = z + 1
    return w


def write_through_view_in_branch(x):
    v = x[1:3]
    if x.sum() > 0:
        v[0] = 100.0
    return x


def write_through_view_in_loop(x, n):
    v = x[1:3]
    for _i in range(n):
        v[0] = v[0] + 1.0
    return x


def write_through_base_in_branch(x):
    x = x.copy()
    if x.sum() > 0:
        x[1:2] = 100.0
    return x


def string_per_branch(x):
    if x.sum() > 0:
        s = "pos"
    else:
        s = "neg"
    return s


def same_string_both_branches(x):
    if x.sum() > 0:
        s = "label"
        y = x * 2
    else:
        s = "label"
        y = x
    return y, s


def read_in_loop(x, n):
    t = 0.0
    for i in range(n):
        t = t + x[i]
    return t


def floor_divide(a, b):
    return a // b


def floor_divide_by_zero_if_negative(a):
    if a < 0:
        a = a // 0
    return a


def assert_positive(x):
    assert x.sum() > 0, f"got {x.sum()}"
    return x


def raise_if_negative(x):
    if x.sum() < 0:
        raise ValueError(f"negative sum {x.sum()}")
    return x * 2


def catches_index_error(x):
    try:
        y = x[10]
    except IndexError:
        y = x[0]
    return y


def unused_read(x):
    unused = x[10]  # noqa: F841
    return x


def rank_on_one_path_used(x):
    t = x.sum()
    if x[0] > 0:
        t = np.stack([x, x])
    return t * 2


def keys_on_one_path_used(x):
    d = {"a": x}
    if x[0] > 0:
        d["b"] = 1
    return d


def keys_on_one_path_of_an_elif(x):
    d = {"a": x}
    if x[0] > 0:
        d["b"] = 1
    elif x[0] < -5:  # (the key on one path of the inner if: that is why, not "assigned")
        d["b"] = 2
    return d


def noisy_global(x):
    return x + np.random.rand()


def noisy_generator(x):
    rng = np.random.default_rng(0)
    return x + rng.normal(size=x.shape)


def noisy_python(x):
    if x.sum() > 0:
        return x * random.random()
    return x


def zeros_of_shape(s):
    return np.zeros(s)


def reshaped_to(x, s):
    return x.reshape(s)


def broadcast_to_shape(x, s):
    return np.broadcast_to(x, s)


# --- helpers -----------------------------------------------------------------------------


def graph_fn(fn, **options):
    return ng.function(fn, backend="interpret", **options)


def line_of(fn, text):
    """The file line number of the only line of fn's source that contains text."""
    lines, start = inspect.getsourcelines(fn)
    found = [start + i for i, line in enumerate(lines) if text in line]
    assert len(found) == 1, f"{text!r} occurs {len(found)} times in {fn.__name__}"
    return found[0]


def names_line(message, line):
    return f"line {line}" in message


X = np.array([1.0, 2.0, 3.0])

# --- undefined variables -----------------------------------------------------------------


def test_variable_from_one_branch_used_after_the_if():
    with pytest.raises(ng.UndefinedValueError) as info:
        graph_fn(assigned_in_one_branch)(X)
    err = info.value
    assert isinstance(err, UnboundLocalError)
    assert isinstance(err, NameError)
    assert isinstance(err, ng.GraphModeError)
    message = str(err)
    assert "'y'" in message
    assert names_line(message, line_of(assigned_in_one_branch, "if x.sum() > 0"))
    assert names_line(message, line_of(assigned_in_one_branch, "z = y + 1"))
    assert err.loc.filename == __file__
    assert err.loc.lineno == line_of(assigned_in_one_branch, "z = y + 1")


def test_variable_from_one_branch_returned_names_the_if():
    with pytest.raises(ng.UndefinedValueError) as info:
        graph_fn(returned_from_one_branch)(X)
    message = str(info.value)
    assert "'y'" in message
    assert names_line(message, line_of(returned_from_one_branch, "if x.sum() > 0"))


def test_variable_from_one_branch_returned_names_the_return():
    with pytest.raises(ng.UndefinedValueError) as info:
        graph_fn(returned_from_one_branch)(X)
    assert names_line(str(info.value), line_of(returned_from_one_branch, "return y"))


def test_variable_from_staged_for_loop_that_never_ran():
    # Eager Python raises UnboundLocalError where the variable is used; so does the
    # graph, when it runs, at the same line (and gives eager's value when the loop ran).
    f = graph_fn(assigned_only_in_for)
    with pytest.raises(UnboundLocalError) as info:
        f(X, 0)
    assert "'z'" in str(info.value)
    assert innermost_line(info.value) == line_of(assigned_only_in_for, "w = z + 1")
    np.testing.assert_array_equal(f(X, 3), assigned_only_in_for(X, 3))


def test_loop_variable_named_again_in_the_loop_used_after_it():
    # z = x names the loop's array: carried apart, it would lose later writes into x.
    with pytest.raises(ng.UndefinedValueError) as info:
        graph_fn(assigned_only_in_while)(X)
    message = str(info.value)
    assert "'z'" in message
    assert names_line(message, line_of(assigned_only_in_while, "while x.sum() < 10"))
    assert names_line(message, line_of(assigned_only_in_while, "w = z * 1"))


def test_variable_from_unrolled_loop_is_fine():
    np.testing.assert_array_equal(
        graph_fn(assigned_in_unrolled_loop)(X), assigned_in_unrolled_loop(X)
    )


def test_error_leaves_no_trace_open_and_repeats():
    f = graph_fn(assigned_in_one_branch)
    for _ in range(2):
        with pytest.raises(ng.UndefinedValueError):
            f(X)
        assert not is_tracing()
    np.testing.assert_array_equal(graph_fn(dtype_fixed_in_loop)(3), dtype_fixed_in_loop(3))


# --- types that differ between paths -------------------------------------------------------


def test_loop_variable_changing_dtype():
    with pytest.raises(ng.LoopTypeError) as info:
        graph_fn(dtype_changes_in_loop)(3)
    err = info.value
    assert isinstance(err, TypeError)
    message = str(err)
    assert "'x'" in message
    assert "x = 0.0" in message
    assert names_line(message, line_of(dtype_changes_in_loop, "for _i in range(n)"))
    assert err.loc.filename == __file__


def test_list_item_whose_python_type_depends_on_the_run_is_refused():
    """s is the Python int 0 for an empty row and an np.int32 otherwise: eager's list
    holds both, a graph list one type, so the append is refused at its line."""
    m = np.array([[1, 2], [3, 4]], dtype=np.int32)
    with pytest.raises(ng.StagingError) as info:
        graph_fn(row_totals)(m)
    message = str(info.value)
    assert "int or np.int32" in message and "list.append(np.int32(value))" in message
    assert info.value.loc.lineno == line_of(row_totals, "totals.append(s)")


def test_list_item_of_one_python_type_runs():
    f = graph_fn(row_totals_one_type)
    for m in (np.array([[1, 2], [3, 4]], np.int32), np.zeros((2, 0), np.int32)):
        got, expected = f(m), row_totals_one_type(m)
        assert got == expected and [type(v) for v in got] == [type(v) for v in expected]


def test_loop_variable_with_suggested_fix_runs():
    f = graph_fn(dtype_fixed_in_loop)
    for n in (0, 1, 7):
        assert f(n) == dtype_fixed_in_loop(n)
        assert type(f(n)) is float


def test_branches_giving_array_and_scalar():
    with pytest.raises(ng.LoopTypeError) as info:
        graph_fn(array_or_scalar)(X)
    assert isinstance(info.value, TypeError)
    message = str(info.value)
    assert "'y'" in message
    assert names_line(message, line_of(array_or_scalar, "if x.sum() > 0"))


# --- constructs graph mode does not convert ------------------------------------------------


def test_direct_recursion():
    with pytest.raises(ng.ConversionError) as info:
        graph_fn(halve_forever)(X)
    message = str(info.value)
    assert "halve_forever" in message
    assert names_line(message, line_of(halve_forever, "return halve_forever(x / 2)"))


def test_direct_recursion_behind_a_data_dependent_if():
    with pytest.raises(ng.ConversionError, match="halve_until_small"):
        graph_fn(halve_until_small)(X)


def test_mutual_recursion():
    with pytest.raises(ng.ConversionError) as info:
        graph_fn(pong)(X)
    err = info.value
    assert isinstance(err, NotImplementedError)
    message = str(err)
    assert "recursi" in message
    assert "pong" in message
    assert names_line(message, line_of(ping, "return pong(x - 1)"))
    assert err.loc.lineno == line_of(ping, "return pong(x - 1)")


def test_generator_function():
    with pytest.raises(ng.ConversionError) as info:
        graph_fn(squares)(X)
    err = info.value
    assert isinstance(err, NotImplementedError)
    message = str(err)
    assert "squares" in message and "generator" in message
    assert names_line(message, line_of(squares, "yield v * v"))
    assert err.loc.filename == __file__
    assert err.loc.lineno == line_of(squares, "yield v * v")


def test_call_to_generator_function():
    with pytest.raises(ng.ConversionError) as info:
        graph_fn(sum_of_squares)(X)
    message = str(info.value)
    assert "squares" in message and "generator" in message
    assert names_line(message, line_of(sum_of_squares, "return sum(squares(x))"))


def test_math_functions_are_staged():
    f = graph_fn(uses_math)
    for a, n in ((2.0, 3), (0.5, 0), (9.0, 5)):
        result = f(a, n)
        assert result == pytest.approx(uses_math(a, n), rel=1e-15)
        assert type(result) is float
    assert f.trace_count == 1


# --- Python values a graph cannot choose between --------------------------------------------


@pytest.mark.parametrize("backend", ["interpret", "cpu"])
def test_write_through_view_in_staged_branch_works(backend):
    """A view of an argument written in a graph branch: eager's result, and the argument
    changed as eagerly (on both paths)."""
    for x in (X, -X):
        eager_x, graph_x = x.copy(), x.copy()
        expected = write_through_view_in_branch(eager_x)
        result = ng.function(write_through_view_in_branch, backend=backend)(graph_x)
        np.testing.assert_array_equal(result, expected)
        np.testing.assert_array_equal(graph_x, eager_x)


@pytest.mark.parametrize("backend", ["interpret", "cpu"])
def test_write_through_view_in_staged_loop_works(backend):
    """A view of an argument written in a graph loop: eager's result, and the argument
    changed as eagerly."""
    x = np.array([1.0, 2.0, 3.0, 4.0])
    eager_x, graph_x = x.copy(), x.copy()
    expected = write_through_view_in_loop(eager_x, 2)
    result = ng.function(write_through_view_in_loop, backend=backend)(graph_x, 2)
    np.testing.assert_array_equal(result, expected)
    np.testing.assert_array_equal(graph_x, eager_x)


def test_write_through_base_in_staged_branch_works():
    f = graph_fn(write_through_base_in_branch)
    for x in (X, -X):
        np.testing.assert_array_equal(f(x), write_through_base_in_branch(x))


def test_different_strings_per_branch():
    with pytest.raises(ng.StagingError) as info:
        graph_fn(string_per_branch)(X)
    assert isinstance(info.value, TypeError)
    message = str(info.value)
    assert "'s'" in message
    assert "'pos'" in message and "'neg'" in message
    assert names_line(message, line_of(string_per_branch, "if x.sum() > 0"))


def test_same_string_in_both_branches_works():
    f = graph_fn(same_string_both_branches)
    for x in (X, -X):
        y, s = f(x)
        want_y, want_s = same_string_both_branches(x)
        np.testing.assert_array_equal(y, want_y)
        assert s == want_s


# --- run-time errors, as eager Python raises them --------------------------------------------


def op_note(err):
    return "\n".join(getattr(err, "__notes__", []))


def innermost_line(err):
    """The line of the innermost traceback entry (the user's failing line)."""
    entry = traceback.extract_tb(err.__traceback__)[-1]
    assert entry.filename == __file__
    return entry.lineno


def test_index_error_inside_staged_loop():
    f = graph_fn(read_in_loop)
    assert f(X, 3) == read_in_loop(X, 3)
    with pytest.raises(IndexError) as eager:
        read_in_loop(X, 5)
    with pytest.raises(IndexError) as graph:
        f(X, 5)
    assert str(graph.value) == str(eager.value)
    note = op_note(graph.value)
    assert "getitem" in note
    assert innermost_line(graph.value) == line_of(read_in_loop, "t = t + x[i]")
    assert f.trace_count == 1


def test_zero_division_for_python_ints():
    f = graph_fn(floor_divide)
    assert f(7, 2) == 3
    with pytest.raises(ZeroDivisionError) as info:
        f(3, 0)
    note = op_note(info.value)
    assert "call //(" in note
    assert innermost_line(info.value) == line_of(floor_divide, "return a // b")


def test_zero_division_in_untaken_branch():
    assert graph_fn(floor_divide_by_zero_if_negative)(3) == 3


def test_assert_with_formatted_message():
    f = graph_fn(assert_positive)
    np.testing.assert_array_equal(f(X), X)
    with pytest.raises(AssertionError) as info:
        f(-X)
    assert str(info.value) == "got -6.0"
    assert innermost_line(info.value) == line_of(
        assert_positive, 'assert x.sum() > 0, f"got {x.sum()}"'
    )


def test_raise_in_data_dependent_branch():
    f = graph_fn(raise_if_negative)
    with pytest.raises(ValueError) as info:
        f(-X)
    assert str(info.value) == "negative sum -6.0"
    assert innermost_line(info.value) == line_of(raise_if_negative, "raise ValueError")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(f(X), X * 2)
    assert f.trace_count == 1


def test_unused_out_of_bounds_read_still_raises():
    with pytest.raises(IndexError):
        unused_read(X)
    with pytest.raises(IndexError):
        graph_fn(unused_read)(X)


def test_try_except_around_graph_indexing_is_refused():
    """The README's promise: graph operations inside try/except are refused before
    running, at the try's line, with the fix (the except clause cannot see run-time
    errors)."""
    assert catches_index_error(X) == X[0]
    with pytest.raises(ng.StagingError) as info:
        graph_fn(catches_index_error)(X)
    message = str(info.value)
    assert names_line(message, line_of(catches_index_error, "try:"))
    assert ".eager(" in message


def described(x):
    return f"{x.sum()} in all"


def test_a_returned_string_of_graph_values_is_refused_with_the_fix():
    with pytest.raises(ng.StagingError) as err:
        ng.function(described, backend="interpret")(np.arange(3.0))
    message = str(err.value)
    assert "described returns a string made from graph values" in message
    assert "described.eager(...)" in message and "Text" not in message
    assert described(np.arange(3.0)) == "3.0 in all"


# --- what a graph would fix once, while tracing ------------------------------------------


@pytest.mark.parametrize(
    "fn, line, name",
    [
        (noisy_global, "np.random.rand()", "np.random.rand()"),
        (noisy_generator, "rng.normal(", "Generator.normal()"),
        (noisy_python, "random.random()", "random.random()"),
    ],
    ids=lambda v: getattr(v, "__name__", None),
)
@pytest.mark.parametrize("backend", ["interpret", "cpu"])
def test_random_draws_are_refused_at_their_line(fn, line, name, backend):
    """A draw made while tracing would be the same numbers on every run of the graph,
    where eager code draws new ones on every call."""
    state = np.random.get_state()[1].copy()
    with pytest.raises(ng.StagingError) as info:
        ng.function(fn, backend=backend)(X)
    message = str(info.value)
    assert message.startswith(name) and "draw them outside" in message
    assert names_line(message, line_of(fn, line))
    assert (np.random.get_state()[1] == state).all()  # nothing was drawn


@pytest.mark.parametrize(
    "fn, args",
    [
        (zeros_of_shape, (np.array([2, 3]),)),
        (reshaped_to, (np.ones(6), np.array([2, 3]))),
        (broadcast_to_shape, (np.ones(3), np.array([2, 3]))),
    ],
    ids=lambda v: getattr(v, "__name__", None),
)
def test_shape_from_a_graph_array_is_refused(fn, args):
    """The shape's length is the result's rank, known only when the graph runs: typing
    by example would take the shape array's own rank (np.zeros(s) as 1-d)."""
    assert fn(*args).ndim == 2
    with pytest.raises(ng.StagingError, match=r"the shape is a graph value \(int64 1-d"):
        graph_fn(fn)(*args)
    as_tuple = (*args[:-1], tuple(int(n) for n in args[-1]))  # the fix the message gives
    np.testing.assert_array_equal(graph_fn(fn)(*as_tuple), fn(*args))


@pytest.mark.parametrize(
    "fn, error, text",
    [
        (rank_on_one_path_used, ng.LoopTypeError, "variable 't' is a float64 2-d array"),
        (keys_on_one_path_used, ng.StagingError, "dict 'd' has the key 'b' on one path"),
    ],
    ids=lambda v: getattr(v, "__name__", None),
)
def test_values_of_two_shapes_are_refused_where_used_after_the_if(fn, error, text):
    """Refused at the first use after the if (naming the if's line), not at the if."""
    with pytest.raises(error) as info:
        graph_fn(fn)(X)
    message = str(info.value)
    assert text in message
    assert names_line(message, line_of(fn, "if x[0] > 0"))


def test_keys_on_one_path_of_an_elif_say_so():
    """The elif's two paths differ in keys: that is the reason given (its line), not
    that the dict is assigned in one branch of the outer if."""
    with pytest.raises(ng.StagingError) as info:
        graph_fn(keys_on_one_path_of_an_elif)(X)
    message = str(info.value)
    assert "dict 'd' has the key 'b' on one path" in message and "assigned" not in message
    assert names_line(message, line_of(keys_on_one_path_of_an_elif, "elif x[0] < -5"))
