"""The IR verifier: valid graphs (traced or built by hand) pass, and each broken
invariant is reported as a VerificationError."""

import operator

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.backend.interpret import Interpreter
from nbgraph.convert.conversion import convert
from nbgraph.graph.functions import Call
from nbgraph.graph.passes import optimize, verify
from nbgraph.graph.passes.verify import VerificationError
from nbgraph.graph.template import Hole
from nbgraph.graph.types import TOKEN, TupleType, type_of
from nbgraph.staging.build import trace

FLOAT = type_of(1.0)
INT = type_of(1)
BOOL = type_of(True)


def chain(x):
    a = x * 2
    b = a + 1
    return b


def branchy(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 1
    return y


def looping(x, n):
    for _i in range(n):
        x = (x + 1) * 2
    return x


def traced(fn, *args):
    return trace(fn.__name__, convert(fn), args, {})


def node(op, inputs, arg, type):
    return ng.Node(op, tuple(inputs), arg, type)


def call(fn, template, inputs, type):
    return node(ng.Op.CALL, inputs, Call(fn, tuple(template), {}), type)


def token():
    return node(ng.Op.CONST, (), None, TOKEN)


def graph(body):
    return ng.Graph("hand_built", body, None, None)


def simple_graph():
    """(x + 1.0) * x on a Python float, built by hand."""
    x = ng.Node(ng.Op.PARAM, (), 0, FLOAT)
    tok = token()
    plus = call(operator.add, (Hole(0), 1.0), [x], FLOAT)
    times = call(operator.mul, (Hole(0), Hole(1)), [plus, x], FLOAT)
    return graph(ng.Region([x], [tok, plus, times], (times, tok)))


def cond_graph():
    """2.0 * x if x > 0 else -x, built by hand as a COND."""
    x = ng.Node(ng.Op.PARAM, (), 0, FLOAT)
    tok = token()
    pred = call(operator.gt, (Hole(0), 0.0), [x], BOOL)
    double = call(operator.mul, (2.0, Hole(0)), [x], FLOAT)
    negate = call(operator.neg, (Hole(0),), [x], FLOAT)
    then_region = ng.Region([], [double], (double,))
    else_region = ng.Region([], [negate], (negate,))
    cond = node(ng.Op.COND, [pred], (then_region, else_region), TupleType((FLOAT,)))
    proj = node(ng.Op.PROJ, [cond], 0, FLOAT)
    return graph(ng.Region([x], [tok, pred, cond, proj], (proj, tok)))


def while_graph():
    """Count down an int to zero while doubling a float, built by hand as a WHILE."""
    n = ng.Node(ng.Op.PARAM, (), 0, INT)
    tok = token()
    one = node(ng.Op.CONST, (), 1.0, FLOAT)
    tn = ng.Node(ng.Op.PARAM, (), 0, INT)
    tv = ng.Node(ng.Op.PARAM, (), 1, FLOAT)
    test_pred = call(operator.gt, (Hole(0), 0), [tn], BOOL)
    test = ng.Region([tn, tv], [test_pred], (test_pred,))
    bn = ng.Node(ng.Op.PARAM, (), 0, INT)
    bv = ng.Node(ng.Op.PARAM, (), 1, FLOAT)
    dec = call(operator.sub, (Hole(0), 1), [bn], INT)
    dbl = call(operator.mul, (Hole(0), 2.0), [bv], FLOAT)
    body = ng.Region([bn, bv], [dec, dbl], (dec, dbl))
    loop = node(ng.Op.WHILE, [n, one], (test, body), TupleType((INT, FLOAT)))
    value = node(ng.Op.PROJ, [loop], 1, FLOAT)
    return graph(ng.Region([n], [tok, one, loop, value], (value, tok)))


# --- valid graphs pass --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (chain, (np.ones(3),)),
        (branchy, (np.ones(3),)),
        (looping, (np.ones(3), 4)),
    ],
)
def test_traced_graphs_verify(fn, args):
    g = traced(fn, *args)
    verify(g)
    optimize(g)
    verify(g, after="optimize")


def test_hand_built_graphs_verify_and_run():
    g = simple_graph()
    verify(g)
    assert Interpreter(g).run([3.0]) == [12.0]

    g = cond_graph()
    verify(g)
    assert Interpreter(g).run([3.0]) == [6.0]
    assert Interpreter(g).run([-3.0]) == [3.0]

    g = while_graph()
    verify(g)
    assert Interpreter(g).run([5]) == [32.0]


def test_verification_error_is_an_assertion_error():
    assert issubclass(VerificationError, AssertionError)


# --- broken graphs are caught -------------------------------------------------------------


