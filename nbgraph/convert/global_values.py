"""Module-level values a traced function reads: the graph holds them as constants, so
it is out of date once the module binds the name to another value or one of them
changes in place (a notebook cell sets ``SCALE = 3``, or appends to a global list)."""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

# Containers and arrays up to this many items are compared by value on every call (a
# change in place is seen); larger ones only by identity.
_SNAPSHOT_LIMIT = 1_000


class GlobalValue:
    """A value found under ``name`` in a module's globals while tracing."""

    __slots__ = ("name", "namespace", "snapshot", "value")

    def __init__(self, value: Any, namespace: dict[str, Any], name: str) -> None:
        self.value = value
        self.namespace = namespace
        self.name = name
        self.snapshot = _snapshot(value)

    def changed(self) -> bool:
        """Whether the graph built with this value is out of date."""
        current = self.namespace.get(self.name, _MISSING)
        if current is not self.value:
            return True
        return self.snapshot is not None and self.snapshot != _snapshot(current)


_MISSING = object()


def _snapshot(value: Any) -> Any:
    """What a change in place would change: an array's bytes, or which objects a list,
    dict or set holds (cheap to take and compare on every call)."""
    if isinstance(value, np.ndarray):
        return value.tobytes() if value.size <= _SNAPSHOT_LIMIT else None
    if type(value) in (list, set) and len(value) <= _SNAPSHOT_LIMIT:
        return tuple(map(id, value))
    if type(value) is dict and len(value) <= _SNAPSHOT_LIMIT:
        return tuple((k, id(v)) for k, v in value.items())
    return None


def global_values(fn: Callable) -> Iterator[GlobalValue]:
    """The data (not functions, classes or modules) fn's code reads from its globals."""
    namespace = getattr(fn, "__globals__", None)
    code = getattr(fn, "__code__", None)
    if namespace is None or code is None:
        return
    for name in sorted(_names(code)):
        if name in namespace and _is_data(namespace[name]):
            yield GlobalValue(namespace[name], namespace, name)


def _names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _is_data(value: Any) -> bool:
    return not (callable(value) or isinstance(value, (types.ModuleType, type))) and (
        isinstance(
            value,
            (
                int,
                float,
                complex,
                str,
                bytes,
                tuple,
                list,
                dict,
                set,
                frozenset,
                np.ndarray,
                np.generic,
            ),
        )
    )
