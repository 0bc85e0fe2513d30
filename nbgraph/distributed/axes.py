"""Whether a graph treats one axis of its inputs as a batch axis: the test for running it
block by block on arrays chunked along that axis.

Running ``f`` on each block and joining the results equals running it on the whole
array exactly when position ``j`` of the result along the axis depends on position
``j`` of the inputs only (what ``jax.vmap`` assumes of a batch axis).  ``follow_axis``
checks this with a small abstract interpretation of the graph: every value gets one of

* FREE      the same in every block (constants, arguments passed whole, lengths of
            axes that are not split)
* ALIGNED k an array whose axis ``k`` runs along the split axis
* EXTENT    the block's length along the split axis
* INDEX     the counter of a loop over the split axis (``for i in range(len(x))``)
* ROW       a value of the one position INDEX points at (``x[i]``, what is computed
            from it, a data-dependent ``while`` loop per row)
* ROWS      a list that grows by one ROW value per iteration of such a loop
* MIXED     anything else: depends on several positions (a reduction, a stencil) or on
            where a block starts; carries the node that made it so

Rules exist for what rows and elements are usually computed with (elementwise
operations, reductions over other axes, indexing, item assignment, creation, matmul,
row loops); any other operation on an aligned value is MIXED, so the test errs on the
side of refusing.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..graph import runtime
from ..graph.functions import is_effect, is_elementwise
from ..graph.ir import Graph, Node, Op, Region
from ..graph.numpy_facts import (
    AXIS_FUNCTIONS,
    REDUCTION,
    AxisFunction,
    call_operands,
    method_name,
)
from ..graph.template import fill
from ..graph.types import TensorType, TokenType


@dataclass(frozen=True)
class Ax:
    """The abstract value of one graph value (see the module docstring)."""

    kind: str
    pos: int = 0  # ALIGNED: which axis runs along the split axis
    cause: Node | None = None  # MIXED: the node that mixed positions
    ndim: int = 0  # of the value, where a rule needs it (index entries)

    def __eq__(self, other: object) -> bool:  # MIXED values are alike whatever the cause
        return isinstance(other, Ax) and self.kind == other.kind and self.pos == other.pos

    def __hash__(self) -> int:
        return hash((self.kind, self.pos))


FREE, EXTENT, INDEX, ROW, ROWS = Ax("free"), Ax("extent"), Ax("index"), Ax("row"), Ax("rows")


def aligned(pos: int) -> Ax:
    return Ax("aligned", pos)


def mixed(cause: Node | None) -> Ax:
    return Ax("mixed", 0, cause)


_SAME_SHAPE = frozenset(
    {
        "astype",
        "copy",
        "clip",
        "round",
        "around",
        "conj",
        "conjugate",
        "where",
        "isclose",
        "nan_to_num",
        "zeros_like",
        "ones_like",
        "empty_like",
        "full_like",
        "real",
        "imag",
        "fabs",
    }
)
_CREATION = frozenset({"zeros", "ones", "empty", "full"})
_PASS_THROUGH = frozenset({runtime.retype, runtime.coerce, runtime.astype, bool, int, float})


def follow_axis(graph: Graph, axes: dict[int, int]) -> list[Ax]:
    """The abstract value of each result of ``graph`` (the effect token left out) when
    parameter ``p`` is split along its axis ``axes[p]`` and every other one is whole."""
    walk = _Walk()
    for i, param in enumerate(graph.body.params):
        walk.env[param] = aligned(axes[i]) if i in axes else FREE
    return walk.region(graph.body)[:-1]


def _ndim(node: Node) -> int:
    return node.type.ndim if isinstance(node.type, TensorType) else 0


def _join(a: Ax, b: Ax, at: Node) -> Ax:
    if a == b:
        return a
    if a.kind == "mixed" or b.kind == "mixed":
        return a if a.kind == "mixed" else b
    if {a.kind, b.kind} == {"free", "row"}:
        return ROW
    return mixed(at)


class _Walk:
    def __init__(self) -> None:
        self.env: dict[Node, Any] = {}

    def region(self, region: Region) -> list[Any]:
        for node in region.nodes:
            self.env[node] = self.node(node)
        return [self.env[r] for r in region.results]

    def node(self, node: Node) -> Any:
        if node.op is Op.CONST or (node.op is Op.CALL and isinstance(node.type, TokenType)):
            return FREE
        if node.op is Op.PROJ:
            value = self.env[node.inputs[0]]
            return value[node.arg] if isinstance(value, list) else value
        if node.op is Op.COND:
            return self.cond(node)
        if node.op is Op.WHILE:
            return self.loop(node)
        values = [self.env[i] for i in node.inputs]
        for v in values:
            if not isinstance(v, Ax):
                return mixed(node)
            if v.kind == "mixed":
                return v
        values = [replace(v, ndim=_ndim(i)) for v, i in zip(values, node.inputs)]
        if is_effect(node.arg.fn):
            return FREE
        return _call(node, values)

    def cond(self, node: Node) -> list[Ax]:
        pred = self.env[node.inputs[0]]
        branches = []
        for region in node.regions():
            for param, operand in zip(region.params, node.inputs[1:]):
                self.env[param] = self.env[operand]
            branches.append(self.region(region))
        out = [_join(a, b, node) for a, b in zip(*branches)]
        if pred == FREE:
            return out
        if pred == ROW:
            return [_join(v, ROW, node) for v in out]
        return [pred if pred.kind == "mixed" else mixed(node)] * len(out)

    def loop(self, node: Node) -> list[Ax]:
        test, body = node.arg
        init = [self.env[i] for i in node.inputs]
        counter = self._counter(node, init)
        tokens = {k for k, r in enumerate(body.results) if isinstance(r.type, TokenType)}
        state = list(init)
        if counter is not None:
            state[counter] = INDEX
        for _ in range(8):
            # in a loop over rows, a row's value carried to the next row mixes rows
            inside = (
                state
                if counter is None
                else [mixed(node) if v in (ROW, ROWS) else v for v in state]
            )
            for params in (test.params, body.params):
                for param, value in zip(params, inside):
                    self.env[param] = value
            proceed = self.region(test)[0]
            new = self.region(body)
            if counter is not None:
                new[counter] = INDEX
                # a list appended to once per row: ALIGNED after the loop
                new = [FREE if v == ROWS and s == FREE else v for v, s in zip(new, state)]
            elif proceed == ROW:  # a row decides how often the loop runs
                new = [_join(v, ROW, node) for v in new]
            elif proceed != FREE:
                return [proceed if proceed.kind == "mixed" else mixed(node)] * len(init)
            new = [
                FREE if k in tokens else _join(s, v, node)
                for k, (s, v) in enumerate(zip(state, new))
            ]
            if new == state:
                break
            state = new
        else:
            return [mixed(node)] * len(init)
        if counter is None:
            return state
        body_out = self.region(body)
        out = []
        for k, value in enumerate(state):
            if k == counter:
                out.append(mixed(node))
            elif value == FREE and body_out[k] == ROWS:
                out.append(aligned(0))
            elif value in (ROW, ROWS):
                out.append(mixed(node))  # carried from row to row: needs all of them
            else:
                out.append(value)
        return out

    def _counter(self, node: Node, init: list[Ax]) -> int | None:
        """The state slot counting 0, 1, ... up to the split axis's length, if any."""
        test, body = node.arg
        cond = test.results[0]
        if cond.op is Op.CALL and cond.arg.fn is bool:
            cond = cond.inputs[0]
        if not (
            cond.op is Op.CALL
            and cond.arg.fn is operator.lt
            and len(cond.inputs) == 2
            and cond.inputs[0] in test.params
        ):
            return None
        bound = self.env.get(cond.inputs[1])
        slot = test.params.index(cond.inputs[0])
        start, step = node.inputs[slot], body.results[slot]
        if bound != EXTENT or not (
            start.op is Op.CONST and type(start.arg) is int and start.arg == 0
        ):
            return None
        if not (
            step.op is Op.CALL
            and step.arg.fn is operator.add
            and step.inputs == (body.params[slot],)
            and step.arg.args[1:] == (1,)
        ):
            return None
        return slot


