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
        inputs = tuple(_final(i, subst) for i in node.inputs)
        if inputs != node.inputs:
            new = Node(node.op, inputs, node.arg, node.type, node.loc)
            subst[node] = new
            node = new
        nodes.append(node)
    region.nodes = nodes
    region.results = tuple(_final(r, subst) for r in region.results)


def _final(node: Node, subst: dict[Node, Node]) -> Node:
    """Where ``node`` ends up: a replacement may itself have been rebuilt since (its own
    inputs replaced), so follow the chain."""
    while node in subst:
        node = subst[node]
    return node
