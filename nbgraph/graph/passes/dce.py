"""Dead-code elimination: drop nodes no result (or effect) depends on."""

from __future__ import annotations

from ..functions import is_effect
from ..ir import Graph, Node, Op, Region


def _used_inside(region: Region) -> set[Node]:
    """Nodes used by a region, captured outer values included."""
    used: set[Node] = set(region.results)
    for node in region.nodes:
        used.update(node.inputs)
        for sub in node.regions():
            used |= _used_inside(sub)
    return used


def _sweep(region: Region) -> None:
    live: set[Node] = set(region.results)
    kept: list[Node] = []
    for node in reversed(region.nodes):
        effect = node.op is Op.CALL and is_effect(node.arg.fn)
        if node in live or effect:
            kept.append(node)
            live.update(node.inputs)
            for sub in node.regions():
                _sweep(sub)
                live |= _used_inside(sub)
    kept.reverse()
    region.nodes = kept


def eliminate_dead_code(graph: Graph) -> Graph:
    """Remove unused nodes in every region, in place; returns the graph."""
    _sweep(graph.body)
    return graph
