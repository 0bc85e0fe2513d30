"""Graph passes, run in the order of ``PIPELINE``; the verifier checks after each."""

from __future__ import annotations

from collections.abc import Callable

from ..ir import Graph, Node, Op, PassChange
from ..snapshot import snapshot
from .cse import eliminate_common_subexpressions
from .dce import eliminate_dead_code
from .fold import fold_constants
from .verify import verify

PIPELINE: list[tuple[str, Callable[[Graph], Graph]]] = [
    ("dce", eliminate_dead_code),
    ("cse", eliminate_common_subexpressions),
    ("fold", fold_constants),
    ("dce", eliminate_dead_code),
]


def optimize(graph: Graph) -> Graph:
    """Run every pass in order, verifying the IR's invariants after each; the graph
    keeps what each pass took out and put in (``Graph.passes``)."""
    verify(graph)
    traced = snapshot(graph)
    changes = []
    for name, run in PIPELINE:
        before = _operations(graph)
        graph = run(graph)
        verify(graph, after=name)
        after = _operations(graph)
        changes.append(
            PassChange(
                name,
                tuple(n for key, n in before.items() if key not in after),
                tuple(n for key, n in after.items() if key not in before),
            )
        )
    graph.passes = tuple(c for c in changes if c.removed or c.added)
    gone = {(id(n.arg), n.loc): c.name for c in reversed(changes) for n in c.removed}
    graph.traced = traced.annotated(
        removed={n: gone[key] for key, n in _operations(traced).items() if key in gone}
    )
    return graph


def _operations(graph: Graph) -> dict[tuple, Node]:
    """The graph's calls and constants, each by what survives a rewrite of its inputs
    (its op's object and its location)."""
    return {(id(n.arg), n.loc): n for n in graph.all_nodes() if n.op in (Op.CALL, Op.CONST)}


__all__ = [
    "PIPELINE",
    "eliminate_common_subexpressions",
    "eliminate_dead_code",
    "fold_constants",
    "optimize",
    "verify",
]
