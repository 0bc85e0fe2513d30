"""Arrays written under staged control flow through a name the statement does not assign.

``tmp = b; tmp -= 1`` inside a graph loop writes into ``b``, an array from outside the
loop that converted code does not pass as a loop variable (``b`` is never assigned).  A
write into such an outer array is noted where it happens (``note_write``); the loop is
then traced again carrying the array as hidden state, and an ``if`` returns its value
from each branch, so after the statement the array holds what eager code leaves in it.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors.exceptions import StagingError
from ..errors.origins import user_location
from . import runtime
from .ir import Node, Op
from .traced import call_method
from .tracing import RegionBuilder, Traced, current, is_staged, wrap

Writes = dict[Traced, Node]  # outer array handle -> its node before the statement


# NumPy functions whose result may be a view of (or be) their first argument, other than
# basic slicing (which graph mode follows: ``Traced.view``).
VIEW_FUNCTIONS = frozenset({
    np.transpose, np.reshape, np.ravel, np.squeeze, np.expand_dims, np.swapaxes,
    np.moveaxis, np.broadcast_to, np.real, np.imag, np.asarray, np.asanyarray, np.diagonal,
    np.flip, np.fliplr, np.flipud, np.rot90, np.atleast_1d, np.atleast_2d, np.atleast_3d,
    np.ascontiguousarray, np.asfortranarray, np.require,
})
_FOLLOWED = {runtime.setitem, operator.getitem}


def check_view_write(handle: Traced) -> None:
    """Refuse a write into an array that may be a view of an argument made other than by
    basic slicing (``x.T``, ``x.reshape(...)``): eagerly it changes the caller's array,
    which graph mode cannot follow."""
    if handle.view is not None:
        return
    node, maker = handle.node, None
    while node.op is Op.CALL and node.inputs and (
            node.arg.fn in VIEW_FUNCTIONS or node.arg.fn in _FOLLOWED or _method_view(node)):
        if node.arg.fn not in _FOLLOWED and maker is None:
            maker = node
        node = node.inputs[0]
    if maker is None or node.op is not Op.PARAM or current().owner_of(node) is None or \
            current().owner_of(node).parent is not None:
        return
    made = f" (made at line {maker.loc.lineno})" if maker.loc else ""
    raise StagingError(
        f"this writes into an array that is a {maker.label()} view of an argument{made}; "
        "eagerly the write would change the caller's array through the view, and graph "
        "mode follows writes through basic slices only (x[1:], x[:, 0]). Write through the "
        "argument or a slice of it, make the view a copy (.copy()), or call .eager(...) "
        "to run the function as written", user_location())


def _method_view(node: Node) -> bool:
    return node.arg.fn is call_method and node.arg.args[1:2] in (("ravel",), ("diagonal",))


def inherit_arguments(handles: Sequence[Any], values: Sequence[Any]) -> None:
    """A branch's or loop body's own handle on an argument array is one too (an in-place
    operator on it then writes into the argument at that point, as eagerly)."""
    for handle, value in zip(handles, values):
        if isinstance(handle, Traced) and isinstance(value, Traced) and value.argument:
            handle.argument = True


def note_write(handle: Traced) -> None:
    """Record, before an in-place update, that it writes an array from outside the
    staged region being traced."""
    if not is_staged():
        return
    builder = current()
    if builder.owner_of(handle.node) is not builder:
        builder.__dict__.setdefault("outer_writes", {}).setdefault(handle, handle.node)


def take_writes(builder: RegionBuilder, own: Sequence[Any], outputs: list[Any]) -> Writes:
    """The outer arrays the region wrote (not its own handles ``own``), each put back to
    its value before the region; outputs naming one hold its value at the region's end.
    Returns handle -> final node."""
    noted: Writes = builder.__dict__.pop("outer_writes", {})
    own_ids = {id(v) for v in own}
    finals: Writes = {}
    for handle, before in noted.items():
        if id(handle) in own_ids:
            continue
        finals[handle] = handle.node
        for k, out in enumerate(outputs):
            if out is handle:
                outputs[k] = Traced(handle.node)
        handle.node = before
    return finals


def merge_branches(then: Writes, other: Writes) -> list[tuple[Traced, Node, Node]]:
    """(array, value after the then branch, value after the else branch) per outer
    array either branch wrote."""
    out = []
    for handle in dict.fromkeys([*then, *other]):
        a, b = then.get(handle, handle.node), other.get(handle, handle.node)
        if a.type != b.type:
            raise StagingError(f"an array written in one branch of this if changes type "
                               f"({a.type} / {b.type})", user_location())
        out.append((handle, a, b))
    return out


def set_after(handles: Sequence[Traced], nodes: Sequence[Node]) -> None:
    """The arrays' values after the statement (noted again if they are outer to the
    region the statement is in)."""
    for handle, node in zip(handles, nodes):
        note_write(handle)
        handle.node = node


class CarryArrays(Exception):
    """A loop body wrote outer arrays: trace the loop again carrying them."""

    def __init__(self, handles: list[Traced]) -> None:
        super().__init__()
        self.handles = handles


def check_loop_body(builder: RegionBuilder, own: Sequence[Any], outputs: list[Any]) -> None:
    """Raise CarryArrays if the body just traced wrote arrays from outside the loop."""
    finals = take_writes(builder, own, outputs)
    if finals:
        raise CarryArrays(list(finals))


def with_outer_arrays(trace_loop: Callable, test: Callable, body: Callable,
                      names: Sequence[str], init: Sequence[Any], *rest: Any) -> list:
    """Trace a loop with ``trace_loop``; the outer arrays its body writes become hidden
    loop variables (traced again until none is missed)."""
    handles: list[Traced] = []
    while True:
        try:
            result = trace_loop(_reading(test, handles, len(names), body=False),
                                _reading(body, handles, len(names), body=True),
                                (*names, *(f"<array {k}>" for k in range(len(handles)))),
                                (*init, *handles), *rest)
        except CarryArrays as more:
            handles += [h for h in more.handles if h not in handles]
            continue
        set_after(handles, [v.node for v in result[len(names):]])
        return result[:len(names)]


def _reading(fn: Callable, handles: list[Traced], count: int, body: bool) -> Callable:
    """fn (a loop's condition or body) over the loop variables, with the hidden ones
    standing in for their arrays while it is traced; a body returns them too."""
    if not handles:
        return fn

    def traced(*args: Any) -> Any:
        before = [h.node for h in handles]
        for handle, value in zip(handles, args[count:]):
            handle.node = value.node
        try:
            out = fn(*args[:count])
            if not body:
                return out
            out = [Traced(o.node) if any(o is h for h in handles) else o for o in out]
            return (*out, *(wrap(h.node) for h in handles))
        finally:
            for handle, node in zip(handles, before):
                handle.node = node

    return traced
