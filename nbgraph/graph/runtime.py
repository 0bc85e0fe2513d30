"""Functions that graph CALL nodes apply at run time beyond NumPy's own.

Each is pure (returns a new value) except the effects, which take and return the effect
token so their order is part of the dataflow.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors.exceptions import BreakpointReached, LoopTypeError
from .template import Text


class ConsList:
    """An immutable list that appends in O(1): the run-time value of a graph list."""

    __slots__ = ("head", "items", "length", "tail")

    def __init__(self, tail: ConsList | None, head: Any, length: int) -> None:
        self.tail = tail
        self.head = head
        self.length = length
        self.items: list[Any] | None = None  # to_list(), kept for indexing

    def __repr__(self) -> str:  # printed and formatted as the Python list it stands for
        return repr(self.to_list())

    def to_list(self) -> list[Any]:
        if self.items is not None:
            return list(self.items)
        out: list[Any] = []
        node: ConsList | None = self
        while node is not None and node.length:
            out.append(node.head)
            node = node.tail
        out.reverse()
        return out


EMPTY_LIST = ConsList(None, None, 0)


def list_new() -> ConsList:
    """An empty graph list."""
    return EMPTY_LIST


def list_append(lst: ConsList, item: Any) -> ConsList:
    """lst + [item], sharing lst."""
    return ConsList(lst, item, lst.length + 1)


def list_len(lst: ConsList) -> int:
    """len(lst)."""
    return lst.length


def list_getitem(lst: ConsList, index: Any) -> Any:
    """lst[index] (Python list indexing rules, negative indices included); the items are
    listed once per list, so reading every item (a loop's saved states) is linear."""
    if lst.items is None:
        lst.items = lst.to_list()
    return lst.items[index]


def host_list(lst: Any) -> list[Any]:
    """A graph list's items as a Python list (a ConsList, or a list already)."""
    return lst.to_list() if isinstance(lst, ConsList) else list(lst)


def list_extremum(fn: Any, lst: ConsList) -> Any:
    """max(lst) / min(lst) of a graph list of numbers, as Python picks: the first item
    no later one beats (so a NaN wins only where it comes first)."""
    return fn(host_list(lst))


def list_to_array(
    lst: ConsList,
    how: Any,
    kwargs: dict[str, Any],
    empty: np.ndarray | None = None,
    check: bool = False,
) -> np.ndarray:
    """np.array(lst) / np.stack(lst) / ... of a graph list.

    ``empty`` is the result for a list that stays empty under np.array: NumPy would pick
    float64 of shape (0,), a graph keeps the items' dtype and rank so the result has one
    type on all paths.  Where that differs from eager's and the graph uses the array
    (``check``; a returned one gets eager's back), an empty list is an error, not a
    silently different array.
    """
    items = host_list(lst)  # (or a compiled list)
    if not items and empty is not None and how in (np.array, np.asarray):
        if check:
            raise LoopTypeError(empty_list_message(how, kwargs, empty))
        return empty.copy()
    return how(items, **kwargs)


def empty_list_message(how: Any, kwargs: dict[str, Any], empty: np.ndarray) -> str:
    """Why np.array of a graph list that stays empty cannot be eager's array here."""
    eager = how([], **kwargs)
    return (
        f"np.{how.__name__}() of a list that stays empty in this run: eagerly that is a "
        f"{eager.dtype} array of shape {eager.shape}, but the graph gives this array the "
        f"type of the list's items on every run ({empty.ndim}-d {empty.dtype}). "
        "Give the empty case that type: np.array(lst, dtype=...) for a list of numbers; "
        "for a list of arrays, convert it only where it has items (if lst: ...); or "
        "call the function's .eager(...) to run it as plain Python"
    )


def make_tuple(*items: Any) -> tuple:
    """A tuple of values carried as one loop variable."""
    return items


def setitem(x: Any, index: Any, value: Any) -> np.ndarray:
    """Functional ``x[index] = value``: a copy of x with the update."""
    out = np.array(x, copy=True)
    out[index] = value
    return out


# The functional updates (a new value from an old one with one change) that compiled
# code may run in place, writing into the old value's memory.
UPDATES = (setitem, list_append)


def add_at(x: Any, index: Any, values: Any) -> np.ndarray:
    """Functional ``np.add.at(x, index, values)``: a copy of x with values added at
    index, repeated indices adding up (the gradient of integer-array indexing)."""
    out = np.array(x, copy=True)
    np.add.at(out, index, values)
    return out


def shape_dim(x: Any, axis: int) -> int:
    """x.shape[axis] as a Python int."""
    return np.shape(x)[axis]


def astype(x: Any, dtype: Any, copy: bool = True) -> Any:
    """x.astype(dtype), also for Python scalars (which eager code would not call it on)."""
    return x.astype(dtype, copy=copy)


def to_text(value: Any) -> str:
    """str(value) for print and messages."""
    return value.render() if isinstance(value, Text) else str(value)


def print_effect(
    token: None, *values: Any, sep: Any = " ", end: Any = "\n", types: tuple = ()
) -> None:
    """print(*values, sep=sep, end=end), in the order the effect token gives.  ``types``:
    per printed value, the other types it may have eagerly; a flag for each follows the
    printed values, and the first true one gives the value's type (see Graph.flavors)."""
    if types:
        flags = iter(values[len(types) :])
        values = tuple(
            in_eager_type(v, [(next(flags), t) for t in ts]) for v, ts in zip(values, types)
        )
    print(*(to_text(v) for v in values), sep=sep, end=end)


def in_eager_type(value: Any, found: Sequence[tuple[Any, Any]]) -> Any:
    """value in the type of the first (flag, type) pair whose flag is true."""
    for flag, t in found:
        if flag:
            return coerce(value, t.dtype, t.flavor)
    return value


def unbound_effect(token: None, unbound: Any, name: str) -> None:
    """Raise eager code's error for a use of variable ``name`` if it has no value."""
    if unbound:
        raise UnboundLocalError(
            f"cannot access local variable '{name}' where it is not associated with a value"
        )


def refusal_effect(token: None, when: Any, message: str) -> None:
    """Refuse a run on which a value's type would depend on the run's values (Python's
    ``2 ** k`` is a float where k < 0): eager's value has a type the graph has not."""
    if when:
        raise LoopTypeError(message)


def breakpoint_effect(token: None) -> None:
    """``nbgraph.breakpoint()`` reached while the graph runs (see ``BreakpointReached``)."""
    raise BreakpointReached()


def assert_effect(token: None, cond: Any, *message: Any) -> None:
    """assert cond, message."""
    if not cond:
        if message:
            msg = message[0]
            raise AssertionError(msg.render() if isinstance(msg, Text) else msg)
        raise AssertionError


def raise_effect(token: None, exc: Any, *args: Any) -> None:
    """raise exc_type(*args), its message formatted now; or raise a fresh copy of an
    exception the user made while tracing (its ``__init__`` is not run again: it may
    have formatted its arguments already)."""
    if isinstance(exc, BaseException):
        fresh = type(exc).__new__(type(exc), *exc.args)
        fresh.__dict__.update(vars(exc))
        fresh.args = exc.args
        raise fresh
    raise exc(*(a.render() if isinstance(a, Text) else a for a in args))


_PY_TYPES = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def retype(x: Any, flavor: str) -> Any:
    """x unchanged: a Python scalar and a NumPy scalar of one dtype are one graph type,
    and each path keeps the kind of scalar eager code would have."""
    return x


def coerce(x: Any, dtype: np.dtype, flavor: str) -> Any:
    """x converted to ``dtype`` with the given flavor ('python', 'scalar', 'array')."""
    if flavor == "python":
        return _PY_TYPES[dtype.kind](x)
    if flavor == "scalar":
        return dtype.type(x)
    return np.asarray(x, dtype=dtype)


def range_len(start: Any, stop: Any, step: Any) -> int:
    """len(range(start, stop, step)) for run-time bounds (ValueError for step 0)."""
    return len(range(int(start), int(stop), int(step)))


def extremum(fn: Any, *values: Any) -> Any:
    """max/min of numbers, as the type all of them promote to (so the result has one
    type whichever value wins)."""
    promoted = sum(values[1:], values[0] * 0)
    result = fn(*values)
    if isinstance(promoted, np.generic):
        return promoted.dtype.type(result)
    return type(promoted)(result)


def call_method(x: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """x.name(*args, **kwargs): array methods as graph calls."""
    return getattr(x, name)(*args, **kwargs)


def sum_to(g, like):
    """``g`` summed over the axes where ``like`` (of g's rank) has length 1: the gradient
    of an operand that was broadcast along them."""
    if g.shape == like.shape:
        return g
    out = np.zeros(like.size, g.dtype)
    flat = np.ascontiguousarray(g).ravel()
    for i in range(flat.size):
        rest = i
        target = 0
        stride = 1
        for axis in range(g.ndim - 1, -1, -1):
            index = rest % g.shape[axis]
            rest //= g.shape[axis]
            if like.shape[axis] != 1:
                target += index * stride
            stride *= like.shape[axis]
        out[target] += flat[i]
    return out.reshape(like.shape)


@functools.cache
def compiled_sum_to() -> Any:
    """``sum_to`` compiled (what graphs call)."""
    from numba import njit

    return njit(cache=True)(sum_to)
