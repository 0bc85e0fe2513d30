"""Python containers under staged control flow.

Both branches of a graph ``if`` are traced, one after the other, and a graph loop's body
is traced more than once, so each trace gets private copies of the containers it may
change (lists, dicts, sets, tuples, namedtuples, dataclass instances and concrete
arrays): a change made while tracing one path is not seen by the other, and the values
the paths leave are merged (or refused) afterwards, as for plain variables.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..graph.pytree import field_names, is_dataclass_instance, is_namedtuple
from ..graph.types import ARRAY
from .traced import Traced, TracedList
from .tracing import copied_argument


def fresh_state(values: Sequence[Any]) -> list[Any]:
    """Private copies of a statement's variables for one traced path (two names for one
    container get one copy, so they stay one container)."""
    memo: dict[int, Any] = {}
    return [fresh(v, memo) for v in values]


def fresh(value: Any, memo: dict[int, Any] | None = None) -> Any:
    """A private copy of value for one branch/body (in-place updates stay local)."""
    if isinstance(value, Traced):
        return Traced(value.node, value.sliced)
    if isinstance(value, TracedList):
        return TracedList(value.node)
    memo = {} if memo is None else memo
    if id(value) in memo:
        return memo[id(value)]
    out = _copy(value, memo)
    memo[id(value)] = out
    if out is not value:
        copied_argument(value, out)
    return out


def _item(value: Any, memo: dict[int, Any]) -> Any:
    """A container's item in the copy: a graph array stays itself (a write through the
    item reaches the array, and so every other name for it, as eagerly: the statement
    notes it as a write into an outer array); anything else is copied."""
    if isinstance(value, Traced) and value.type.flavor == ARRAY:
        return value
    return fresh(value, memo)


def _copy(value: Any, memo: dict[int, Any]) -> Any:
    kind = type(value)
    if kind is list:
        return [_item(v, memo) for v in value]
    if kind is dict:
        return {k: _item(v, memo) for k, v in value.items()}
    if kind is set:
        return set(value)
    if kind is tuple:
        return tuple(_item(v, memo) for v in value)
    if is_namedtuple(value):
        return kind(*(_item(v, memo) for v in value))
    if is_dataclass_instance(value):
        out = copy.copy(value)
        for field in dataclasses.fields(value):
            object.__setattr__(out, field.name, _item(getattr(value, field.name), memo))
        return out
    if kind is np.ndarray:
        return value.copy()
    return value


def with_fields(value: Any, fields: dict[str, Any]) -> Any:
    """A copy of the dataclass instance ``value`` with ``fields`` replaced (frozen ones
    too: this rebuilds a value, it does not change the user's)."""
    out = copy.copy(value)
    for name, item in fields.items():
        object.__setattr__(out, name, item)
    return out


def structure(value: Any) -> tuple[Any, tuple, Any] | None:
    """(key, items, rebuild) for a list, dict, namedtuple or dataclass instance: the items
    in order, a key that two values of one structure share (type, and length, keys or
    fields), and the function that rebuilds such a value from new items; else None."""
    kind = type(value)
    if kind is list:
        return (list, len(value)), tuple(value), list
    if kind is dict:
        keys = tuple(value)
        return (dict, keys), tuple(value.values()), lambda items: dict(zip(keys, items))
    if is_namedtuple(value):
        return (kind,), tuple(value), lambda items: kind(*items)
    if is_dataclass_instance(value):
        names = field_names(value)
        return (
            (kind, names),
            tuple(getattr(value, n) for n in names),
            lambda items: with_fields(value, dict(zip(names, items))),
        )
    return None
