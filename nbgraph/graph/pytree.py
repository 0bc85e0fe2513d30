"""Flattening nested Python arguments and results into graph leaves and back.

Numbers and arrays are leaves (graph parameters or results); tuples, lists, dicts,
namedtuples and dataclass instances are structure; anything else is a static value kept
in the tree.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .types import type_of


def is_namedtuple(value: Any) -> bool:
    """Whether value is an instance of a namedtuple class."""
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def is_dataclass_instance(value: Any) -> bool:
    """Whether value is an instance (not the class) of a dataclass."""
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def field_names(value: Any) -> tuple[str, ...]:
    """The fields of a dataclass instance, in order."""
    return tuple(f.name for f in dataclasses.fields(value))


class Static:
    """A non-numeric value carried in the tree as is (also part of the trace key)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Static({self.value!r})"


class Given:
    """A container of the call's arguments returned as it came: the caller's own object,
    found by its place (``path``) in the call's ``(args, kwargs)``, as eagerly."""

    __slots__ = ("path",)

    def __init__(self, path: tuple) -> None:
        self.path = path

    def find(self, given: Any) -> Any:
        for step in self.path:
            given = given[step]
        return given

    def __repr__(self) -> str:
        return f"Given{self.path!r}"


LEAF = "leaf"


def _is_container(value: Any) -> bool:
    return type(value) in (tuple, list, dict) or is_namedtuple(value)


def container_paths(call: tuple[tuple, dict]) -> dict[int, tuple]:
    """The place in ``call`` (``(args, kwargs)``) of every tuple, list and dict among
    the arguments, by identity: what ``flatten(..., given=...)`` recognises."""
    paths: dict[int, tuple] = {}

    def walk(v: Any, path: tuple) -> None:
        if not _is_container(v):
            return
        paths.setdefault(id(v), path)
        for key, item in v.items() if type(v) is dict else enumerate(v):
            walk(item, (*path, key))

    for part, values in enumerate(call):
        for key, item in values.items() if type(values) is dict else enumerate(values):
            walk(item, (part, key))
    return paths


def flatten(
    value: Any, is_leaf: Any = None, given: dict[int, tuple] | None = None
) -> tuple[list[Any], Any]:
    """(leaves, tree) for a nested value; a container of ``given`` (``container_paths``)
    is kept as a reference to the caller's object."""
    leaves: list[Any] = []
    leaf_test = is_leaf or (lambda v: type_of(v) is not None)

    def walk(v: Any) -> Any:
        if leaf_test(v):
            leaves.append(v)
            return LEAF
        if given and id(v) in given and _is_container(v):
            return Given(given[id(v)])
        if type(v) in (tuple, list) or is_namedtuple(v):
            return (type(v), tuple(walk(x) for x in v))
        if type(v) is dict:
            return (dict, tuple(v), tuple(walk(x) for x in v.values()))
        if is_dataclass_instance(v):
            names = field_names(v)
            return (type(v), names, tuple(walk(getattr(v, n)) for n in names))
        return Static(v)

    return leaves, walk(value)


def unflatten(tree: Any, leaves: Any, given: Any = None) -> Any:
    """Inverse of flatten (``given``: the call's ``(args, kwargs)``, where the tree
    refers to the caller's containers)."""
    it = iter(leaves)

    def build(t: Any) -> Any:
        if t is LEAF:
            return next(it)
        if isinstance(t, Static):
            return t.value
        if isinstance(t, Given):
            return t.find(given)
        if t[0] is dict:
            return dict(zip(t[1], (build(x) for x in t[2])))
        if len(t) == 3:  # a dataclass instance, rebuilt field by field
            out = object.__new__(t[0])
            for name, x in zip(t[1], t[2]):
                object.__setattr__(out, name, build(x))
            return out
        if t[0] not in (tuple, list):  # a namedtuple
            return t[0](*(build(x) for x in t[1]))
        return t[0](build(x) for x in t[1])

    return build(tree)


def tree_key(tree: Any) -> Any:
    """A hashable key for a tree's structure and static values."""
    if tree is LEAF:
        return LEAF
    if isinstance(tree, Given):
        return ("given", tree.path)
    if isinstance(tree, Static):
        try:
            hash(tree.value)
            return ("static", type(tree.value), tree.value)
        except TypeError:
            return ("static-id", id(tree.value))
    if tree[0] is dict:
        return ("dict", tree[1], tuple(tree_key(x) for x in tree[2]))
    if len(tree) == 3:
        return (tree[0], tree[1], tuple(tree_key(x) for x in tree[2]))
    kind = tree[0] if tree[0] not in (tuple, list) else tree[0].__name__
    return (kind, tuple(tree_key(x) for x in tree[1]))
