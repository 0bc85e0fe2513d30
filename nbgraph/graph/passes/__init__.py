"""Graph passes, run in the order of ``PIPELINE``; the verifier checks after each."""

from __future__ import annotations

from collections.abc import Callable

from ..ir import Graph
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
    """Run every pass in order, verifying the IR's invariants after each."""
    verify(graph)
    for name, run in PIPELINE:
        graph = run(graph)
        verify(graph, after=name)
    return graph


__all__ = [
    "PIPELINE",
    "eliminate_common_subexpressions",
    "eliminate_dead_code",
    "fold_constants",
    "optimize",
    "verify",
]
