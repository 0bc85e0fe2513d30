"""Elementwise fusion: chains of elementwise array operations become one loop.

A group is a tree of elementwise CALL nodes producing arrays, in one region, whose
inner results are used only inside the group.  It is evaluated once per element with
no temporaries; its leaves (arrays and scalars) are the group's inputs.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ...graph.functions import is_elementwise
from ...graph.ir import Node, Op, Region
from ...graph.runtime import UPDATES
from ...graph.types import ARRAY, TensorType

# Left to NumPy for integers: powers (negative exponents raise for arrays only) and fmod
# (Numba gives its result the sign of the divisor).
_INT_PARTIAL = frozenset({operator.pow, np.power, np.float_power, np.fmod})


@dataclass
class Group:
    """One fused group: ``root`` computes the result; ``members`` in schedule order."""

    root: Node
    members: list[Node] = field(default_factory=list)
    inputs: list[Node] = field(default_factory=list)

    @property
    def scalar_loop_safe(self) -> bool:
        """Whether a compiled per-element loop gives NumPy's results exactly."""
        for m in self.members:
            kinds = {i.type.dtype.kind for i in m.inputs if isinstance(i.type, TensorType)}
            if m.arg.fn in _INT_PARTIAL and kinds & {"i", "u", "b"}:
                return False
        return True


def is_float_clip(node: Node) -> bool:
    """``np.clip(x, lo, hi)`` of floats with scalar bounds: elementwise too (its kernel
    expression is ``helpers.clip``).  NumPy's loop for array bounds keeps the other of
    two equal zeros, so those stay NumPy's."""
    call = node.arg
    return (
        call.fn is np.clip
        and len(call.args) == 3
        and len(node.inputs) == 3
        and isinstance(node.type, TensorType)
        and node.type.dtype.kind == "f"
        and all(isinstance(b.type, TensorType) and b.type.ndim == 0 for b in node.inputs[1:])
    )


def is_select(node: Node) -> bool:
    """``np.where(condition, x, y)``: elementwise too (its kernel expression is a
    conditional); Numba's own np.where is several times slower than NumPy's."""
    call = node.arg
    return call.fn is np.where and len(call.args) == 3 and not call.kwargs


def small_power(node: Node) -> int | float | None:
    """The exponent of ``x ** 2`` or ``x ** 0.5`` of a float ``x`` (``x ** 2`` of a
    complex one too), which kernels compute as ``x * x`` and ``sqrt``, as NumPy does
    (Numba's complex power goes through exp and log); None for any other node (other
    exponents are NumPy's ``power`` loop: ``x * x * x`` differs from it in the last bit
    for a quarter of the values)."""
    call = node.arg
    if (
        call.fn not in (operator.pow, np.power)
        or len(node.inputs) != 1
        or len(call.args) != 2
        or node.inputs[0].type.dtype.kind not in "fc"
    ):
        return None
    exponent = call.args[1]
    if type(exponent) not in (int, float) or exponent not in (2, 0.5):
        return None
    return exponent if exponent == 2 or node.inputs[0].type.dtype.kind == "f" else None


def is_fusable(node: Node) -> bool:
    """Whether a node can be a member of a group: an elementwise call of arrays with an
    array result."""
    if node.op is not Op.CALL or not (
        is_elementwise(node.arg.fn) or is_float_clip(node) or is_select(node)
    ):
        return False
    if node.arg.kwargs or not isinstance(node.type, TensorType):
        return False
    if node.type.flavor != ARRAY or node.type.ndim == 0:
        return False
    return (
        all(isinstance(i.type, TensorType) for i in node.inputs) and node.type.dtype.kind in "biufc"
    )


def find_groups(
    region: Region, uses: dict[Node, int], fusable: Callable[[Node], bool] = is_fusable
) -> dict[Node, Group]:
    """Groups of this region, keyed by every member (roots and inner nodes); ``fusable``
    says which nodes a backend can compute element by element."""
    in_region = set(region.nodes)
    crosses = crosses_writes(region)
    groups: dict[Node, Group] = {}
    for node in reversed(region.nodes):
        if node in groups or not fusable(node):
            continue
        group = Group(node)
        stack = [node]
        while stack:
            current = stack.pop()
            group.members.append(current)
            for source in dict.fromkeys(current.inputs):  # (d * d reads d once)
                inner = (
                    source in in_region
                    and fusable(source)
                    and uses.get(source) == current.inputs.count(source)
                    and source not in groups
                    and not crosses(source, node)
                )
                if inner:
                    stack.append(source)
                elif source not in group.inputs:
                    group.inputs.append(source)
        order = {n: i for i, n in enumerate(region.nodes)}
        group.members.sort(key=order.__getitem__)
        if len(group.members) > 1 or any(i.type.ndim == node.type.ndim for i in group.inputs):
            for member in group.members:
                groups[member] = group
    return groups


def crosses_writes(region: Region) -> Callable[[Node, Node], bool]:
    """Whether computing a node of ``region`` at a later node's place instead would move
    it past an update (an array or list written, or a branch or loop that writes one).
    Such a node stays where it is: moved, it would read the new elements, or make the
    update copy its array to keep the old ones."""
    place = {node: i for i, node in enumerate(region.nodes)}
    writes = [i for i, node in enumerate(region.nodes) if _writes(node)]

    def crosses(node: Node, later: Node) -> bool:
        return any(place[node] < w < place[later] for w in writes)

    return crosses


def _writes(node: Node) -> bool:
    if node.op is Op.CALL and node.arg.fn in UPDATES:
        return True
    return any(_writes(inner) for sub in node.regions() for inner in sub.nodes)


def all_groups(
    body: Region, uses: dict[Node, int], fusable: Callable[[Node], bool] = is_fusable
) -> dict[Node, Group]:
    """``find_groups`` of the region ``body`` and of every region nested in it."""
    groups: dict[Node, Group] = {}
    for region in body.walk():
        groups.update(find_groups(region, uses, fusable))
    return groups


def count_uses(region: Region) -> dict[Node, int]:
    """How many times each node is used as an input (nested regions included)."""
    uses: dict[Node, int] = {}

    def visit(r: Region) -> None:
        for node in r.nodes:
            for i in node.inputs:
                uses[i] = uses.get(i, 0) + 1
            for sub in node.regions():
                visit(sub)
        for res in r.results:
            uses[res] = uses.get(res, 0) + 1

    visit(region)
    return uses
