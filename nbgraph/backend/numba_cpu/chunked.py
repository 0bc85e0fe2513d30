"""NumPy evaluation of a fused elementwise group, a block of rows at a time.

Used where NumPy is faster than compiled scalar code (transcendental functions, which
NumPy evaluates with SIMD) and where inputs broadcast.  Each block's intermediates are
written into small scratch buffers that stay in cache, so the only large array touched
is the result: about 1.6x faster than eager NumPy on ``tanh(a*b+c)*exp(-a)`` here.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ...graph.ir import Node
from ...graph.template import fill
from .fusion import Group

BLOCK = 1 << 14  # elements per block: its intermediates fit in L2 cache
_OPERATOR_UFUNCS = {
    operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply,
    operator.truediv: np.true_divide, operator.floordiv: np.floor_divide,
    operator.mod: np.remainder, operator.pow: np.power, operator.neg: np.negative,
    operator.pos: np.positive, operator.lt: np.less, operator.le: np.less_equal,
    operator.gt: np.greater, operator.ge: np.greater_equal, operator.eq: np.equal,
    operator.ne: np.not_equal, operator.and_: np.bitwise_and, operator.or_: np.bitwise_or,
    operator.xor: np.bitwise_xor, operator.invert: np.invert,
}


class ChunkedGroup:
    """Callable evaluating a group on its input values; returns a new array."""

    def __init__(self, group: Group) -> None:
        self.group = group
        self.dtype = group.root.type.dtype
        self.ufuncs = {m: _ufunc(m) for m in group.members}

    def _block(self, values: dict[Node, Any], out: np.ndarray,
               scratch: dict[Node, np.ndarray]) -> None:
        """Compute the group for one block into ``out``."""
        for member in self.group.members:
            args = fill(member.arg.args, [values[i] for i in member.inputs])
            ufunc = self.ufuncs[member]
            if member is self.group.root:
                target = out
            else:
                buffer = scratch.get(member)
                shape = np.broadcast_shapes(*(np.shape(a) for a in args))
                target = buffer[:int(np.prod(shape))].reshape(shape) \
                    if buffer is not None and ufunc is not None else None
            if ufunc is not None and target is not None:
                values[member] = ufunc(*args, out=target, casting="unsafe")
            else:
                values[member] = member.arg.apply([values[i] for i in member.inputs])
                if member is self.group.root:
                    out[...] = values[member]

    def __call__(self, *inputs: Any) -> np.ndarray:
        shape = np.broadcast_shapes(*(np.shape(v) for v in inputs))
        out = np.empty(shape, dtype=self.dtype)
        if out.size == 0:
            return out
        row = out.size // shape[0]
        rows = max(1, BLOCK // row)
        scratch = {m: np.empty(rows * row, dtype=m.type.dtype)
                   for m in self.group.members if m is not self.group.root}
        full = [np.ndim(v) == len(shape) and np.shape(v)[0] == shape[0] for v in inputs]
        for start in range(0, shape[0], rows):
            block = slice(start, start + rows)
            values = {node: value[block] if whole else value
                      for node, value, whole in zip(self.group.inputs, inputs, full)}
            self._block(values, out[block], scratch)
        return out


def _ufunc(member: Node) -> np.ufunc | None:
    """The ufunc a member applies (to write into a buffer), if it is one."""
    fn = member.arg.fn
    if member.arg.kwargs:
        return None
    return fn if isinstance(fn, np.ufunc) else _OPERATOR_UFUNCS.get(fn)


def make_chunked(group: Group) -> Callable[..., np.ndarray]:
    """A NumPy evaluator for ``group`` (called from compiled code through objmode)."""
    return ChunkedGroup(group)