def _call(node: Node, values: list[Ax]) -> Ax:
    call = node.arg
    fn = call.fn
    args, kwargs = call_operands(call, fill(call.args, values)), fill(call.kwargs, values)
    name = method_name(call) or getattr(fn, "__name__", "")
    kinds = {v.kind for v in values}
    if kinds <= {"free", "row"}:
        if fn is runtime.list_append and values[0] == FREE and values[1] == ROW:
            return ROWS
        return ROW if "row" in kinds else FREE
    rule = _RULES.get(fn)
    if rule is not None:
        return rule(node, args, kwargs)
    if is_elementwise(fn) or fn in _PASS_THROUGH or name in _SAME_SHAPE:
        return _elementwise(node, values)
    if name in AXIS_FUNCTIONS:  # (by name: methods and functions alike)
        return _along_axis(node, AXIS_FUNCTIONS[name], args, kwargs)
    if name in _CREATION and call.args and not isinstance(args[0], Ax | tuple):
        return mixed(node)
    if name in _CREATION:
        return _creation(node, args[0])
    if name == "transpose" and len(args) == 1 and not kwargs and args[0].kind == "aligned":
        return aligned(_ndim(node.inputs[0]) - 1 - args[0].pos)
    if name in ("ravel", "flatten") and args[0].kind == "aligned" and _ndim(node.inputs[0]) == 1:
        return aligned(0)
    return mixed(node)


