"""Common-subexpression elimination: one node per distinct pure computation.

A node in a nested region may reuse an equal node of an enclosing region (it was
computed before the region runs); never the other way round.  Two equal calls of which
one is updated (``b[0] = ...``, or a loop's state that its body updates) stay apart:
merged, they would be one array that the update must copy (each is a fresh array the
backend writes in place).
"""

from __future__ import annotations

from collections import ChainMap

from ..functions import is_effect
from ..ir import Graph, Node, Op, Region
from ..runtime import UPDATES
from ..template import freeze
from .rewrite import substitute


def _key(node: Node) -> tuple | None:
    if node.op is Op.CALL and not is_effect(node.arg.fn):
        return ("call", node.arg.key(), node.inputs, node.type)
    if node.op is Op.CONST and node.type is not None:
        return ("const", freeze(node.arg), node.type)
    if node.op is Op.PROJ:
        return ("proj", node.inputs, node.arg)
    return None


def _scan(region: Region, table: ChainMap, subst: dict[Node, Node], updated: set[Node]) -> None:
    for node in region.nodes:
        inputs = tuple(subst.get(i, i) for i in node.inputs)
        probe = Node(node.op, inputs, node.arg, node.type, node.loc)
        key = _key(probe) if node.op is not Op.CALL or node not in updated else None
        if key is not None:
            try:
                existing = table.get(key)
            except TypeError:  # unhashable constant
                existing, key = None, None
            if existing is not None and existing not in updated:
                subst[node] = existing
                continue
            if key is not None:
                table[key] = node
        for sub in node.regions():
            _scan(sub, table.new_child(), subst, updated)


def _updated(region: Region) -> set[Node]:
    """The values that an update takes as the value to change, and those a loop starts
    a state from that its body updates (``lst = []`` before a loop that appends)."""
    found = set()
    for node in region.nodes:
        if node.op is Op.CALL and node.arg.fn in UPDATES:
            found.add(node.inputs[0])
        inner = set().union(*(_updated(sub) for sub in node.regions()))
        found |= inner
        if node.op is Op.WHILE:
            body = node.arg[1]
            found.update(v for v, p in zip(node.inputs, body.params) if p in inner)
    return found


def eliminate_common_subexpressions(graph: Graph) -> Graph:
    """Merge equal pure nodes, in place; returns the graph."""
    subst: dict[Node, Node] = {}
    _scan(graph.body, ChainMap(), subst, _updated(graph.body))
    if subst:
        substitute(graph.body, subst)
    return graph
