"""NumPy evaluation of a fused elementwise group, a block of rows at a time.

Used for the groups compiled code cannot compute as NumPy does (``Group.
scalar_loop_safe``: powers and ``fmod`` of integers).  Each block's intermediates are
written into small scratch buffers that stay in cache, so the only large array touched
is the result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...graph.ir import Node
from ...graph.numpy_facts import ufunc_of
from ...graph.template import fill
from ..common.fusion import Group, small_power
from ..generated import stable_key

BLOCK = 1 << 16  # elements per block: its intermediates stay in L2 cache, and blocks are
# few enough that the Python work per block and member (a few µs) stays small


class ChunkedGroup:
    """Callable evaluating a group on its input values; returns a new array."""

    def __init__(self, group: Group) -> None:
        self.group = group
        self.dtype = group.root.type.dtype
        self.steps = [(m, _ufunc(m), small_power(m), m is group.root) for m in group.members]

    def cache_key(self) -> str | None:
        """What the group computes, for the key of the module that calls it
        (``generated.stable_key``): each member's call, type and operands (positions
        among the group's inputs, then its members)."""
        order = [*self.group.inputs, *self.group.members]
        return stable_key(
            [
                (
                    m.arg.fn,
                    m.arg.args,
                    m.arg.kwargs,
                    m.type,
                    tuple(order.index(i) for i in m.inputs),
                )
                for m in self.group.members
            ]
        )

    def _plan(self, values: dict[Node, Any]) -> list[tuple[Any, ...]]:
        """For one block shape: each member's ufunc, small power, whether it is the root
        and its shape (a member filling the block is written into a scratch buffer)."""
        shapes = {node: np.shape(v) for node, v in values.items()}
        plan = []
        for member, ufunc, power, is_root in self.steps:
            shape = np.broadcast_shapes(*(shapes[i] for i in member.inputs))
            shapes[member] = shape
            plan.append((member, ufunc, power, is_root, shape))
        return plan

    def __call__(self, *inputs: Any) -> np.ndarray:
        shape = np.broadcast_shapes(*(np.shape(v) for v in inputs))
        out = np.empty(shape, dtype=self.dtype)
        if out.size == 0:
            return out
        row = out.size // shape[0]
        rows = max(1, BLOCK // row)
        full = [np.ndim(v) == len(shape) and np.shape(v)[0] == shape[0] for v in inputs]
        plans: dict[int, list] = {}
        scratch: dict[Node, np.ndarray] = {}
        for start in range(0, shape[0], rows):
            block = slice(start, start + rows)
            values = {
                node: value[block] if whole else value
                for node, value, whole in zip(self.group.inputs, inputs, full)
            }
            target = out[block]
            plan = plans.get(target.shape[0])
            if plan is None:
                plan = plans[target.shape[0]] = self._plan(values)
            for member, ufunc, power, is_root, member_shape in plan:
                args = fill(member.arg.args, [values[i] for i in member.inputs])
                if is_root:
                    buffer = target
                elif ufunc is not None and member_shape == target.shape:
                    buffer = scratch.get(member)
                    if buffer is None or buffer.shape != member_shape:
                        buffer = scratch[member] = np.empty(member_shape, member.type.dtype)
                else:
                    buffer = None
                if power is not None and buffer is not None:
                    values[member] = _power(values[member.inputs[0]], power, buffer)
                elif ufunc is not None and buffer is not None:
                    values[member] = ufunc(*args, out=buffer, casting="unsafe")
                else:
                    values[member] = member.arg.apply([values[i] for i in member.inputs])
                    if is_root:
                        target[...] = values[member]
        return out


def _power(x: np.ndarray, exponent: float, out: np.ndarray) -> np.ndarray:
    """``x ** exponent`` for ``fusion.small_power``'s exponents, into ``out``."""
    if exponent == 0.5:
        return np.sqrt(x, out=out, casting="unsafe")
    return np.multiply(x, x, out=out, casting="unsafe")


def _ufunc(member: Node) -> np.ufunc | None:
    """The ufunc a member applies (to write into a buffer), if it is one."""
    if member.arg.kwargs:
        return None
    return ufunc_of(member.arg.fn)


def make_chunked(group: Group) -> Callable[..., np.ndarray]:
    """A NumPy evaluator for ``group`` (called from compiled code through objmode)."""
    return ChunkedGroup(group)
