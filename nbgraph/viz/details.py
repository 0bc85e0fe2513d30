"""What the graph view's detail panel and search know about each node (plain JSON).

One record per node of the listing, keyed by its drawing id (``n7``): the op, its
inputs and users with their types, constants, the user's source location, the
Python-fallback reason, why it copies an array inside a loop, the last error, and the
value summary of an inspected run, and whether conversion added it (scaffolding).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..graph.ir import Graph, Node, Op
from ..graph.printer import format_node, node_names, show_argument
from ..graph.scaffolding import scaffolding
from ..graph.template import Hole, split
from .dot import cluster_ids, fused_groups, has_box, region_names, type_label, variable_names
from .families import family, op_text
from .folding import Nesting
from .sources import location_text, source_lines

CONSTANT_CHARS = 120  # longest constant shown in full


def node_details(graph: Graph, nesting: Nesting) -> dict[str, dict[str, Any]]:
    """Each node's record, keyed by its drawing id."""
    names = node_names(graph)
    ids = cluster_ids(graph, nesting)
    users: dict[Node, list[Node]] = defaultdict(list)
    for node in nesting.owners:
        for value in node.inputs:
            users[value].append(node)
    values = graph.values or {}
    variables = variable_names(graph)
    fused = fused_groups(graph)
    hidden = scaffolding(graph).hidden

    def op(node: Node) -> str:
        return variables.get(node) or op_text(node)

    def ref(node: Node) -> dict[str, str]:
        return {
            "id": ids[node],
            "name": names[node],
            "op": op(node),
            "type": type_label(node.type, values.get(node)),
        }

    out: dict[str, dict[str, Any]] = {}
    for node, name in names.items():
        source = node
        while source.op is Op.PROJ:
            source = source.inputs[0]
        loc = node.loc
        out[ids[node]] = {
            "name": name,
            "op": op(node),
            "kind": node.op.value,
            "family": family(node),
            "listing": format_node(node, names.__getitem__),
            "type": node.type.describe(),
            "inputs": [ref(i) for i in node.inputs],
            "users": [ref(u) for u in users[node]],
            "constants": _constants(node),
            "regions": list(region_names(node)) if node.regions() else [],
            "size": nesting.inside[node],
            "clusters": [ids[c] for c in nesting.owners[node]],
            "drawn": has_box(node, nesting),
            "scaffolding": node in hidden,  # (drawn only when asked for everything)
            "via": ids[source] if source is not node else None,
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
            if node not in fused
            else {
                "pass": fused[node] + 1,
                "with": [ref(m) for m in graph.fused[fused[node]] if m is not node],
            },
            "failed": graph.failed_node is node,
            "value": values[node].to_json() if node in values else None,
        }
    return out


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
