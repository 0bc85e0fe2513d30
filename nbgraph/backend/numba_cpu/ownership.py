"""Which functional updates may reuse their input's memory.

Graph values are immutable, so ``x[i] = v`` is a new array.  Compiled code updates in
place when nothing can observe the old value: the input is a fresh array (not a
parameter, constant or view) and neither it nor a view of it is used later.  This is
what makes ``out[i] = ...`` in a loop O(1) instead of a copy per iteration.
"""

from __future__ import annotations

import operator

import numpy as np

from ...graph import runtime
from ...graph.ir import Node, Op, Region
from ...graph.traced import call_method
from ...graph.types import ListType, TensorType

UPDATES = (runtime.setitem, runtime.list_append)
_ALIASING = {operator.getitem, np.reshape, np.transpose, np.ravel, np.asarray,
             runtime.coerce, np.squeeze, np.expand_dims, np.broadcast_to, np.real, np.imag,
             call_method, runtime.astype}


def _is_update(node: Node) -> bool:
    return node.op is Op.CALL and node.arg.fn in UPDATES


def _may_alias_input(node: Node) -> bool:
    """Whether the result may share memory with an input (a view, or the input itself)."""
    if node.op is not Op.CALL:
        return True
    return node.arg.fn in _ALIASING or _is_update(node)


class Ownership:
    """In-place decisions for one graph: ``in_place`` holds the update nodes allowed."""

    def __init__(self, body: Region) -> None:
        self.in_place: set[Node] = set()
        self.copy_on_entry: set[tuple[Node, int]] = set()  # (while node, state index)
        self._region(body, fresh=set())

    def _region(self, region: Region, fresh: set[Node]) -> set[Node]:
        last_use = _last_uses(region)
        borrowers = _borrowers(region)
        defined_here = set(region.nodes) | set(region.params)
        fresh = set(fresh)
        fresh_results: set[tuple[Node, int]] = set()  # (while node, state index)
        for i, node in enumerate(region.nodes):
            if node.op is Op.WHILE:
                fresh_results |= self._while(node, i, last_use, borrowers, fresh)
            elif node.op is Op.PROJ and (node.inputs[0], node.arg) in fresh_results:
                fresh.add(node)
            elif node.op is Op.COND:
                for sub in node.regions():
                    self._region(sub, set())
            if _is_update(node):
                target = node.inputs[0]
                if (target in fresh and target in defined_here
                        and _dead_after(target, i, last_use, borrowers)):
                    self.in_place.add(node)
                    fresh.add(node)
            elif node.op is Op.CALL and not _may_alias_input(node) and isinstance(
                    node.type, (TensorType, ListType)):
                fresh.add(node)
        return fresh

    def _while(self, node: Node, i: int, last_use: dict, borrowers: dict,
               fresh: set[Node]) -> set[tuple[Node, int]]:
        """Analyse a loop; return the state indices whose final values it owns."""
        test, body = node.arg
        self._region(test, set())
        # Body params start owned (a state value that enters shared is copied first) as
        # long as each iteration hands the next a fresh, unshared value.
        owned = set(body.params)
        while True:
            saved = set(self.in_place)
            fresh_out = self._region(body, owned)
            bad = {p for k, p in enumerate(body.params)
                   if p in owned and (body.results[k] not in fresh_out
                                      or body.results.count(body.results[k]) > 1)}
            if not bad:
                break
            self.in_place = saved
            owned -= bad
        owned_results = set()
        for k, (value, param) in enumerate(zip(node.inputs, body.params)):
            handed_over = value in fresh and _dead_after(value, i, last_use, borrowers)
            if self._updated_in_place(body, param) and not handed_over:
                self.copy_on_entry.add((node, k))
                handed_over = True
            if handed_over and param in owned:
                owned_results.add((node, k))
        return owned_results

    def _updated_in_place(self, body: Region, param: Node) -> bool:
        value = param
        for node in body.nodes:
            if node in self.in_place and node.inputs[0] is value:
                value = node
        return value is not param


def _uses(node: Node) -> set[Node]:
    used = set(node.inputs)
    for sub in node.regions():
        for inner in sub.nodes:
            used |= _uses(inner)
        used |= set(sub.results)
    return used


def _last_uses(region: Region) -> dict[Node, int]:
    last: dict[Node, int] = {}
    for i, node in enumerate(region.nodes):
        for used in _uses(node):
            last[used] = i
    for used in region.results:
        last[used] = len(region.nodes)
    return last


def _borrowers(region: Region) -> dict[Node, list[Node]]:
    """For each node, the later nodes that may be views of it."""
    out: dict[Node, list[Node]] = {}
    for node in region.nodes:
        if node.op is Op.CALL and _may_alias_input(node) and not _is_update(node):
            for source in node.inputs:
                out.setdefault(source, []).append(node)
    return out


def _dead_after(node: Node, i: int, last_use: dict, borrowers: dict) -> bool:
    """Whether neither node nor anything viewing it is used after position i."""
    stack, seen = [node], set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        if last_use.get(current, -1) > i:
            return False
        stack.extend(borrowers.get(current, ()))
    return True
