"""Backends: turn an optimised Graph into a program run on flat argument leaves."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from ..graph.ir import Graph, Node

# Each backend's program class, imported when first used: Numba (and CUDA) load only
# once a graph is compiled, not with ``import nbgraph``.
_PROGRAMS = {
    "cpu": "nbgraph.backend.numba_cpu:NumbaGraph",
    "cuda": "nbgraph.backend.numba_cuda:CudaGraph",
    "interpret": "nbgraph.backend.interpret:Interpreter",
}
BACKENDS = tuple(sorted(_PROGRAMS))


class Program(Protocol):
    """A graph made runnable by a backend."""

    # What compiling learned, for the graph view (never written into the graph, which
    # is shared): nodes the program runs in Python, and updates it makes by copying a
    # whole array inside a loop, each with why; and the operations it computes together
    # in one pass over the elements (each group in schedule order, the last computing
    # the group's result: a reduction where one consumes the elements as they come).
    python_nodes: Mapping[Node, str]
    copies: Mapping[Node, str]
    fused: Sequence[Sequence[Node]]

    def prepare(self, args: Sequence[Any], report: Callable[[str], None] | None = None) -> None:
        """Finish compiling for these argument values' types (the first run would),
        telling ``report`` what it is doing (shown while a slow first call builds)."""

    def run(self, args: Sequence[Any]) -> Sequence[Any]:
        """The graph's result values (the effect token left out)."""


def compile_graph(graph: Graph, backend: str, parallel: bool = False) -> Program:
    """The backend's program for ``graph``."""
    if backend not in _PROGRAMS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    module, name = _PROGRAMS[backend].split(":")
    program = getattr(importlib.import_module(module), name)
    if backend == "interpret":
        return program(graph, writes_in_place=True)
    return program(graph, parallel=parallel) if backend == "cpu" else program(graph)


def wait(backend: str) -> None:
    """Wait until the work a backend queued has finished: the CUDA backend returns device
    arrays while its kernels may still run (as CuPy and JAX do); timing waits for them."""
    if backend == "cuda":
        importlib.import_module("numba.cuda").synchronize()


def warm_up() -> None:
    """Do ahead what a session's first build on the CPU backend would wait for: import
    the backend and Numba, and load Numba's registries (together about a second, once
    per process).  The Jupyter extension runs it on a background thread when it loads,
    so the first graph call of a new kernel loads from the disk cache in a fraction of
    a second."""
    importlib.import_module("nbgraph.backend.numba_cpu").warm_up()
