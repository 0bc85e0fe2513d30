"""Each graph pass on its own, applied to unoptimised traced graphs: what it removes,
merges or folds, what it must leave alone, and that the graph still computes the same
values (and prints the same text) under the reference interpreter."""

import math
import warnings

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.backend.interpret import Interpreter
from nbgraph.convert.conversion import convert
from nbgraph.graph import runtime
from nbgraph.graph.functions import Call
from nbgraph.graph.passes import (
    PIPELINE,
    eliminate_common_subexpressions,
    eliminate_dead_code,
    fold_constants,
    optimize,
    verify,
)
from nbgraph.graph.template import Hole
from nbgraph.graph.types import TOKEN, type_of
from nbgraph.staging.build import trace
from nbgraph.staging.traced import const

# --- functions under test ---------------------------------------------------------------


def dead_computation(x):
    a = x * 2
    b = np.sin(x)  # noqa: F841
    print("hi", x)
    return a


def dead_in_loop(x, n):
    for _i in range(n):
        junk = np.exp(x)  # noqa: F841
        x = x + 1
    return x


def unused_branch_result(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x  # noqa: F841
    return x


def print_in_branch(x):
    if x.sum() > 0:
        print("positive", x.sum())
    return x


def checks_only(x):
    assert x.sum() > 0, "sum must be positive"
    if x.max() > 10:
        raise ValueError("too big")
    return x


def duplicated(x):
    a = x * 2
    b = x * 2
    return a + b


def different_constants(x):
    a = x * 2
    b = x * 3
    return a + b


def outer_then_inner(x):
    a = x * 2
    if x.sum() > 0:
        x = x * 2 + 1
    return a + x


def inner_then_outer(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x
    z = x * 2
    return y + z


def both_branches(x):
    if x.sum() > 0:
        y = x * 3 + 1
    else:
        y = x * 3 - 1
    return y


def loop_reuses_outer(x, n):
    a = x * 2
    for _i in range(n):
        x = x + x * 2
    return a + x


def two_prints(x):
    print(x)
    print(x)
    return x


def signed_zero_angles(x):
    upper = np.arctan2(0.0, x)
    lower = np.arctan2(-0.0, x)
    return upper, lower


def signed_zero_results(x):
    return x, 0.0, -0.0


def constant_product(x):
    c = const(np.float64(2.0)) * 3
    return x * c


def constant_predicate_true(x):
    flag = const(True)
    if flag:
        y = x + 1
    else:
        y = x - 1
    return y


def constant_predicate_false(x):
    flag = const(False)
    if flag:
        y = x + 1
    else:
        y = x - 1
    return y


def constant_predicate_print(x):
    flag = const(True)
    if flag:
        print("taken", x)
        y = x + 1
    else:
        y = x - 1
    return y


def mixed_branch_types(x):
    if x.sum() > 0:
        y = 1
    else:
        y = 2.5
    return x * y


def invalid_constant_log(x):
    c = np.log(const(-1.0))
    return x + c


def constant_chain(x):
    c = const(np.float64(2.0)) * 3
    d = c + 1
    return x * d


def zip_with_constant_lists(x):
    t = 0.0
    for a, b, c in zip([1.0, 2.0, 3.0], [4.0, 5.0, 6.0], x):
        t += a * b * c
    return t


# --- helpers -----------------------------------------------------------------------------


def traced(fn, *args):
    """The unoptimised graph of fn for these arguments."""
    g = trace(fn.__name__, convert(fn), args, {})
    verify(g)
    return g


def run(g, *args):
    return Interpreter(g).run(list(args))


def assert_same_results(before, after):
    assert len(before) == len(after)
    for b, a in zip(before, after):
        assert type(b) is type(a)
        np.testing.assert_array_equal(a, b)


def calls(region, label=None):
    return [n for n in region.nodes if n.op is ng.Op.CALL and (label is None or n.label() == label)]


def all_calls(g, label):
    return [n for n in g.find(ng.Op.CALL) if n.label() == label]


def apply_and_compare(pass_fn, fn, *args, capsys=None):
    """Trace fn, run it, apply pass_fn, verify, run again; returns the rewritten graph."""
    g = traced(fn, *args)
    before = run(g, *args)
    printed = capsys.readouterr().out if capsys else None
    assert pass_fn(g) is g
    verify(g, after=pass_fn.__name__)
    assert_same_results(before, run(g, *args))
    if capsys:
        assert capsys.readouterr().out == printed
    return g


X = np.array([1.0, -2.0, 3.5])

# --- dead-code elimination -------------------------------------------------------------


def test_dce_removes_unused_call_and_keeps_print(capsys):
    g = traced(dead_computation, X)
    assert [n.label() for n in calls(g.body)] == ["*", "sin", "print"]
    g = apply_and_compare(eliminate_dead_code, dead_computation, X, capsys=capsys)
    assert [n.label() for n in calls(g.body)] == ["*", "print"]


def test_dce_prints_the_same_text(capsys):
    g = traced(dead_computation, X)
    eliminate_dead_code(g)
    run(g, X)
    assert capsys.readouterr().out == f"hi {X}\n"


def test_dce_cleans_loop_bodies():
    g = traced(dead_in_loop, X, 3)
    (loop,) = g.find(ng.Op.WHILE)
    assert len(calls(loop.arg[1], "exp")) == 1
    g = apply_and_compare(eliminate_dead_code, dead_in_loop, X, 3)
    (loop,) = g.find(ng.Op.WHILE)
    assert calls(loop.arg[1], "exp") == []
    assert len(calls(loop.arg[1], "+")) >= 1


def test_dce_removes_a_branch_nobody_reads():
    g = traced(unused_branch_result, X)
    assert len(g.find(ng.Op.COND)) == 1
    g = apply_and_compare(eliminate_dead_code, unused_branch_result, X)
    assert g.find(ng.Op.COND) == []
    assert g.find(ng.Op.CALL) == []


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_dce_keeps_print_inside_a_branch(sign, capsys):
    x = sign * np.ones(2)
    g = apply_and_compare(eliminate_dead_code, print_in_branch, x, capsys=capsys)
    assert len(g.find(ng.Op.COND)) == 1
    assert len(all_calls(g, "print")) == 1
    run(g, x)
    assert capsys.readouterr().out == ("positive 2.0\n" if sign > 0 else "")


def test_dce_keeps_assert_and_raise():
    g = traced(checks_only, X)
    eliminate_dead_code(g)
    verify(g)
    assert len(all_calls(g, "assert")) == 1
    assert len(all_calls(g, "raise")) == 1
    with pytest.raises(AssertionError, match="sum must be positive"):
        run(g, -np.ones(2))
    with pytest.raises(ValueError, match="too big"):
        run(g, np.full(2, 20.0))
    np.testing.assert_array_equal(run(g, np.ones(2))[0], np.ones(2))


def unordered_prints():
    """Two identical prints that read the same token; the results return the first
    token, so neither print feeds a result."""
    tok = ng.Node(ng.Op.CONST, (), None, TOKEN)
    text = Call(runtime.print_effect, (Hole(0), "same"), {"sep": " ", "end": "\n"})
    first = ng.Node(ng.Op.CALL, (tok,), text, TOKEN)
    second = ng.Node(ng.Op.CALL, (tok,), text, TOKEN)
    return ng.Graph("prints", ng.Region([], [tok, first, second], (tok,)), None, None)


def test_dce_keeps_prints_no_result_depends_on(capsys):
    g = unordered_prints()
    eliminate_dead_code(g)
    verify(g)
    assert len(calls(g.body, "print")) == 2
    Interpreter(g).run([])
    assert capsys.readouterr().out == "same\nsame\n"


# --- common-subexpression elimination ------------------------------------------------


def test_cse_merges_equal_calls():
    g = traced(duplicated, X)
    assert len(calls(g.body, "*")) == 2
    g = apply_and_compare(eliminate_common_subexpressions, duplicated, X)
    (mul,) = calls(g.body, "*")
    (add,) = calls(g.body, "+")
    assert add.inputs == (mul, mul)


def test_cse_keeps_calls_with_different_constants():
    g = apply_and_compare(eliminate_common_subexpressions, different_constants, X)
    assert len(calls(g.body, "*")) == 2


def test_cse_reuses_outer_value_inside_a_branch():
    g = traced(outer_then_inner, X)
    (cond,) = g.find(ng.Op.COND)
    assert len(calls(cond.arg[0], "*")) == 1
    g = apply_and_compare(eliminate_common_subexpressions, outer_then_inner, X)
    (outer_mul,) = calls(g.body, "*")
    (cond,) = g.find(ng.Op.COND)
    then_region = cond.arg[0]
    assert calls(then_region, "*") == []
    (plus,) = calls(then_region, "+")
    assert plus.inputs[0] is outer_mul
    assert_same_results(run(g, -X), run(traced(outer_then_inner, -X), -X))


def test_cse_never_moves_a_branch_value_outwards():
    g = apply_and_compare(eliminate_common_subexpressions, inner_then_outer, X)
    (cond,) = g.find(ng.Op.COND)
    assert len(calls(cond.arg[0], "*")) == 1
    assert len(calls(g.body, "*")) == 1
    assert_same_results(run(g, -X), run(traced(inner_then_outer, -X), -X))


def test_cse_does_not_share_between_sibling_branches():
    g = apply_and_compare(eliminate_common_subexpressions, both_branches, X)
    (cond,) = g.find(ng.Op.COND)
    then_region, else_region = cond.arg
    assert len(calls(then_region, "*")) == 1
    assert len(calls(else_region, "*")) == 1
    assert_same_results(run(g, -X), run(traced(both_branches, -X), -X))


def test_cse_keeps_loop_body_calls_on_loop_state():
    g = apply_and_compare(eliminate_common_subexpressions, loop_reuses_outer, X, 3)
    (loop,) = g.find(ng.Op.WHILE)
    (body_mul,) = [n for n in calls(loop.arg[1], "*") if n.type.ndim == 1]
    assert body_mul.inputs[0] in loop.arg[1].params
    assert len(calls(g.body, "*")) == 1


def two_buffers(x, n):
    a = np.zeros_like(x)
    total = a.sum()
    for i in range(n):
        b = np.zeros_like(x)
        b[0] = i
        total += b.sum()
    return a, total


def two_buffers_read(x):
    a = np.zeros_like(x)
    b = np.zeros_like(x)
    return a + b


def test_cse_keeps_an_updated_allocation_apart_from_its_equal():
    """Merged, the loop's buffer would be the outer one, which the update must copy."""
    g = apply_and_compare(eliminate_common_subexpressions, two_buffers, X, 3)
    (loop,) = g.find(ng.Op.WHILE)
    assert len(calls(loop.arg[1], "np.zeros_like")) == 1
    assert len(calls(g.body, "np.zeros_like")) == 1
    g = apply_and_compare(eliminate_common_subexpressions, two_buffers_read, X)
    assert len(calls(g.body, "np.zeros_like")) == 1  # never written: one array serves


def lists_per_row(x, n):
    rows = []
    total = 0.0
    for e in x:
        row = []
        for i in range(n):
            row.append(i * 0.5)
        rows.append(0.0)
        total += e * np.sum(np.array(row))
    return total, np.array(rows)


def test_cse_keeps_apart_an_allocation_that_an_inner_loop_updates():
    """``row = []`` starts a state the inner loop appends to: merged with ``rows = []``
    it would be a copy of the outer list each time the inner loop starts."""
    g = apply_and_compare(eliminate_common_subexpressions, lists_per_row, X, 3)
    (outer,) = [w for w in g.body.nodes if w.op is ng.Op.WHILE]
    assert len(calls(g.body, "list_new")) == 1
    assert len(calls(outer.arg[1], "list_new")) == 1


def test_cse_never_merges_prints(capsys):
    g = apply_and_compare(eliminate_common_subexpressions, two_prints, X, capsys=capsys)
    assert len(all_calls(g, "print")) == 2
    run(g, X)
    assert capsys.readouterr().out == f"{X}\n{X}\n"


def test_cse_never_merges_prints_on_the_same_token(capsys):
    g = unordered_prints()
    eliminate_common_subexpressions(g)
    verify(g)
    assert len(calls(g.body, "print")) == 2
    Interpreter(g).run([])
    assert capsys.readouterr().out == "same\nsame\n"


def test_cse_keeps_signed_zero_arguments_apart():
    x = np.array([-1.0, 1.0])
    g = traced(signed_zero_angles, x)
    eliminate_common_subexpressions(g)
    assert len(all_calls(g, "arctan2")) == 2
    upper, lower = run(g, x)
    np.testing.assert_array_equal(upper, np.arctan2(0.0, x))
    np.testing.assert_array_equal(lower, np.arctan2(-0.0, x))


def test_graph_function_returns_signed_zero_constants():
    _, zero, negative_zero = ng.function(signed_zero_results, backend="interpret")(X)
    assert math.copysign(1.0, zero) == 1.0
    assert math.copysign(1.0, negative_zero) == -1.0


# --- constant folding ------------------------------------------------------------------


def test_fold_turns_constant_call_into_const():
    g = traced(constant_product, X)
    assert len(calls(g.body, "*")) == 2
    g = apply_and_compare(fold_constants, constant_product, X)
    (mul,) = calls(g.body, "*")
    folded = mul.inputs[1]
    assert folded.op is ng.Op.CONST
    assert folded.arg == 6.0
    assert type(folded.arg) is np.float64
    assert folded.type == type_of(np.float64(6.0))


@pytest.mark.parametrize(
    ("fn", "kept", "dropped"),
    [
        (constant_predicate_true, "+", "-"),
        (constant_predicate_false, "-", "+"),
    ],
)
def test_fold_inlines_cond_with_constant_predicate(fn, kept, dropped):
    g = traced(fn, X)
    assert len(g.find(ng.Op.COND)) == 1
    g = apply_and_compare(fold_constants, fn, X)
    assert g.find(ng.Op.COND) == []
    assert g.find(ng.Op.PROJ) == []
    assert len(calls(g.body, kept)) == 1
    assert all_calls(g, dropped) == []
    assert g.body.results[0] is calls(g.body, kept)[0]


def test_fold_inlined_branch_keeps_its_print(capsys):
    g = apply_and_compare(fold_constants, constant_predicate_print, X, capsys=capsys)
    assert g.find(ng.Op.COND) == []
    assert len(calls(g.body, "print")) == 1
    run(g, X)
    assert capsys.readouterr().out == f"taken {X}\n"


def test_fold_inside_a_branch():
    g = traced(mixed_branch_types, X)
    (cond,) = g.find(ng.Op.COND)
    assert len(calls(cond.arg[0], "coerce")) == 1
    g = apply_and_compare(fold_constants, mixed_branch_types, X)
    (cond,) = g.find(ng.Op.COND)
    assert calls(cond.arg[0], "coerce") == []
    (result,) = cond.arg[0].results
    assert result.op is ng.Op.CONST
    assert result.arg == 1.0 and type(result.arg) is float
    assert_same_results(run(g, -X), [-X * 2.5])


def test_fold_leaves_calls_that_would_warn():
    g = traced(invalid_constant_log, X)
    fold_constants(g)
    verify(g)
    assert len(calls(g.body, "log")) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (out,) = run(g, X)
    assert np.isnan(out).all()


def test_fold_leaves_non_constant_code_alone():
    shape = [n.label() for n in traced(outer_then_inner, X).all_nodes()]
    g = apply_and_compare(fold_constants, outer_then_inner, X)
    assert [n.label() for n in g.all_nodes()] == shape


def test_fold_chain_of_constant_calls():
    g = traced(constant_chain, X)
    before = run(g, X)
    fold_constants(g)
    verify(g)
    assert_same_results(before, run(g, X))
    (mul,) = calls(g.body, "*")
    assert mul.inputs[1].op is ng.Op.CONST and mul.inputs[1].arg == 7.0


def test_zip_over_constant_lists_and_an_array():
    x = np.array([1.0, 10.0, 100.0])
    assert ng.function(zip_with_constant_lists, backend="interpret")(x) == (
        zip_with_constant_lists(x)
    )


# --- the pipeline ----------------------------------------------------------------------


def test_pipeline_order():
    assert [name for name, _ in PIPELINE] == ["dce", "cse", "fold", "dce"]


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (dead_computation, (X,)),
        (dead_in_loop, (X, 4)),
        (outer_then_inner, (X,)),
        (inner_then_outer, (X,)),
        (both_branches, (-X,)),
        (loop_reuses_outer, (X, 2)),
        (constant_predicate_true, (X,)),
        (mixed_branch_types, (X,)),
    ],
)
def test_optimize_preserves_results(fn, args):
    g = traced(fn, *args)
    before = run(g, *args)
    assert optimize(g) is g
    assert_same_results(before, run(g, *args))


def test_optimize_shrinks_duplicated_work():
    g = traced(outer_then_inner, X)
    count = len(g.all_nodes())
    optimize(g)
    assert len(g.all_nodes()) < count
    assert len(all_calls(g, "*")) == 1