def _elementwise(node: Node, values: list[Ax]) -> Ax:
    """Broadcasting: an input's axis ``k`` is result axis ``k + ndim(result) - ndim``."""
    out = _ndim(node)
    positions = set()
    for value, source in zip(values, node.inputs):
        if value.kind == "aligned":
            positions.add(value.pos + out - _ndim(source))
        elif value != FREE:
            return mixed(node)  # a row with whole blocks, or a length used as a number
    return aligned(positions.pop()) if len(positions) == 1 else mixed(node)


def _axes(axis: Any, ndim: int) -> set[int] | None:
    if isinstance(axis, int | np.integer):
        return {int(axis) % max(ndim, 1)}
    if isinstance(axis, tuple) and all(isinstance(a, int | np.integer) for a in axis):
        return {int(a) % max(ndim, 1) for a in axis}
    return None


def _along_axis(node: Node, facts: AxisFunction, args: tuple, kwargs: dict) -> Ax:
    x = args[0]
    if not isinstance(x, Ax) or x.kind != "aligned" or any(isinstance(a, Ax) for a in args[1:]):
        return mixed(node)
    axis = kwargs.get("axis", args[1] if len(args) > 1 else facts.default_axis)
    axes = _axes(axis, _ndim(node.inputs[0]))
    if axes is None or x.pos in axes:
        return mixed(node)
    if facts.kind != REDUCTION or kwargs.get("keepdims"):
        return x
    return aligned(x.pos - sum(a < x.pos for a in axes))


def _creation(node: Node, shape: Any) -> Ax:
    items = shape if isinstance(shape, tuple) else (shape,)
    found = [k for k, v in enumerate(items) if v == EXTENT]
    others_free = all(
        not isinstance(v, Ax) or v == FREE for k, v in enumerate(items) if k not in found
    )
    return aligned(found[0]) if len(found) == 1 and others_free else mixed(node)


def _index_entries(index: Any, ndim: int) -> list[Any] | None:
    """The entries of an index, one per indexed axis (None: a new axis), Ellipsis
    expanded; None when it is not basic indexing along the axes it touches."""
    entries = list(index) if isinstance(index, tuple) else [index]
    if sum(e is Ellipsis for e in entries) > 1:
        return None
    if Ellipsis in entries:
        at = entries.index(Ellipsis)
        used = sum(e is not None for e in entries) - 1
        entries[at : at + 1] = [slice(None)] * (ndim - used)
    used = sum(e is not None for e in entries)
    return entries + [slice(None)] * (ndim - used) if used <= ndim else None


def _is_scalar_index(entry: Any) -> bool:
    return isinstance(entry, int | np.integer) or (
        isinstance(entry, Ax) and entry.ndim == 0 and entry.kind in ("free", "row", "index")
    )


def _getitem(node: Node, args: tuple, kwargs: dict) -> Ax:
    x, index = args
    source = node.inputs[0]
    if x.kind == "free":  # a table looked up at aligned positions: x[labels]
        return index if isinstance(index, Ax) and index.kind == "aligned" else mixed(node)
    if x.kind == "row":
        return _row_index(node, index)
    if x.kind != "aligned":
        return mixed(node)
    entries = _index_entries(index, _ndim(source))
    if entries is None:
        return mixed(node)
    axis, out_axis, result = 0, 0, None
    for entry in entries:
        if entry is None:
            out_axis += 1
            continue
        if axis == x.pos:
            if entry == INDEX:
                result = ROW
            elif entry == slice(None):
                result = aligned(out_axis)
            else:
                return mixed(node)
        elif not _whole_free(entry):
            return mixed(node)
        if not _is_scalar_index(entry):
            out_axis += 1
        axis += 1
    if result == ROW:  # the other entries must pick within the row
        return ROW
    return result if result is not None else mixed(node)


