"""Arrays written under staged control flow through a name the statement does not assign.

``tmp = b; tmp -= 1`` inside a graph loop writes into ``b``, an array from outside the
loop that converted code does not pass as a loop variable (``b`` is never assigned).  A
write into such an outer array is noted where it happens (``note_write``); the loop is
then traced again carrying the array as hidden state, and an ``if`` returns its value
from each branch, so after the statement the array holds what eager code leaves in it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..errors.exceptions import StagingError
from ..graph.ir import Node
from ..graph.types import ARRAY
from ..source.origins import user_location, user_variables
from .containers import structure
from .traced import Traced, note_write, wrap
from .tracing import RegionBuilder

# id(outer array handle) -> (the handle, its node before the statement); keyed by identity
# because a traced value has no hash (its value is not known while tracing).
Writes = dict[int, tuple[Traced, Node]]


def inherit_arguments(handles: Sequence[Any], values: Sequence[Any]) -> None:
    """A branch's or loop body's own handle on an argument array is one too (an in-place
    operator on it then writes into the argument at that point, as eagerly)."""
    for handle, value in zip(handles, values):
        if isinstance(handle, Traced) and isinstance(value, Traced) and value.argument:
            handle.argument = True


def concrete_aliases(name: str, array: Any) -> list[str]:
    """The user's other variables naming memory of ``array``, an array made from
    constants while tracing (``v = x = np.zeros(3)``, ``row = x[0]``): a graph loop or
    branch carries a variable's value, so its writes would not reach them."""
    return [n for n in concrete_names(array) if n != name]


def concrete_names(array: Any) -> list[str]:
    """The user's variables naming memory of ``array`` if it is an array made from
    constants while tracing, sorted."""
    if not isinstance(array, np.ndarray):
        return []
    return sorted(
        n
        for n, v in user_variables().items()
        if isinstance(v, np.ndarray) and np.may_share_memory(v, array)
    )


def entering_arrays(init: Sequence[Any]) -> dict[int, Traced]:
    """Loop variables that enter a loop naming an array (slot -> the array's handle).
    Other names may name that array too (``first = b``), so while the body keeps the
    variable on it, the handle itself stands in for the variable (``standing_in``)."""
    return {k: v for k, v in enumerate(init) if isinstance(v, Traced) and v.type.flavor == ARRAY}


@contextmanager
def standing_in(args: list[Any], arrays: dict[int, Traced]) -> Iterator[None]:
    """Trace a loop's body or condition over ``args`` with each of ``arrays`` in place of
    its loop variable's fresh handle, holding that variable's value: a write through the
    variable is seen through every other name of the array, and a write through another
    name by the variable, as eagerly.  The handles get their values back afterwards."""
    before: dict[int, tuple[Traced, Node]] = {}
    for k, array in arrays.items():
        if id(array) not in before:
            before[id(array)] = (array, array.node)
            array.node = args[k].node
        args[k] = array
    try:
        yield
    finally:
        for array, node in before.values():
            array.node = node


def take_writes(builder: RegionBuilder, own: Sequence[Any], outputs: list[Any]) -> Writes:
    """The outer arrays the region wrote (not its own handles ``own``), each put back to
    its value before the region; outputs naming one hold its value at the region's end.
    Returns each handle with its final node."""
    noted: Writes = builder.__dict__.pop("outer_writes", {})
    own_ids = {id(v) for v in own}
    finals: Writes = {}
    for key, (handle, before) in noted.items():
        if key in own_ids:
            continue
        finals[key] = (handle, handle.node)
        for k, out in enumerate(outputs):
            if out is handle:
                outputs[k] = Traced(handle.node)
        handle.node = before
    return finals


def merge_branches(then: Writes, other: Writes) -> list[tuple[Traced, Node, Node]]:
    """(array, value after the then branch, value after the else branch) per outer
    array either branch wrote."""
    out = []
    for key in dict.fromkeys([*then, *other]):
        handle = (then.get(key) or other[key])[0]
        a = then[key][1] if key in then else handle.node
        b = other[key][1] if key in other else handle.node
        if a.type != b.type:
            raise StagingError(
                f"an array written in one branch of this if changes type ({a.type} / {b.type})",
                user_location(),
            )
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
        raise CarryArrays([handle for handle, _ in finals.values()])


