"""Constant folding: evaluate pure calls on constants now; inline a cond whose predicate
is constant."""

from __future__ import annotations

import warnings

import numpy as np

from ..functions import is_effect
from ..ir import Graph, Node, Op, Region
from ..types import TensorType, type_of

_MAX_FOLDED_ELEMENTS = 1 << 16


def _fold_call(node: Node) -> Node | None:
    if is_effect(node.arg.fn) or not all(i.op is Op.CONST for i in node.inputs):
        return None
    if not isinstance(node.type, TensorType):
        return None
    try:
        with np.errstate(all="raise"), warnings.catch_warnings():
            warnings.simplefilter("error")
            value = node.arg.apply([i.arg for i in node.inputs])
    except Exception:
        return None
    if type_of(value) != node.type or np.size(value) > _MAX_FOLDED_ELEMENTS:
        return None
    return Node(Op.CONST, (), value, node.type, node.loc)


def _fold(region: Region, subst: dict[Node, Node], inlined: dict[Node, tuple]) -> None:
    nodes: list[Node] = []
    for original in region.nodes:
        node = original
        inputs = tuple(subst.get(i, i) for i in node.inputs)
        if inputs != node.inputs:
            node = Node(node.op, inputs, node.arg, node.type, node.loc)
            subst[original] = node
        if node.op is Op.CALL:
            folded = _fold_call(node)
            if folded is not None:
                subst[original] = folded
                node = folded
        elif node.op is Op.COND and node.inputs[0].op is Op.CONST:
            chosen = node.arg[0] if node.inputs[0].arg else node.arg[1]
            _fold(chosen, subst, inlined)
            nodes.extend(chosen.nodes)
            inlined[original] = chosen.results
            continue
        elif node.op is Op.PROJ and original.inputs[0] in inlined:
            subst[original] = subst.get(
                inlined[original.inputs[0]][node.arg], inlined[original.inputs[0]][node.arg]
            )
            continue
        for sub in node.regions():
            _fold(sub, subst, inlined)
        nodes.append(node)
    region.nodes = nodes
    region.results = tuple(subst.get(r, r) for r in region.results)


def fold_constants(graph: Graph) -> Graph:
    """Fold in place; returns the graph."""
    _fold(graph.body, {}, {})
    return graph
