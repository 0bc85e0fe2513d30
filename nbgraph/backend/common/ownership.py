"""Which functional updates may reuse their input's memory.

Graph values are immutable, so ``x[i] = v`` is a new array.  Compiled code updates in
place when nothing can observe the old value: the input is owned (a fresh array, or an
argument the function writes into, whose final value goes to the caller's array anyway)
and neither it nor a view of it is used later.  Ownership flows through loops (a state
variable each iteration hands to the next), into the branches of an ``if`` (a value the
``if`` consumes: unused after it) and out of them (when both branches leave an owned
value).  This is what makes ``out[i] = ...`` in a loop O(1) instead of a copy per
iteration; an update that still copies inside a loop is reported with its line.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable

from ...errors.exceptions import NbgraphPerformanceWarning
from ...graph import runtime
from ...graph.ir import Graph, Node, Op, Region
from ...graph.numpy_facts import NEW_ARRAY_METHODS, VIEW_FUNCTIONS, method_name
from ...graph.runtime import UPDATES, call_method
from ...graph.types import ARRAY, ListType, TensorType

_ALIASING = VIEW_FUNCTIONS | {operator.getitem, runtime.coerce, call_method, runtime.astype}


def _is_update(node: Node) -> bool:
    return node.op is Op.CALL and node.arg.fn in UPDATES


def _may_alias_input(node: Node) -> bool:
    """Whether the result may share memory with an input (a view, or the input itself)."""
    if node.op is not Op.CALL:
        return True
    if method_name(node.arg) in NEW_ARRAY_METHODS and "out" not in node.arg.kwargs:
        return False  # x.copy(), x.sum(0), ...
    return node.arg.fn in _ALIASING or _is_update(node)


Roots = frozenset  # the buffers an owned value may be (allocations, params)


class Ownership:
    """In-place decisions for one graph: ``in_place`` holds the update nodes allowed,
    ``copy_on_entry`` the loop states copied once before their loop, ``handed_over`` the
    loop states whose initial value is a fresh array nothing else uses (the loop may
    write its first iteration's values into it), ``copies`` the updates and loop entries
    that copy a whole array inside a loop (and why)."""

    def __init__(self, graph: Graph, element_views: bool = False) -> None:
        """``element_views``: the backend's element reads (``x[i]`` giving a scalar) are
        views into the array, so a later use of one keeps the array from being updated
        in place; elsewhere they are copies."""
        self.element_views = element_views
        self.in_place: set[Node] = set()
        self.copy_on_entry: set[tuple[Node, int]] = set()  # (while node, state index)
        self.handed_over: set[tuple[Node, int]] = set()  # (while node, state index)
        self.copies: dict[Node, str] = {}
        self._roots: dict[Node, Roots] = {}
        self._projs: dict[tuple[Node, int], Roots] = {}  # owned cond/while results
        self._written: set[Node] = set()  # roots some in-place update writes into
        self._depth = 0  # loops around the region being analysed
        written = [graph.body.params[k] for k in graph.writes]
        self._arguments = Roots(written)
        for param in written:
            self._roots[param] = Roots({param})
        self._region(graph.body, set(written), Roots())

    def _region(self, region: Region, fresh: set[Node], captured: Roots) -> set[Node]:
        """Analyse a region whose owned values on entry are ``fresh``; ``captured``: those
        of an enclosing region it may update in place (an if branch's).  Returns the
        values owned at its end."""
        last_use = _last_uses(region)
        borrowers = _borrowers(region, self.element_views)
        mine = set(region.nodes) | set(region.params) | captured
        fresh = set(fresh)
        for i, node in enumerate(region.nodes):
            if node.op is Op.WHILE:
                self._while(node, i, last_use, borrowers, fresh)
            elif node.op is Op.COND:
                self._cond(node, i, last_use, borrowers, fresh)
            elif node.op is Op.PROJ and (node.inputs[0], node.arg) in self._projs:
                fresh.add(node)
                self._roots[node] = self._projs[node.inputs[0], node.arg]
            if _is_update(node):
                target = node.inputs[0]
                if (
                    target in fresh
                    and target in mine
                    and _dead_after(target, i, last_use, borrowers)
                ):
                    self.in_place.add(node)
                    fresh.add(node)
                    self._roots[node] = self._roots.get(target, Roots({target}))
                    self._written |= self._roots[node]
                else:
                    self._copied(node, _reason(node, target, fresh, mine))
            elif (
                node.op is Op.CALL
                and not _may_alias_input(node)
                and isinstance(node.type, (TensorType, ListType))
            ):
                fresh.add(node)
                self._roots[node] = Roots({node})
        return fresh

    def _copied(self, node: Node, why: str) -> None:
        if self._depth:
            self.copies[node] = why

    def _cond(self, node: Node, i: int, last_use: dict, borrowers: dict, fresh: set[Node]) -> None:
        """Branches may update in place the owned values the ``if`` consumes; a result
        both branches leave owned (and once only) is owned after it."""
        captured = Roots(v for v in fresh if _handed(v, i, last_use, borrowers))
        outs = [(sub.results, self._region(sub, set(captured), captured)) for sub in node.regions()]
        for k in range(len(node.type.items)):
            if all(
                results[k] in owned and results.count(results[k]) == 1 for results, owned in outs
            ):
                self._projs[node, k] = Roots().union(
                    *(self._roots.get(results[k], Roots({results[k]})) for results, _ in outs)
                )

    def _while(self, node: Node, i: int, last_use: dict, borrowers: dict, fresh: set[Node]) -> None:
        """Analyse a loop; the results it owns are recorded for their projections."""
        test, body = node.arg
        self._depth += 1
        self._region(test, set(), Roots())
        handed = [
            value in fresh and _handed(value, i, last_use, borrowers) for value in node.inputs
        ]
        # Body params start owned (a state value that enters shared is copied first) as
        # long as each iteration hands the next a fresh, unshared value.
        owned = set(body.params)
        while True:
            saved = (
                set(self.in_place),
                set(self._written),
                dict(self.copies),
                set(self.copy_on_entry),
                set(self.handed_over),
            )
            for k, param in enumerate(body.params):
                self._roots[param] = (
                    self._roots.get(node.inputs[k], Roots()) | {param}
                    if handed[k]
                    else Roots({param})
                )
            fresh_out = self._region(body, owned, Roots())
            bad = {
                p
                for k, p in enumerate(body.params)
                if p in owned
                and (body.results[k] not in fresh_out or body.results.count(body.results[k]) > 1)
            }
            if not bad:
                break
            (
                self.in_place,
                self._written,
                self.copies,
                self.copy_on_entry,
                self.handed_over,
            ) = saved
            owned -= bad
        self._depth -= 1
        for k, param in enumerate(body.params):
            if param in self._written and not handed[k]:
                self.copy_on_entry.add((node, k))
                self._copied(
                    node,
                    "copies an array each time the loop starts (the value "
                    "it starts from is still used elsewhere)",
                )
                if param in owned:
                    self._projs[node, k] = Roots({param})
            elif handed[k] and param in owned:
                self._projs[node, k] = self._roots[param]
            value = node.inputs[k]
            if (
                handed[k]
                and node.inputs.count(value) == 1
                and not self._roots.get(value, Roots({value})) & self._arguments
            ):
                self.handed_over.add((node, k))


def _reason(node: Node, target: Node, fresh: set[Node], mine: set[Node]) -> str:
    """Why an update copies its input, in the user's terms."""
    kind, verb = ("list", "append") if node.arg.fn is runtime.list_append else ("array", "write")
    if target.op is Op.CONST:
        why = f"the {kind} is a constant of the graph"
    elif target not in fresh:
        why = f"the {kind} may be shared (a view, or a value also used elsewhere)"
    elif target not in mine:
        why = f"the {kind} comes from outside the loop, whose every iteration reads it"
    else:
        why = f"the {kind} is used again after the {verb} as it was before"
    return f"copies the whole {kind} on each {verb} ({why})"


def report_copies(
    graph: Graph,
    ownership: Ownership,
    marked: dict[Node, str],
    warn: Callable[..., None] = warnings.warn_explicit,
) -> None:
    """Warn once per program about each copy inside a loop, at the user's line (by
    ``warn``, which takes ``warnings.warn_explicit``'s arguments), and mark the node in
    ``marked`` (the program's ``copies``, which the graph view shows).
    A gradient's copies are only marked: its forward loops keep each iteration's values
    for the backward pass, which no change to the user's line would avoid."""
    if not ownership.copies:
        return
    gradient = any(n.loc is not None and n.loc.gradient for n in graph.all_nodes())
    for node, why in ownership.copies.items():
        if node in marked:
            continue
        marked[node] = why
        loc = node.loc
        if gradient:
            continue
        where = f"line {loc.lineno}" if loc else "a graph loop"
        warn(
            f"nbgraph: graph '{graph.name}' at {where}: this update inside a loop {why}; "
            "it costs time proportional to the array's size per iteration",
            NbgraphPerformanceWarning,
            loc.filename if loc else "<graph>",
            loc.lineno if loc else 0,
        )


def _last_uses(region: Region) -> dict[Node, int]:
    last: dict[Node, int] = {}
    for i, node in enumerate(region.nodes):
        for used in node.reads():
            last[used] = i
    for used in region.results:
        last[used] = len(region.nodes)
    return last


def _borrowers(region: Region, element_views: bool) -> dict[Node, list[Node]]:
    """For each node, the later nodes that may be views of it (scalars only where
    ``element_views``)."""
    out: dict[Node, list[Node]] = {}
    for node in region.nodes:
        scalar = isinstance(node.type, TensorType) and node.type.flavor != ARRAY
        if scalar and not element_views:
            continue
        if node.op is Op.CALL and _may_alias_input(node) and not _is_update(node):
            for source in node.inputs:
                out.setdefault(source, []).append(node)
    return out


def _handed(node: Node, i: int, last_use: dict, borrowers: dict) -> bool:
    """Whether the ``if`` or loop at position i may update node in place: it is dead
    after i, and no view of it is read inside the statement (the view would see the
    writes; an element read is one where ``element_views``)."""
    return _dead_after(node, i, last_use, borrowers) and all(
        _dead_after(view, i - 1, last_use, borrowers) for view in borrowers.get(node, ())
    )


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
