"""Backends: turn an optimised Graph into a callable on flat argument leaves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..graph.ir import Graph

BACKENDS = ("cpu", "interpret")


def compile_graph(graph: Graph, backend: str, parallel: bool = False
                  ) -> Callable[[list[Any]], list[Any]]:
    """A function from the graph's parameter values to its result values."""
    if backend == "interpret":
        from .interpret import Interpreter

        return Interpreter(graph).run
    if backend == "cpu":
        from .numba_cpu import compile_numba

        return compile_numba(graph, parallel=parallel)
    raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