def test_use_before_definition_in_traced_graph():
    g = traced(chain, np.ones(3))
    nodes = g.body.nodes
    mul = next(n for n in nodes if n.op is ng.Op.CALL and n.label() == "*")
    add = next(n for n in nodes if n.op is ng.Op.CALL and n.label() == "+")
    i, j = nodes.index(mul), nodes.index(add)
    nodes[i], nodes[j] = nodes[j], nodes[i]
    with pytest.raises(VerificationError, match="before it is defined"):
        verify(g)


def test_use_before_definition_in_hand_built_graph():
    g = simple_graph()
    g.body.nodes.reverse()
    with pytest.raises(VerificationError, match="before it is defined"):
        verify(g)


def test_message_names_the_pass():
    g = simple_graph()
    g.body.nodes.reverse()
    with pytest.raises(VerificationError, match="after cse"):
        verify(g, after="cse")


def test_missing_node():
    g = simple_graph()
    g.body.nodes.pop(1)  # the '+' that '*' reads
    with pytest.raises(VerificationError, match="before it is defined"):
        verify(g)


def test_undefined_result():
    g = simple_graph()
    stray = call(operator.neg, (Hole(0),), [g.body.params[0]], FLOAT)
    g.body.results = (stray, g.body.results[-1])
    with pytest.raises(VerificationError, match="is not defined"):
        verify(g)


def test_branch_value_used_outside_its_branch():
    g = cond_graph()
    double = g.body.nodes[2].arg[0].nodes[0]
    leak = call(operator.neg, (Hole(0),), [double], FLOAT)
    g.body.nodes.append(leak)
    with pytest.raises(VerificationError, match="before it is defined"):
        verify(g)


def test_else_branch_cannot_see_then_branch():
    g = cond_graph()
    then_region, else_region = g.body.nodes[2].arg
    double = then_region.nodes[0]
    else_region.nodes = [call(operator.neg, (Hole(0),), [double], FLOAT)]
    else_region.results = (else_region.nodes[0],)
    with pytest.raises(VerificationError, match="before it is defined"):
        verify(g)


def test_branch_may_read_enclosing_values():
    g = cond_graph()
    x = g.body.params[0]
    then_region = g.body.nodes[2].arg[0]
    then_region.results = (x,)
    verify(g)
    assert Interpreter(g).run([3.0]) == [3.0]


def test_cond_region_with_params():
    g = cond_graph()
    then_region = g.body.nodes[2].arg[0]
    then_region.params = [ng.Node(ng.Op.PARAM, (), 0, FLOAT)]
    with pytest.raises(VerificationError, match="cond region with params"):
        verify(g)


def test_cond_results_of_wrong_type():
    g = cond_graph()
    pred = g.body.nodes[1]
    else_region = g.body.nodes[2].arg[1]
    else_region.results = (pred,)
    with pytest.raises(VerificationError, match="cond results"):
        verify(g)


def test_cond_results_of_wrong_count():
    g = cond_graph()
    else_region = g.body.nodes[2].arg[1]
    else_region.results = ()
    with pytest.raises(VerificationError, match="cond results"):
        verify(g)


def test_while_params_must_match_state():
    g = while_graph()
    loop = g.body.nodes[2]
    test_region, _ = loop.arg
    test_region.params = test_region.params[:1]
    with pytest.raises(VerificationError, match="while params"):
        verify(g)


def test_while_body_must_return_state():
    g = while_graph()
    loop = g.body.nodes[2]
    _, body = loop.arg
    body.results = (body.results[1], body.results[0])
    with pytest.raises(VerificationError, match="while results"):
        verify(g)


def test_while_test_returns_one_value():
    g = while_graph()
    loop = g.body.nodes[2]
    test_region, _ = loop.arg
    test_region.results = (*test_region.results, test_region.results[0])
    with pytest.raises(VerificationError, match="while results"):
        verify(g)


def test_loop_body_cannot_read_test_region():
    g = while_graph()
    loop = g.body.nodes[2]
    test_region, body = loop.arg
    test_pred = test_region.nodes[0]
    body.nodes.append(call(operator.not_, (Hole(0),), [test_pred], BOOL))
    with pytest.raises(VerificationError, match="before it is defined"):
        verify(g)


def test_projection_of_wrong_type():
    g = cond_graph()
    cond = g.body.nodes[2]
    bad = node(ng.Op.PROJ, [cond], 0, INT)
    g.body.nodes.append(bad)
    with pytest.raises(VerificationError, match="bad projection"):
        verify(g)


def test_projection_of_single_value():
    g = simple_graph()
    plus = g.body.nodes[1]
    g.body.nodes.append(node(ng.Op.PROJ, [plus], 0, FLOAT))
    with pytest.raises(VerificationError, match="bad projection"):
        verify(g)


def test_broken_traced_loop_body():
    g = traced(looping, np.ones(3), 2)
    (loop,) = g.find(ng.Op.WHILE)
    body = loop.arg[1]
    body.nodes.reverse()
    with pytest.raises(VerificationError):
        verify(g)
