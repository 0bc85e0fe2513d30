"""A copy of a graph's structure, made before the optimisation passes change it in place,
so that the views can show the graph as traced beside the graph as optimised."""

from __future__ import annotations

import dataclasses

from .ir import Graph, Node, Op, Region


def snapshot(graph: Graph) -> Graph:
    """A copy of ``graph`` with new nodes and regions (sharing each node's op object,
    location and type, which the passes never change)."""
    copied: dict[Node, Node] = {}

    def node(original: Node) -> Node:
        if original.op in (Op.COND, Op.WHILE):
            arg = tuple(region(r) for r in original.arg)
        else:
            arg = original.arg
        made = Node(
            original.op,
            tuple(copied[i] for i in original.inputs),
            arg,
            original.type,
            original.loc,
        )
        copied[original] = made
        return made

    def region(original: Region) -> Region:
        params = []
        for p in original.params:
            copied[p] = Node(p.op, (), p.arg, p.type, p.loc)
            params.append(copied[p])
        nodes = [node(n) for n in original.nodes]
        return dataclasses.replace(
            original,
            params=params,
            nodes=nodes,
            results=tuple(copied[r] for r in original.results),
            variables=tuple((name, copied.get(n, n)) for name, n in original.variables),
            flags=dict(original.flags),
        )

    return dataclasses.replace(graph, body=region(graph.body))
