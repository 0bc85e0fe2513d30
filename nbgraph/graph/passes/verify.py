"""The IR's invariants, checked after every pass.

1. Every input of a node is defined earlier in its region or in an enclosing region.
2. A region's results are defined in it or an enclosing region.
3. COND: one predicate input; both regions have no params and results of the node's types.
4. WHILE: test and body take the state types; the body returns them; the test one value.
5. PROJ reads an index of a multi-result node.
"""

from __future__ import annotations

from ..ir import Graph, Node, Op, Region
from ..types import TupleType


class VerificationError(AssertionError):
    """The graph breaks an invariant (a bug in tracing or in a pass)."""


def _types(nodes: tuple[Node, ...] | list[Node]) -> tuple:
    return tuple(n.type for n in nodes)


def _check_region(region: Region, scope: set[Node], where: str) -> None:
    scope = scope | set(region.params)
    for node in region.nodes:
        for i in node.inputs:
            if i not in scope:
                raise VerificationError(f"{where}: {node!r} uses {i!r} before it is defined")
        if node.op is Op.COND:
            then, other = node.arg
            for sub in (then, other):
                if sub.params:
                    raise VerificationError(f"{where}: cond region with params")
                _check_region(sub, scope, where)
                if _types(sub.results) != node.type.items:
                    raise VerificationError(
                        f"{where}: cond results {_types(sub.results)} != {node.type.items}"
                    )
        elif node.op is Op.WHILE:
            test, body = node.arg
            state = _types(node.inputs)
            if _types(test.params) != state or _types(body.params) != state:
                raise VerificationError(f"{where}: while params do not match its state")
            if _types(body.results) != state or len(test.results) != 1:
                raise VerificationError(f"{where}: while results do not match its state")
            _check_region(test, scope, where)
            _check_region(body, scope, where)
        elif node.op is Op.PROJ:
            source = node.inputs[0].type
            if not isinstance(source, TupleType) or source.items[node.arg] != node.type:
                raise VerificationError(f"{where}: bad projection {node!r}")
        scope.add(node)
    for r in region.results:
        if r not in scope:
            raise VerificationError(f"{where}: result {r!r} is not defined")


def verify(graph: Graph, after: str = "tracing") -> None:
    """Raise VerificationError if the graph breaks an invariant."""
    _check_region(graph.body, set(), f"after {after}")
