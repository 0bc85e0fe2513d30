"""What the graph view's detail panel and search know about each node (plain JSON).

Every node of the listing has a short entry in the view's index, keyed by its drawing
id (``n7``): what search, folding and the explain panel need (name, op, line, the
cluster it is in, whether it is drawn).  The full record the panel shows for a node
clicked is made when asked for (a graph may have tens of thousands of nodes): the op,
its inputs and users with their types, constants, the user's source location, the
Python-fallback reason, why it copies an array inside a loop, the last error, the
value summary of an inspected run, and whether conversion added it (scaffolding).
"""

from __future__ import annotations

from collections import defaultdict
from functools import cached_property
from typing import Any

from ..graph.ir import Graph, Node, Op
from ..graph.printer import format_node, show_argument
from ..graph.template import Hole, split
from .dot import ViewFacts, fused_groups, has_box, projected, region_names, type_label
from .families import family, op_text
from .sources import location_text, source_lines

CONSTANT_CHARS = 120  # longest constant shown in full


class Details:
    """The index and the records of one graph's nodes (see the module's docstring)."""

    def __init__(self, facts: ViewFacts) -> None:
        self.facts = facts
        self.graph = facts.graph
        self.values = facts.graph.values or {}
        self.fused = fused_groups(facts.graph)
        self.by_id = {facts.ids[node]: node for node in facts.names}

    def op(self, node: Node) -> str:
        """The node's title: ``members = getitem``, or its op."""
        return self.facts.variables.get(node) or op_text(node)

    def index(self) -> dict[str, dict[str, Any]]:
        """Each node's entry (false and empty fields left out, to keep it small)."""
        facts = self.facts
        owners = facts.nesting.owners
        hidden = facts.scaffolding.hidden
        out = {}
        for node in facts.names:
            entry: dict[str, Any] = {"name": facts.names[node], "op": self.op(node)}
            entry["kind"] = node.op.value
            if node.loc is not None:
                entry["line"] = node.loc.lineno
            if owners[node]:
                entry["in"] = facts.ids[owners[node][-1]]
            if node.regions():
                entry["regions"] = True
            if has_box(node, facts.nesting):
                entry["drawn"] = True
            if node in hidden:
                entry["scaffolding"] = True  # (drawn only when asked for everything)
            if node.op is Op.PROJ:
                entry["via"] = facts.ids[projected(node)]
            if node in self.fused:
                entry["fused"] = True
            value = self.values.get(node)
            if value is not None and (value.nan or value.inf):
                entry["nan"], entry["inf"] = value.nan, value.inf
            out[facts.ids[node]] = entry
        return out

    def groups(self) -> dict[str, dict[str, Any]]:
        """Each group's label, size and the cluster it is in (``in``, "": none)."""
        facts = self.facts
        nesting = facts.nesting
        return {
            facts.ids[g]: {
                "label": g.label,
                "size": nesting.inside[g],
                "in": facts.ids[nesting.above[g][-1]] if nesting.above[g] else "",
            }
            for g in nesting.groups
        }

    @cached_property
    def _users(self) -> dict[Node, list[Node]]:
        users: dict[Node, list[Node]] = defaultdict(list)
        for node in self.facts.nesting.owners:
            for value in node.inputs:
                users[value].append(node)
        return users

    def _ref(self, node: Node) -> dict[str, str]:
        return {
            "id": self.facts.ids[node],
            "name": self.facts.names[node],
            "op": self.op(node),
            "type": type_label(node.type, self.values.get(node)),
        }

    def record(self, ident: str) -> dict[str, Any] | None:
        """The full record of the node drawn as ``ident`` (None: no such node)."""
        node = self.by_id.get(ident)
        if node is None:
            return None
        facts, graph = self.facts, self.graph
        nesting = facts.nesting
        loc = node.loc
        fused = self.fused.get(node)
        names = facts.names
        return {
            "name": names[node],
            "op": self.op(node),
            "kind": node.op.value,
            "family": family(node),
            "listing": format_node(node, names.__getitem__),
            "type": node.type.describe(),
            "inputs": [self._ref(i) for i in node.inputs],
            "users": [self._ref(u) for u in self._users[node]],
            "constants": _constants(node),
            "regions": list(region_names(node)) if node.regions() else [],
            "size": nesting.inside[node],
            "clusters": [facts.ids[c] for c in nesting.owners[node]],
            "drawn": has_box(node, nesting),
            "scaffolding": node in facts.scaffolding.hidden,
            "via": facts.ids[projected(node)] if node.op is Op.PROJ else None,
            "location": None
            if loc is None
            else {
                "file": loc.filename,
                "line": loc.lineno,
                "text": location_text(loc),
                "gradient": loc.gradient,
                "callers": [location_text(c) for c in loc.stack()[:-1]],
            },
            "python": graph.python_nodes.get(node),
            "copy": graph.copies.get(node),
            "fused": None
            if fused is None
            else {
                "pass": fused + 1,
                "with": [self._ref(m) for m in graph.fused[fused] if m is not node],
            },
            "failed": graph.failed_node is node,
            "value": self.values[node].to_json() if node in self.values else None,
        }


def node_sources(graph: Graph) -> dict[str, dict[str, str]]:
    """The source lines the detail panel shows around the nodes' locations."""
    return source_lines(node.loc for node in graph.all_nodes() if node.loc)


def _constants(node: Node) -> list[str]:
    """The arguments of a node that are no graph value: a constant's value, a call's
    static arguments (``axis=0``)."""
    if node.op is Op.CONST:
        return [_short(repr(node.arg))]
    if node.op is not Op.CALL:
        return []
    call = node.arg
    args = [_short(show_argument(a)) for a in call.args if not _holes(a)]
    return args + [
        f"{k}={_short(show_argument(v))}" for k, v in call.kwargs.items() if not _holes(v)
    ]


def _holes(template: Any) -> bool:
    return bool(split(template, lambda v: type(v) is Hole)[1])


def _short(text: str) -> str:
    return text if len(text) <= CONSTANT_CHARS else text[: CONSTANT_CHARS - 3] + "..."
