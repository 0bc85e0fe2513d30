"""NumPy evaluation of a fused elementwise group, a block of rows at a time.

Used where NumPy is faster than compiled scalar code (transcendental functions, which
NumPy evaluates with SIMD) and where inputs broadcast.  Each block's temporaries stay
in cache; blocks are shared between two threads (NumPy ufuncs release the GIL).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ...graph.ir import Node
from ...graph.template import fill
from .fusion import Group

BLOCK = 1 << 14  # elements per block
_THREADS = 2
_pool: ThreadPoolExecutor | None = None
_OPERATOR_UFUNCS = {
    operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply,
    operator.truediv: np.true_divide, operator.floordiv: np.floor_divide,
    operator.mod: np.remainder, operator.pow: np.power, operator.neg: np.negative,
    operator.lt: np.less, operator.le: np.less_equal, operator.gt: np.greater,
    operator.ge: np.greater_equal, operator.eq: np.equal, operator.ne: np.not_equal,
    operator.and_: np.bitwise_and, operator.or_: np.bitwise_or,
    operator.xor: np.bitwise_xor, operator.invert: np.invert,
}


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(_THREADS, thread_name_prefix="nbgraph-block")
    return _pool


class ChunkedGroup:
    """Callable evaluating a group on its input values; returns a new array."""

    def __init__(self, group: Group) -> None:
        self.group = group
        self.dtype = group.root.type.dtype
        root = group.root.arg.fn
        self.root_ufunc = root if isinstance(root, np.ufunc) else _OPERATOR_UFUNCS.get(root)

    def _evaluate(self, values: dict[Node, Any], out: np.ndarray) -> None:
        """Compute the group into ``out`` (one block)."""
        for member in self.group.members:
            args = [values[i] for i in member.inputs]
            call = member.arg
            if member is self.group.root:
                if self.root_ufunc is not None:
                    self.root_ufunc(*fill(call.args, args), out=out, casting="unsafe")
                else:
                    out[...] = call.apply(args)
                return
            values[member] = call.apply(args)

    def __call__(self, *inputs: Any) -> np.ndarray:
        shape = np.broadcast_shapes(*(np.shape(v) for v in inputs))
        out = np.empty(shape, dtype=self.dtype)
        if out.size == 0:
            return out
        row = max(1, out.size // shape[0])
        rows = max(1, BLOCK // row)
        blocks = [slice(r, r + rows) for r in range(0, shape[0], rows)]

        def run(block: slice) -> None:
            values = {}
            for node, value in zip(self.group.inputs, inputs):
                full = np.ndim(value) == len(shape) and np.shape(value)[0] == shape[0]
                values[node] = value[block] if full else value
            self._evaluate(values, out[block])

        if len(blocks) < 4:
            for block in blocks:
                run(block)
        else:
            list(_executor().map(run, blocks))
        return out


def make_chunked(group: Group) -> Callable[..., np.ndarray]:
    """A NumPy evaluator for ``group`` (called from compiled code through objmode)."""
    return ChunkedGroup(group)