def _whole_free(entry: Any) -> bool:
    """An index entry that is the same in every block (no array index)."""
    if isinstance(entry, slice):
        return all(_whole_free(p) for p in (entry.start, entry.stop, entry.step))
    if isinstance(entry, Ax):
        return entry == FREE and entry.ndim == 0
    return entry is None or isinstance(entry, int | np.integer)


def _row_index(node: Node, index: Any) -> Ax:
    entries = list(index) if isinstance(index, tuple) else [index]
    for entry in entries:
        parts = (entry.start, entry.stop, entry.step) if isinstance(entry, slice) else (entry,)
        if any(isinstance(p, Ax) and p not in (FREE, ROW) for p in parts):
            return mixed(node)
    return ROW


def _setitem(node: Node, args: tuple, kwargs: dict) -> Ax:
    x, index, value = args
    if x.kind in ("free", "row"):
        flat = [index] if not isinstance(index, tuple) else list(index)
        if all(not isinstance(v, Ax) or v in (FREE, ROW) for v in [*flat, value]):
            return ROW if ROW in [x, value, *flat] else FREE
        return mixed(node)
    if x.kind != "aligned":
        return mixed(node)
    if isinstance(index, Ax) and index.kind == "aligned":  # out[mask] = v, mask aligned
        ok = index == x and value == FREE
        return x if ok else mixed(node)
    entries = _index_entries(index, _ndim(node.inputs[0]))
    if entries is None or None in entries:
        return mixed(node)
    target = entries[x.pos]
    others = entries[: x.pos] + entries[x.pos + 1 :]
    if not all(_whole_free(e) or e == ROW for e in others):
        return mixed(node)
    if target == INDEX and value in (FREE, ROW):
        return x  # out[i] = a value of row i
    if target == slice(None) and value == FREE:
        return x
    if target == slice(None) and isinstance(value, Ax) and value.kind == "aligned":
        view_pos = x.pos - sum(_is_scalar_index(e) for e in entries[: x.pos])
        view_ndim = sum(not _is_scalar_index(e) for e in entries)
        if value.pos + view_ndim - _ndim(node.inputs[-1]) == view_pos:
            return x
    return mixed(node)


def _shape_dim(node: Node, args: tuple, kwargs: dict) -> Ax:
    x, axis = args[0], (args[1] if len(args) > 1 else 0)
    if x.kind != "aligned" or isinstance(axis, Ax):
        return mixed(node)
    return EXTENT if int(axis) % _ndim(node.inputs[0]) == x.pos else FREE


def _range_len(node: Node, args: tuple, kwargs: dict) -> Ax:
    start, stop, step = args
    if stop == EXTENT and type(start) is int and start == 0 and type(step) is int and step == 1:
        return EXTENT
    return mixed(node)


def _matmul(node: Node, args: tuple, kwargs: dict) -> Ax:
    a, b = args[:2]
    na, nb = _ndim(node.inputs[0]), _ndim(node.inputs[1])
    if a.kind == "aligned" and b == FREE and na >= 2 and a.pos <= na - 2:
        return aligned(a.pos + _ndim(node) - na)
    if a == FREE and b.kind == "aligned" and nb >= 2 and b.pos == nb - 1:
        return aligned(_ndim(node) - 1)
    return mixed(node)


def _list_to_array(node: Node, args: tuple, kwargs: dict) -> Ax:
    return args[0] if args[0] == aligned(0) else mixed(node)


def _list_len(node: Node, args: tuple, kwargs: dict) -> Ax:
    return EXTENT if args[0] == aligned(0) else mixed(node)


_RULES = {
    operator.getitem: _getitem,
    runtime.setitem: _setitem,
    runtime.shape_dim: _shape_dim,
    len: lambda node, args, kwargs: _shape_dim(node, (args[0], 0), kwargs),
    runtime.range_len: _range_len,
    operator.matmul: _matmul,
    np.matmul: _matmul,
    np.dot: _matmul,
    runtime.list_to_array: _list_to_array,
    runtime.list_len: _list_len,
}
