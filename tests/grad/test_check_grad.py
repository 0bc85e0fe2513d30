"""``nbgraph.check_grad``: a gradient against central differences of the eager function,
naming the argument and element where they part (a planted wrong rule is caught)."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.grad import rules

RNG = np.random.default_rng(5)
W = RNG.standard_normal(4)
X = RNG.standard_normal((3, 4))


def smooth(w, x):
    return np.sum(np.tanh(x @ w) ** 2) + np.cos(w).sum()


def test_agreement_is_reported_with_the_largest_difference():
    report = ng.check_grad(smooth, W, X, argnums=(0, 1))
    assert report and report.mismatches == 0 and report.elements == W.size + X.size
    assert "agrees" in repr(report) and report.worst.argument in ("w", "x")


def test_a_graph_function_is_checked_against_its_eager_code():
    g = ng.function(smooth)
    assert ng.check_grad(g, W, X)
    assert g.trace_count == 0  # the reference ran eagerly; the gradient is its own graph


def test_a_wrong_rule_is_caught_at_its_argument_and_element(monkeypatch):
    def planted(a, b):  # cos enters through a only
        return np.sum(np.cos(a) * b)

    wrong = rules._unary(lambda g, x, o: g * np.sin(x))  # sign flipped
    monkeypatch.setitem(rules.RULES, np.cos, wrong)
    a, b = np.array([0.3, -1.2, 2.0]), np.array([1.0, 0.5, -2.0])
    report = ng.check_grad(planted, a, b, argnums=(0, 1))
    assert not report
    assert report.mismatches == 3 and report.elements == 6  # all of a, none of b
    worst = report.worst
    assert worst.argument == "a"
    (k,) = worst.index
    assert worst.numerical == pytest.approx(-np.sin(a[k]) * b[k], rel=1e-6)
    assert worst.gradient == pytest.approx(np.sin(a[k]) * b[k], rel=1e-12)
    assert f"a[{k}]" in repr(report) and "differs" in repr(report)


def nested(params, x):
    return np.sum((x @ params["w"] + params["b"][1]) ** 2)


def nested_again(params, x):  # (a gradient's graph is kept per function: a fresh one)
    return np.sum((x @ params["w"] + params["b"][1]) ** 2)


def test_nested_arguments_name_the_leaf(monkeypatch):
    params = {"w": W.copy(), "b": (0.0, 0.5)}
    assert ng.check_grad(nested, params, X)
    wrong = rules._binary(lambda g, a, b, o: g * 2.0, lambda g, a, b, o: g)  # d(a + b)/da = 2?
    monkeypatch.setitem(rules.RULES, operator.add, wrong)
    report = ng.check_grad(nested_again, params, X)
    assert not report and report.worst.argument == "params['w']"


def test_float32_gets_float32_steps_and_tolerances():
    report = ng.check_grad(smooth, W.astype(np.float32), X.astype(np.float32))
    assert report and report.eps is None


def test_a_function_without_a_scalar_result_is_refused():
    with pytest.raises(TypeError, match="scalar"):
        ng.check_grad(lambda w: w * 2.0, W)
