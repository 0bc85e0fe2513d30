"""``ng.to_code``: the converted source a user can read.  Each statement kind turns into
its ``ag__`` operator, the result is valid Python, and the converted function still
computes what the original does."""

import ast
import inspect

import numpy as np
import pytest

import nbgraph as ng

# --- functions under test ---------------------------------------------------------------


def sum_until_big(x):
    t = 0.0
    for v in x:
        if v > 2:
            break
        t += v
    return t


def sum_positive(x):
    t = 0.0
    for v in x:
        if v < 0:
            continue
        t += v
    return t


def first_big(x):
    for v in x:
        if v > 2:
            return v
    return -1.0


def count_down(n):
    steps = 0
    while n > 0:
        n = n - 1
        steps += 1
        if steps > 100:
            break
    return steps


def both_and_either(a, b):
    return (a > 0 and b > 0) or a < -5


def negated(a):
    return not a > 0


def pick(x):
    return x * 2 if x.sum() > 0 else -x


def evens(n):
    out = []
    for i in range(n):
        out.append(i * 2)
    return np.array(out)


def checked(x):
    assert x.sum() > 0, "must be positive"
    return x


def checked_without_message(x):
    assert x.sum() > 0
    return x


def raising(x):
    if x.sum() < 0:
        raise ValueError("negative")
    return x


def calls_helper(x):
    return helper(x) + np.sum(x)


def helper(x):
    return x * 2


@ng.function(backend="interpret")
def decorated(x):
    return x + 1


def closure_counter(x):
    stats = {"n": 0}

    def bump():
        stats["n"] += 1

    bump()
    bump()
    return x * stats["n"]


def closure_accumulator(x):
    acc = [0.0]

    def add(v):
        acc[0] = acc[0] + v

    for v in x:
        add(v)
    return acc[0]


def with_defaults(x, scale=2.0, *, shift=1.0):
    return x * scale + shift


def documented(x):
    """Add one."""
    return x + 1


# --- helpers -----------------------------------------------------------------------------


def converted(fn):
    code = ng.to_code(fn)
    tree = ast.parse(code)
    (definition,) = tree.body
    assert isinstance(definition, ast.FunctionDef)
    assert definition.name == fn.__name__
    return code, tree


def statement_kinds(tree):
    return {type(node) for node in ast.walk(tree)}


def ag_calls(tree):
    """Names of every ag__.<name>(...) call in the tree."""
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "ag__"
        ):
            found.append(node.func.attr)
    return found


def graph_fn(fn, **options):
    return ng.function(fn, backend="interpret", **options)


X = np.array([1.0, 2.0, 3.0, -1.0, 5.0])

# --- loops with break / continue / return ---------------------------------------------------


def test_break_becomes_a_flag_and_extra_test():
    _code, tree = converted(sum_until_big)
    kinds = statement_kinds(tree)
    assert ast.Break not in kinds and ast.For not in kinds
    calls = ag_calls(tree)
    assert "for_stmt" in calls and "if_stmt" in calls and "not_" in calls
    (for_call,) = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "for_stmt"
    ]
    extra_test = for_call.args[1]
    assert not (isinstance(extra_test, ast.Constant) and extra_test.value is None)
    assert graph_fn(sum_until_big)(X) == sum_until_big(X)


def test_continue_becomes_a_guard():
    _code, tree = converted(sum_positive)
    kinds = statement_kinds(tree)
    assert ast.Continue not in kinds and ast.For not in kinds
    calls = ag_calls(tree)
    assert "for_stmt" in calls and calls.count("if_stmt") >= 2 and "not_" in calls
    assert graph_fn(sum_positive)(X) == sum_positive(X)


def test_return_in_loop_becomes_retval():
    code, tree = converted(first_big)
    assert "ag__.retval" in code
    assert "ag__.UndefinedReturn()" in code
    returns = [n for n in ast.walk(tree.body[0]) if isinstance(n, ast.Return)]
    top_level_returns = [n for n in tree.body[0].body if isinstance(n, ast.Return)]
    assert top_level_returns == [tree.body[0].body[-1]]
    assert any(
        isinstance(r.value, ast.Call) and getattr(r.value.func, "attr", "") == "retval"
        for r in returns
    )
    f = graph_fn(first_big)
    assert f(X) == first_big(X)
    assert f(np.zeros(3)) == first_big(np.zeros(3))


def test_while_with_break():
    _code, tree = converted(count_down)
    kinds = statement_kinds(tree)
    assert ast.While not in kinds and ast.Break not in kinds
    assert "while_stmt" in ag_calls(tree)
    f = graph_fn(count_down)
    for n in (0, 5, 500):
        assert f(n) == count_down(n)


# --- expressions --------------------------------------------------------------------------------


def test_and_or_become_lazy_operators():
    code, tree = converted(both_and_either)
    kinds = statement_kinds(tree)
    assert ast.BoolOp not in kinds
    assert "ag__.or_(lambda: ag__.and_(lambda: a > 0, lambda: b > 0), lambda: a < -5)" in code
    f = graph_fn(both_and_either)
    for a, b in ((1.0, 1.0), (1.0, -1.0), (-6.0, 1.0), (-1.0, -1.0)):
        assert f(a, b) == both_and_either(a, b)


