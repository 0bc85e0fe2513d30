"""Rebuilding regions after some nodes were replaced (nodes are immutable)."""

from __future__ import annotations

from ..ir import Node, Region


def substitute(region: Region, subst: dict[Node, Node]) -> None:
    """Rewrite ``region`` (and nested regions) so inputs follow ``subst``; in place."""
    nodes = []
    for node in region.nodes:
        if node in subst:
            continue
        for sub in node.regions():
            substitute(sub, subst)
        inputs = tuple(subst.get(i, i) for i in node.inputs)
        if inputs != node.inputs:
            new = Node(node.op, inputs, node.arg, node.type, node.loc)
            subst[node] = new
            node = new
        nodes.append(node)
    region.nodes = nodes
    region.results = tuple(subst.get(r, r) for r in region.results)