def with_outer_arrays(
    trace_loop: Callable,
    test: Callable,
    body: Callable,
    names: Sequence[str],
    init: Sequence[Any],
    *rest: Any,
) -> list:
    """Trace a loop with ``trace_loop``; the outer arrays its body writes become hidden
    loop variables (traced again until none is missed)."""
    handles: list[Traced] = []
    items = _Items()
    while True:
        items.find(init, handles)
        try:
            result = trace_loop(
                _reading(test, handles, len(names), items, body=False),
                _reading(body, handles, len(names), items, body=True),
                (*names, *(f"<array {k}>" for k in range(len(handles)))),
                (*init, *handles),
                *rest,
            )
        except CarryArrays as more:
            handles += [h for h in more.handles if not any(h is k for k in handles)]
            if len(handles) > _MOST_OUTER_ARRAYS:  # a new one each time: never settles
                raise StagingError(
                    "a graph loop here writes in place into an array it reaches through a "
                    "dict or list that it changes (as `y['b'] *= 2` on an array `y` "
                    "holds); graph mode cannot follow that array from iteration to "
                    "iteration. Assign the item a new array (`y['b'] = y['b'] * 2`) and "
                    "copy it into the array afterwards if it must change, or call the "
                    "function's .eager(...) to run it as plain Python",
                    user_location(),
                ) from None
            continue
        set_after(handles, [v.node for v in result[len(names) :]])
        return items.put_back(result[: len(names)])


_MOST_OUTER_ARRAYS = 64  # written by one loop from outside it


class _Items:
    """Items of loop variables (a list's, a dict's, ...) that name a hidden array when the
    loop starts and at the end of every iteration: the body reaches that array through
    them (``y[1] *= 2`` writes into it, as eagerly), and after the loop they name it."""

    def __init__(self) -> None:
        self.places: dict[tuple[int, int], Traced] = {}
        self.dropped: set[tuple[int, int]] = set()

    def find(self, init: Sequence[Any], handles: list[Traced]) -> None:
        ids = {id(h): h for h in handles}
        self.places = {
            (k, j): ids[id(item)]
            for k, value in enumerate(init)
            if (found := structure(value)) is not None
            for j, item in enumerate(found[1])
            if id(item) in ids and (k, j) not in self.dropped
        }

    def enter(self, args: Sequence[Any]) -> list[Any]:
        """The loop variables with the arrays in their places."""
        return [self._with(value, k, lambda j, h: h) for k, value in enumerate(args)]

    def leave(self, outputs: Sequence[Any], before: dict[int, Node]) -> list[Any]:
        """The body's outputs with each place's array as its value now; a place the body
        gave another array is traced again without it (refused if the body wrote into
        the array first: which array the item names would depend on the iteration)."""
        for (k, j), handle in self.places.items():
            found = structure(outputs[k]) if k < len(outputs) else None
            if found is None or j >= len(found[1]) or found[1][j] is not handle:
                if handle.node is not before[id(handle)]:
                    raise StagingError(
                        "a graph loop here writes in place into an array through a list or "
                        "dict item and also puts another array in that item; graph mode "
                        "cannot follow which array the item names from iteration to "
                        "iteration. Assign the item a new array each time (`y[1] = y[1] "
                        "* 2`), or call the function's .eager(...) to run it as plain Python",
                        user_location(),
                    )
                self.dropped.add((k, j))
                raise CarryArrays([])
        return [
            self._with(value, k, lambda j, h: Traced(h.node)) for k, value in enumerate(outputs)
        ]

    def put_back(self, result: list[Any]) -> list[Any]:
        """The loop variables after the loop, naming the arrays in their places."""
        return [self._with(value, k, lambda j, h: h) for k, value in enumerate(result)]

    def _with(self, value: Any, k: int, item: Callable[[int, Traced], Any]) -> Any:
        places = [(j, h) for (i, j), h in self.places.items() if i == k]
        found = structure(value) if places else None
        if found is None:
            return value
        items = list(found[1])
        for j, handle in places:
            if j < len(items):
                items[j] = item(j, handle)
        return found[2](tuple(items))


def _reading(
    fn: Callable, handles: list[Traced], count: int, items: _Items, body: bool
) -> Callable:
    """fn (a loop's condition or body) over the loop variables, with the hidden ones
    standing in for their arrays while it is traced (also where items of the loop
    variables name them); a body returns them too."""
    if not handles:
        return fn

    def traced(*args: Any) -> Any:
        before = {id(h): h.node for h in handles}
        for handle, value in zip(handles, args[count:]):
            handle.node = value.node
        entered = {id(h): h.node for h in handles}
        try:
            out = fn(*items.enter(args[:count]))
            if not body:
                return out
            out = items.leave(list(out), entered)
            out = [Traced(o.node) if any(o is h for h in handles) else o for o in out]
            return (*out, *(wrap(h.node) for h in handles))
        finally:
            for handle in handles:
                handle.node = before[id(handle)]

    return traced
