"""The lines a mapped error adds under its message: what failed, on what, and when.

Eager NumPy says what went wrong; graph mode can also say which graph node it was, the
shapes and dtypes of its operands, and which loop iteration it happened in.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...graph.ir import Graph, Node
from ...graph.printer import format_node, node_names
from ...graph.types import TokenType
from .sites import FailureSite

HIDDEN_FRAMES = (
    "(nbgraph hid its internal frames from this traceback; set NBGRAPH_TRACEBACK=full to see them)"
)


def summary(value: Any) -> str:
    """A short description of a runtime value: ``float64[3, 4]``, ``int 3``."""
    if isinstance(value, np.ndarray):
        return f"{value.dtype}[{', '.join(map(str, value.shape))}]"
    if isinstance(value, np.generic | bool | int | float | complex):
        text = repr(value.item() if isinstance(value, np.generic) else value)
        kind = value.dtype if isinstance(value, np.generic) else type(value).__name__
        return f"{kind} {text if len(text) <= 24 else text[:21] + '...'}"
    if isinstance(value, list | tuple):
        return f"{type(value).__name__} of {len(value)}"
    if hasattr(value, "to_list"):  # a list built in a graph loop
        return f"list of {len(value.to_list())}"
    return type(value).__name__


def site_notes(site: FailureSite, graph: Graph) -> list[str]:
    """Notes naming the failing node, its operands and the iteration of each loop."""
    names = node_names(graph)
    name = lambda node: names.get(node, "%?")  # noqa: E731
    notes = [f"in graph '{graph.name}': {format_node(site.node, name)}"]
    operands = [
        f"{name(node)} = {summary(value)}"
        for node, value in zip(site.node.inputs, site.operands)
        if not isinstance(node.type, TokenType)
    ]
    if operands:
        notes.append(f"  operands: {', '.join(operands)}")
    notes += [
        _loop_note(step.node, step.node.arg[1].unrolled + step.completed, step.state)
        for step in site.loops
    ]
    if site.node.loc is not None:
        notes += [
            f"in iteration {k} of the loop at line {line} (unrolled while tracing)"
            for line, k in site.node.loc.unrolled
        ]
    return notes


def _loop_note(loop: Node, completed: int, state: dict[str, Any]) -> str:
    where = f" at line {loop.loc.lineno}" if loop.loc else ""
    text = f"in iteration {completed + 1} of the loop{where}"
    if state:
        values = ", ".join(f"{k} = {_value(v)}" for k, v in state.items())
        text += f" (when it began: {values})"
    return text


def _value(value: Any) -> str:
    """A scalar's value, else its summary."""
    if isinstance(value, np.generic | bool | int | float | complex):
        return repr(value.item() if isinstance(value, np.generic) else value)
    return summary(value)