def test_not_becomes_operator():
    code, tree = converted(negated)
    assert "ag__.not_(a > 0)" in code
    assert not any(isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not) for n in ast.walk(tree))
    f = graph_fn(negated)
    assert f(1.0) is False and f(-1.0) is True


def test_ternary_becomes_if_exp():
    code, tree = converted(pick)
    assert ast.IfExp not in statement_kinds(tree)
    assert "ag__.if_exp(" in code
    assert "lambda: x * 2" in code and "lambda: -x" in code
    f = graph_fn(pick)
    for x in (X, -X):
        np.testing.assert_array_equal(f(x), pick(x))


def test_list_append_becomes_list_append():
    code, _tree = converted(evens)
    assert "ag__.list_append(out, i * 2)" in code
    assert "out.append" not in code
    f = graph_fn(evens)
    for n in (1, 6):
        result = f(n)
        assert result.dtype == evens(n).dtype
        np.testing.assert_array_equal(result, evens(n))


def test_list_that_stays_empty():
    # Eager NumPy makes float64 out of an empty list; inside the graph it keeps the
    # items' dtype (one type whatever the length), and returned it is eager's again.
    result = graph_fn(evens)(0)
    assert result.shape == evens(0).shape == (0,)
    assert result.dtype == evens(0).dtype == np.float64
    assert graph_fn(evens)(3).dtype == np.int64


def test_assert_becomes_assert_stmt_with_lazy_message():
    code, tree = converted(checked)
    assert ast.Assert not in statement_kinds(tree)
    assert "ag__.assert_stmt(" in code
    assert "lambda: 'must be positive'" in code
    with pytest.raises(AssertionError, match="must be positive"):
        graph_fn(checked)(-X)


def test_assert_without_message():
    _code, tree = converted(checked_without_message)
    assert ast.Assert not in statement_kinds(tree)
    assert "assert_stmt" in ag_calls(tree)
    with pytest.raises(AssertionError):
        graph_fn(checked_without_message)(-np.ones(2))


def test_raise_is_converted():
    _code, tree = converted(raising)
    assert ast.Raise not in statement_kinds(tree)
    assert "if_stmt" in ag_calls(tree) and "raise_stmt" in ag_calls(tree)
    with pytest.raises(ValueError, match="negative"):
        graph_fn(raising)(-np.ones(2))


def test_calls_go_through_converted_call():
    code, tree = converted(calls_helper)
    calls = ag_calls(tree)
    assert calls.count("converted_call") == 2
    assert "ag__.converted_call(helper, (x,), {})" in code
    np.testing.assert_array_equal(graph_fn(calls_helper)(X), calls_helper(X))


# --- nested functions ----------------------------------------------------------------------


def test_nested_function_is_converted_in_place():
    code, tree = converted(closure_counter)
    inner = [n for n in tree.body[0].body if isinstance(n, ast.FunctionDef)]
    assert [n.name for n in inner] == ["bump"]
    assert "ag__.converted_call(bump, (), {})" in code


def test_nested_function_updating_enclosing_dict():
    np.testing.assert_array_equal(graph_fn(closure_counter)(X), closure_counter(X))


def test_nested_function_updating_enclosing_list_inside_a_staged_loop():
    # The helper changes a list of the enclosing function inside a graph loop, where
    # every path is traced once: graph mode says so instead of returning a stale value.
    with pytest.raises(ng.GraphModeError, match="'acc' is changed in place inside a graph"):
        graph_fn(closure_accumulator)(X)


# --- the definition itself ---------------------------------------------------------------------


def test_decorator_is_dropped():
    code, tree = converted(decorated)
    assert tree.body[0].decorator_list == []
    assert "ng.function" not in code
    assert code == ng.to_code(decorated.python_function)


def test_signature_is_kept():
    _code, tree = converted(with_defaults)
    definition = tree.body[0]
    assert [a.arg for a in definition.args.args] == ["x", "scale"]
    assert [a.arg for a in definition.args.kwonlyargs] == ["shift"]
    f = graph_fn(with_defaults)
    np.testing.assert_array_equal(f(X), with_defaults(X))
    np.testing.assert_array_equal(f(X, 3.0, shift=-1.0), with_defaults(X, 3.0, shift=-1.0))


def test_docstring_survives_conversion():
    converted(documented)
    assert graph_fn(documented).__doc__ == "Add one."


@pytest.mark.parametrize(
    "fn",
    [
        sum_until_big,
        sum_positive,
        first_big,
        count_down,
        both_and_either,
        pick,
        evens,
        checked,
        raising,
    ],
)
def test_converted_source_compiles_and_is_stable(fn):
    code = ng.to_code(fn)
    compile(code, "<converted>", "exec")
    assert ng.to_code(fn) == code
    assert inspect.getsource(fn) != code
