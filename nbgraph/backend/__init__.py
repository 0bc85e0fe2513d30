"""Backends: turn an optimised Graph into a program run on flat argument leaves."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ..graph.ir import Graph

BACKENDS = ("cpu", "cuda", "interpret")


class Program(Protocol):
    """A graph made runnable by a backend."""

    def prepare(self, args: Sequence[Any]) -> None:
        """Finish compiling for these argument values' types (the first run would)."""

    def run(self, args: Sequence[Any]) -> Sequence[Any]:
        """The graph's result values (the effect token left out)."""


def compile_graph(graph: Graph, backend: str, parallel: bool = False) -> Program:
    """The backend's program for ``graph``."""
    if backend == "interpret":
        from .interpret import Interpreter

        return Interpreter(graph, writes_in_place=True)
    if backend == "cpu":
        from .numba_cpu import NumbaGraph

        return NumbaGraph(graph, parallel=parallel)
    if backend == "cuda":
        from .numba_cuda import CudaGraph

        return CudaGraph(graph)
    raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
