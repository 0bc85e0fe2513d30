"""Stepping through a graph's run against stepping through eager code, on the fuzzer's
random programs: where graph mode runs a program as eager code does, its recording
(the graph on the interpret backend) shows eager's steps, less the lines that compute
nothing, in the same frames, and every variable it shows holds eager's value there.

Three things are known to differ, and are left out (the README's known limitations):
an array changed in place through another name (an alias, an item of a list or dict) is
shown with its new value only from that name's next assignment; a ``return`` with no
operation of its own may be shown at another ``return`` of the function; and a lambda's
or nested function's lines are steps of the function that defines it."""

from pathlib import Path

import numpy as np
import pytest
from fuzz_programs import PYTHON_MARK, Program, fixed_programs, load, observe, programs
from hypothesis import given

import nbgraph as ng
from nbgraph.errors.exceptions import GraphModeError
from nbgraph.trace import step

EXAMPLES = 300  # (no compiling: about a tenth of a second each)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("stepped")


def shown(summary):
    """What a step shows of a value (a Python number and a NumPy scalar of one value
    alike; NaN equal to NaN)."""
    if hasattr(summary, "head"):
        return (summary.shape, summary.dtype, summary.head, summary.tail)
    if summary.number is not None:
        return "nan" if np.isnan(summary.number) else summary.number
    return summary.text


def key(s):
    """A step as the two recordings are matched: a return by its frame only; an error
    step (a failure while tracing, before the graph ran) as the line it failed at."""
    if s.kind == "return":
        return (s.function, s.kind)
    return (s.function, s.lineno, "line" if s.kind == "error" else s.kind)


ALIASING = ("alias", "held")  # constructs that change an array through another name


def agrees(g, e, values_too: bool) -> bool:
    """Whether graph step ``g`` can stand for eager step ``e``: the same step, in the
    same stack of functions, and (``values_too``) every variable it shows bound to the
    same value eagerly."""
    if key(g) != key(e) or [f for f, _ in g.stack] != [f for f, _ in e.stack]:
        return False
    values = e.locals
    return not values_too or all(
        name in values and shown(value) == shown(values[name]) for name, value in g.locals.items()
    )


def assert_steps_agree(graph, eager, values_too: bool) -> None:
    """The graph's steps are eager's, in order, less some (lines that compute nothing,
    a helper call computed while tracing): each the first later eager step it agrees
    with."""
    k = 0
    for g in graph.steps:
        while k < len(eager.steps) and not agrees(g, eager.steps[k], values_too):
            k += 1
        assert k < len(eager.steps), (
            f"graph step {key(g)} with {sorted(g.locals)} is not among eager's next steps"
        )
        k += 1


@fixed_programs(EXAMPLES)
@given(program=programs())
def test_a_graphs_steps_are_eagers(program: Program, workdir: Path) -> None:
    fn = load(program.source, workdir).f
    graph_fn = ng.function(fn, backend="interpret")
    eager_outcome, _ = observe(fn, program.args())
    graph_outcome, _ = observe(graph_fn, program.args())
    if isinstance(graph_outcome.error, GraphModeError) or type(graph_outcome.error) is not type(
        eager_outcome.error
    ):
        return  # (refused, or a known-open difference the fuzz tests count)
    graph = step(graph_fn, *program.args())
    eager = step(fn, *program.args())
    assert type(graph.exception) is type(eager.exception)
    constructs = program.source.partition("\n")[0] if program.python_constructs else ""
    if "closure" in constructs:
        return
    aliasing = constructs.startswith(PYTHON_MARK) and any(c in constructs for c in ALIASING)
    assert_steps_agree(graph, eager, values_too=not aliasing)
