"""Copying a traced function's regions into the graph being built.

The forward pass of a gradient is the function's own graph, copied node for node into
the region being traced (``env`` maps each original node to its copy).  A loop copied
where its gradient will be computed also saves its state at the start of every
iteration in graph lists (its tape), so the backward pass can replay the iterations in
reverse.  The backward pass copies branches and loop bodies again (rematerialisation)
to get their inner values, without their prints and asserts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from ..graph import runtime
from ..graph.functions import Call, is_effect
from ..graph.ir import Node, Op, Region
from ..graph.types import PYTHON, TOKEN, ListType, TensorType, TokenType, TupleType
from ..source.locations import Loc
from ..staging.traced import Traced, TracedList, call
from ..staging.tracing import RegionBuilder, current, located, region

COUNT = TensorType(np.dtype(np.int64), 0, PYTHON)


@dataclasses.dataclass
class Tape:
    """A copied loop that saved its states: per carried variable (tensors only) the list
    of its values at the start of each iteration, the iteration count, and the loop's
    final values."""

    saved: dict[int, Node]
    count: Node
    outputs: list[Node]


class Copier:
    """Copies regions; ``env`` maps original nodes to copies, ``tapes`` original loops
    to the tapes of their latest copy."""

    def __init__(self, env: dict[Node, Node]) -> None:
        self.env = env
        self.tapes: dict[Node, Tape] = {}

    def here(self, region: Region, effects: bool) -> None:
        """Copy region's nodes into the region being traced, its loops with tapes (its
        params must be in ``env``).  Without ``effects``, prints, asserts and raises are
        left out: the forward pass has run them."""
        builder = current()
        for node in region.nodes:
            if node.op is Op.WHILE:
                self._taped_loop(node, builder, effects)
            elif (
                node.op is Op.PROJ
                and node.inputs[0] in self.tapes
                and isinstance(node.type, TokenType)
            ):
                self.env[node] = builder.token
            elif node.op is Op.PROJ and node.inputs[0] in self.tapes:
                self.env[node] = self.tapes[node.inputs[0]].outputs[node.arg]
            else:
                self._node(node, builder.add, effects, builder)

    def _node(
        self,
        node: Node,
        add: Callable[[Node], Node],
        effects: bool,
        builder: RegionBuilder | None = None,
    ) -> None:
        """Copy one node with ``add``; a builder's effect token follows its effects."""
        env = self.env
        if node.op is Op.CONST and isinstance(node.type, TokenType) and builder is not None:
            env[node] = builder.token
            return
        if node.op is Op.CALL and is_effect(node.arg.fn) and not effects:
            env[node] = env[node.inputs[0]]
            return
        arg = node.arg
        if node.op in (Op.COND, Op.WHILE):
            arg = tuple(self.copy(r, effects) for r in node.arg)
        env[node] = add(Node(node.op, tuple(env[i] for i in node.inputs), arg, node.type, node.loc))
        if builder is not None and isinstance(node.type, TokenType):
            builder.token = env[node]

    def copy(self, region: Region, effects: bool) -> Region:
        """A copy of a nested region (as it is: its loops get no tapes)."""
        params = []
        for p in region.params:
            params.append(Node(Op.PARAM, (), p.arg, p.type, p.loc))
            self.env[p] = params[-1]
        nodes: list[Node] = []

        def add(node: Node) -> Node:
            nodes.append(node)
            return node

        for node in region.nodes:
            self._node(node, add, effects)
        return Region(
            params,
            nodes,
            tuple(self.env[r] for r in region.results),
            region.names,
            region.unrolled,
            flags=dict(region.flags),
        )

    def _taped_loop(self, node: Node, builder: RegionBuilder, effects: bool) -> None:
        """Copy a WHILE node whose state also carries an iteration count and, per tensor
        variable, the list of its values at the start of each iteration."""
        test, body = node.arg
        carried = node.type.items[:-1]
        saved = [j for j, t in enumerate(carried) if isinstance(t, TensorType)]
        lists = [ListType(carried[j]) for j in saved]
        types = (*carried, COUNT, *lists, TOKEN)
        with located(node.loc):
            empty = [
                builder.add(Node(Op.CALL, (), Call(runtime.list_new, (), {}), t, node.loc))
                for t in lists
            ]
            start = builder.add(Node(Op.CONST, (), 0, COUNT, node.loc))
            inputs = (
                *(self.env[i] for i in node.inputs[:-1]),
                start,
                *empty,
                self.env[node.inputs[-1]],
            )
            regions = []
            for original in (test, body):
                with region() as inner:
                    params = [inner.add_param(t) for t in types]
                    for p, copy in zip(original.params, (*params[: len(carried)], params[-1])):
                        self.env[p] = copy
                    inner.token = params[-1]
                    for n in original.nodes:
                        self._node(n, inner.add, effects, inner)
                    results = tuple(self.env[r] for r in original.results)
                    if original is body:
                        count = Traced(params[len(carried)]) + 1
                        appended = [
                            call(
                                runtime.list_append,
                                TracedList(params[len(carried) + 1 + k]),
                                Traced(params[j]),
                            ).node
                            for k, j in enumerate(saved)
                        ]
                        results = (*results[:-1], count.node, *appended, results[-1])
                    inner.region.results = results
                    inner.region.names = original.names
                    inner.region.unrolled = original.unrolled
                regions.append(inner.region)
            loop = builder.add(Node(Op.WHILE, inputs, tuple(regions), TupleType(types), node.loc))
            outs = [
                builder.add(Node(Op.PROJ, (loop,), k, t, node.loc)) for k, t in enumerate(types)
            ]
        builder.token = outs[-1]
        self.tapes[node] = Tape(
            {j: outs[len(carried) + 1 + k] for k, j in enumerate(saved)},
            outs[len(carried)],
            outs[: len(carried)],
        )


def gradient_loc(loc: Loc | None) -> Loc | None:
    """Where a gradient node comes from: the forward node's line, marked as a gradient."""
    return None if loc is None else dataclasses.replace(loc, gradient=True)
