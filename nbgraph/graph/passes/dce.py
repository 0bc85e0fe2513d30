"""Dead-code elimination: drop nodes no result (or effect) depends on."""

from __future__ import annotations

import operator

from ..functions import is_effect
from ..ir import Graph, Node, Op, Region


def _observable(node: Node) -> bool:
    """Effects, and reads that raise IndexError in eager code even when unused."""
    if node.op is not Op.CALL:
        return False
    fn = node.arg.fn
    if is_effect(fn):
        return True
    return fn is operator.getitem and not _only_slices(node.arg.args[1])


def _only_slices(index: object) -> bool:
    items = index if type(index) is tuple else (index,)
    return all(type(i) is slice or i is None or i is Ellipsis for i in items)


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
        if node in live or _observable(node):
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
