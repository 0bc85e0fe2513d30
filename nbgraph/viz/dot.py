"""A graph in Graphviz's DOT language (``Graph.to_dot()``) and its SVG layout by ``dot``.

Node ids are the listing's names (``%7`` is ``n7``), so they are the same in every
drawing of a graph and match ``print(graph)``.  Each cond/while is a cluster
``cluster_n7`` holding its regions between an entry node (``n7``: the node itself,
fed by its inputs) and an exit node (``n7_end``: fed by the regions' results, feeding
the users of its outputs); folded, it is the single node ``n7``.  A helper call's nodes
are the cluster ``cluster_g7_1`` (``b7_1`` for a gradient's backward half), named after
its first node and how many calls deep it is; folded, the single node ``g7_1``.  A loop
unrolled while tracing, a range of its iterations and one iteration are ``u7_0``,
``r7_1`` and ``i7_2``: the first node and how deep the group is around it.  Values
the view leaves out: projections (their edges leave the node they project from), the
effect token's start, and loop variables nothing reads.
"""

from __future__ import annotations

import html
import shutil
from collections.abc import Collection
from typing import Any

import graphviz

from ..backend.inspection import ValueSummary
from ..graph.ir import Graph, Node, Op, Region
from ..graph.printer import format_node, node_names, param_names
from ..graph.scaffolding import Scaffolding, scaffolding
from ..graph.types import PYTHON, GraphType, ListType, TensorType, TokenType
from ..graph.variables import assigned_variables
from .families import FAMILIES, family, op_text
from .folding import DRAWING_BUDGET, Cluster, Group, Nesting
from .sources import location_text, loop_exits

# Past this many visible nodes, ``dot`` places edge labels after the layout (``xlabel``)
# and limits its search for node positions (``nslimit``): without both, a graph of 2000
# nodes took a minute and more, with both 2-3 s.
LARGE_GRAPH = 300
FONT = "Helvetica,Arial,sans-serif"
FAILED_COLOR = "#dc2626"
PYTHON_COLOR = "#d97706"
# Outlines of the backend's fused groups (one pass over the elements each), in turn.
FUSED_COLORS = ("#0891b2", "#7c3aed", "#db2777", "#65a30d", "#2563eb", "#ea580c")
RESULTS_ID = "results"
# Each kind of group (folding.Group): its id's letter, and its fill and outline colours.
GROUP_STYLES = {
    "call": ("g", "#f0f9ff", "#7dd3fc"),
    "grad": ("b", "#fff7ed", "#fdba74"),
    "loop": ("u", "#f0fdf4", "#86efac"),
    "range": ("r", "#f7fee7", "#bef264"),
    "iteration": ("i", "#ffffff", "#bbf7d0"),
}
REMOVED_COLOR = "#9ca3af"
# How the graph as traced marks what each optimisation pass took out.
REMOVED = {
    "dce": "removed: unused",
    "cse": "merged into an equal one",
    "fold": "computed while building",
}

NO_DOT = (
    "the graph cannot be laid out: Graphviz's `dot` program is not installed where Python "
    "runs. Install it (Debian/Ubuntu: `apt-get install graphviz`, conda: `conda install "
    "graphviz`, macOS: `brew install graphviz`); meanwhile `print(graph)` lists the graph "
    "as text."
)


class LayoutUnavailable(RuntimeError):
    """Graphviz's ``dot`` is not installed, so no layout can be made here."""


def has_dot() -> bool:
    """Whether Graphviz's ``dot`` program can be run."""
    return shutil.which("dot") is not None


def node_id(name: str) -> str:
    """A node's id in drawings: ``n7`` for the listing's ``%7``."""
    return f"n{name[1:]}"


def type_label(t: GraphType, value: ValueSummary | None = None) -> str:
    """An edge's label, ``dtype[shape]``: ``float64[?, ?]`` before a run, ``float64[3, 4]``
    with a run's values; Python numbers by their kind (``int``)."""
    if isinstance(t, TensorType):
        if t.flavor == PYTHON:
            return t.python_kind
        shape = value.shape if value is not None and value.shape is not None else "?" * t.ndim
        return f"{t.dtype}[{', '.join(map(str, shape))}]"
    if isinstance(t, ListType):
        return f"list[{type_label(t.elem) if t.elem else '?'}]"
    return t.describe()


def cluster_ids(
    graph: Graph, nesting: Nesting, names: dict[Node, str] | None = None
) -> dict[Cluster, str]:
    """The drawing id of every node and group of ``graph`` (``names``: its
    ``node_names``, where known)."""
    names = names or node_names(graph)
    ids: dict[Cluster, str] = {node: node_id(name) for node, name in names.items()}
    for group in nesting.groups:  # a call and the calls it makes may start at one node
        letter, _, _ = GROUP_STYLES[group.kind]
        first = ids[group.first][1:]
        if group.kind in ("call", "grad"):
            ids[group] = f"{letter}{first}_{group.calls}"
        else:  # (nested loops start at one node: told apart by their depth)
            ids[group] = f"{letter}{first}_{nesting.owners[group.first].index(group)}"
    return ids


def has_box(node: Node, nesting: Nesting) -> bool:
    """Whether a node is drawn as a box of its own (when the clusters around it are
    open): not projections, the effect token's start, or loop variables nothing reads."""
    if node.op is Op.PROJ or (isinstance(node.type, TokenType) and node.op is not Op.CALL):
        return False
    nested_param = node.op is Op.PARAM and nesting.owners[node]
    return not nested_param or node in nesting.read


def region_names(node: Node) -> tuple[str, ...]:
    """The names of a control-flow node's regions, as the listing shows them."""
    return ("then", "else") if node.op is Op.COND else ("test", "body")


class ViewFacts:
    """What every drawing of one graph shares, worked out once (a view keeps it for
    each fold and unfold): where nodes sit, their names, ids and variables, and what
    conversion added."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.nesting = Nesting(graph)
        self.names = node_names(graph)
        self.ids = cluster_ids(graph, self.nesting, self.names)
        self.variables = variable_names(graph)
        self.scaffolding = scaffolding(graph)


def to_dot(
    graph: Graph,
    unfolded: Collection[Cluster] | None = None,
    *,
    types: bool = True,
    values: bool = True,
    fusion: bool = False,
    everything: bool = False,
    facts: ViewFacts | None = None,
) -> graphviz.Digraph:
    """The DOT drawing of ``graph``.

    ``unfolded``: the cond/while nodes and groups (helper calls, unrolled loops) drawn
    as open clusters (default: all of them unless the graph is large, see ``folding``).
    ``types``: label edges with ``dtype[shape]``.  ``values``: show the value summaries
    of an inspected graph.
    ``fusion``: outline each group of operations the backend fused, a colour per group.
    ``everything``: draw what conversion added too (``graph/scaffolding.py``: the flags of
    break, continue and return, the effect token), which is hidden by default.
    ``facts``: the graph's ``ViewFacts``, where the caller keeps them.
    """
    facts = facts or ViewFacts(graph)
    if unfolded is None:
        unfolded = facts.nesting.initial_unfolded(DRAWING_BUDGET)
    hidden = Scaffolding() if everything else facts.scaffolding
    return _Drawing(facts, frozenset(unfolded), types, values, fusion, hidden).build()


def to_svg(graph: Graph, **options: Any) -> str:
    """The SVG of ``to_dot(graph, **options)`` laid out by ``dot``."""
    return layout_svg(to_dot(graph, **options))


def layout_svg(drawing: graphviz.Digraph) -> str:
    """Lay ``drawing`` out with ``dot``; LayoutUnavailable (saying how to install it)
    where Graphviz is missing."""
    try:
        return drawing.pipe(format="svg", encoding="utf-8")
    except graphviz.ExecutableNotFound:
        raise LayoutUnavailable(NO_DOT) from None


class _Drawing:
    """Builds one DOT drawing: nodes in their clusters first, then all edges."""

    def __init__(
        self,
        facts: ViewFacts,
        unfolded: frozenset[Cluster],
        types: bool,
        values: bool,
        fusion: bool,
        hidden: Scaffolding,
    ) -> None:
        self.graph = graph = facts.graph
        self.hidden = hidden
        self.nesting = nesting = facts.nesting
        self.unfolded = unfolded
        self.types = types
        self.values = (graph.values or {}) if values else {}
        self.fused = fused_groups(graph) if fusion else {}
        self.names = facts.names
        self.ids = facts.ids
        self.variables = facts.variables
        large = nesting.visible_count(unfolded) > LARGE_GRAPH
        self.label_key = "xlabel" if large else "label"
        self.edges: dict[tuple[str, str], dict[str, str]] = {}
        self.dot = graphviz.Digraph(
            graph.name,
            graph_attr={
                "label": f"graph {graph.name}",
                "labelloc": "t",
                "fontname": FONT,
                "fontsize": "11",
                "nodesep": "0.25",
                "ranksep": "0.3",
                "newrank": "true",
                "bgcolor": "white",
                **({"nslimit": "1"} if large else {}),
            },
            node_attr={
                "shape": "box",
                "style": "rounded,filled",
                "fontname": FONT,
                "fontsize": "10",
                "height": "0.3",
                "margin": "0.1,0.04",
                "color": "#6b7280",
            },
            edge_attr={
                "fontname": FONT,
                "fontsize": "8",
                "fontcolor": "#4b5563",
                "color": "#9ca3af",
                "arrowsize": "0.6",
            },
        )

    def build(self) -> graphviz.Digraph:
        self._region(self.dot, self.graph.body, ())
        self.dot.node(RESULTS_ID, "return", id=RESULTS_ID, fillcolor="#f9fafb")
        for result in self.graph.body.results:
            self._edge(result, RESULTS_ID)
        for node in self.nesting.owners:
            shown = self.nesting.shown_as(node, self.unfolded)
            if shown is node and not self._drawn(node):
                continue
            for value in node.inputs:
                self._edge(value, self.ids[shown])
        folded = {self.ids[c] for c in self.nesting.clusters if c not in self.unfolded}
        for (tail, head), attrs in self.edges.items():
            if "label" in attrs and (tail in folded or head in folded):
                # placed after the layout: a folded box's edges, many into one node,
                # made ``dot`` several times slower as labels it places itself
                attrs = {"xlabel": attrs["label"]}
            self.dot.edge(tail, head, **attrs)
        return self.dot

    def _drawn(self, node: Node) -> bool:
        return has_box(node, self.nesting) and node not in self.hidden.hidden

    def _region(
        self, parent: graphviz.Digraph, region: Region, around: tuple[Cluster, ...]
    ) -> None:
        """Draw a region's nodes (``around``: the clusters around the region)."""
        nodes = [n for n in (*region.params, *region.nodes) if self._drawn(n)]
        self._place(parent, nodes, len(around))

    def _place(self, parent: graphviz.Digraph, nodes: list[Node], depth: int) -> None:
        """Draw ``nodes``, which share their first ``depth`` clusters: each in the group
        it is in below those, if any (open, or one folded node), else by itself."""
        groups: dict[Group, list[Node]] = {}
        for node in nodes:
            inner = self.nesting.owners[node][depth:]
            if inner:  # below the region's own clusters, only groups
                groups.setdefault(inner[0], []).append(node)
            elif node.regions() and node in self.unfolded:
                self._cluster(parent, node)
            else:
                parent.node(self.ids[node], **self._node_attrs(node))
        for group, members in groups.items():
            ident = self.ids[group]
            if group not in self.unfolded:
                parent.node(ident, **self._group_attrs(group))
                continue
            with parent.subgraph(name=f"cluster_{ident}") as box:
                box.attr(
                    id=f"cluster_{ident}",
                    label=f"▾ {group.label}",
                    style="rounded,filled",
                    fillcolor=GROUP_STYLES[group.kind][1],
                    color=GROUP_STYLES[group.kind][2],
                    fontname=FONT,
                    fontsize="10",
                    labeljust="l",
                )
                self._place(box, members, depth + 1)

    def _group_attrs(self, group: Group) -> dict[str, str]:
        """A folded group: one box naming the call and how many nodes it holds."""
        details = f"{self.nesting.inside[group]} nodes"
        attrs = {
            "id": self.ids[group],
            "shape": "box3d",
            "style": "filled",
            "fillcolor": GROUP_STYLES[group.kind][1],
            "color": GROUP_STYLES[group.kind][2],
            "tooltip": f"{group.label}: {details}; double-click to unfold",
        }
        lines = [
            f"<b>{_html('▸ ' + group.label)}</b>",
            f'<font point-size="8" color="#4b5563">{details}</font>',
        ]
        if self._failed(group, folded=True):
            attrs.update(color=FAILED_COLOR, penwidth="3")
            lines.append(f'<font point-size="8" color="{FAILED_COLOR}">last error here</font>')
        attrs["label"] = f"<{'<br/>'.join(lines)}>"
        return attrs

    def _cluster(self, parent: graphviz.Digraph, node: Node) -> None:
        ident = self.ids[node]
        with parent.subgraph(name=f"cluster_{ident}") as cluster:
            cluster.attr(
                id=f"cluster_{ident}",
                label=f"▾ {self._construct(node)}",
                style="rounded,filled",
                fillcolor="#faf5ff",
                color="#a78bfa",
                fontname=FONT,
                fontsize="10",
                labeljust="l",
            )
            cluster.node(ident, **self._node_attrs(node))
            end = f"{ident}_end"
            for name, sub in zip(region_names(node), node.regions()):
                with cluster.subgraph(name=f"cluster_{ident}_{name}") as box:
                    box.attr(
                        id=f"cluster_{ident}_{name}",
                        label=name,
                        style="rounded,filled",
                        fillcolor="#ffffff",
                        color="#ddd6fe",
                        fontsize="9",
                    )
                    self._region(box, sub, (*self.nesting.owners[node], node))
                self._hang(ident, sub)
                for result in sub.results:
                    self._edge(result, end)
            cluster.node(
                end,
                f"end {node.op.value}",
                id=end,
                fillcolor=FAMILIES["control"][0],
                fontsize="8",
                height="0.2",
            )

    def _construct(self, node: Node) -> str:
        """A cond's or while's title where the flags are hidden: ``while · line 5 ·
        break at line 7``, ``cond · line 6 · break`` (an if that breaks), ``unless break
        · line 6`` (a branch skipping the rest of a body once a flag is set)."""
        hidden = self.hidden
        guard = hidden.guards.get(node)
        parts = [node.op.value if guard is None else f"unless {guard or 'exited'}"]
        if node.loc:
            parts.append(f"line {node.loc.lineno}")
        if node.op is Op.WHILE and hidden.hidden:
            exits = loop_exits(node.loc, hidden.exits(node))
            parts += [f"{kind} at line {line}" for kind, line in exits]
        elif guard is None and hidden.hidden:
            parts += hidden.exits(node)
        return " · ".join(parts)

    def _hang(self, entry: str, region: Region) -> None:
        """Place a region below its control node's entry: dotted lines to its loop
        variables, invisible edges to the nodes that take nothing from inside it."""
        inside = {*region.params, *region.nodes}
        for node in (*region.params, *region.nodes):
            if not self._drawn(node) or any(i in inside for i in node.inputs):
                continue
            head = self.ids[self.nesting.shown_as(node, self.unfolded)]
            self.edges.setdefault(
                (entry, head),
                {"style": "dotted", "arrowhead": "none"}
                if node.op is Op.PARAM
                else {"style": "invis"},
            )

    def _node_attrs(self, node: Node) -> dict[str, str]:
        ident = self.ids[node]
        folded = bool(node.regions()) and node not in self.unfolded
        title = self.variables.get(node) or op_text(node)
        details = [self.names[node]]
        if node.loc:
            details.append(f"{'∂' if node.loc.gradient else ''}L{node.loc.lineno}")
        if folded:
            details.append(f"{self.nesting.inside[node]} nodes")
        lines = [
            f"<b>{_html(('▸ ' if folded else '') + title)}</b>",
            f'<font point-size="8" color="#4b5563">{_html(" · ".join(details))}</font>',
        ]
        attrs = {
            "id": ident,
            "fillcolor": FAMILIES[family(node)][0],
            "tooltip": self._tooltip(node),
        }
        if node.op is Op.PARAM:
            attrs["shape"] = "ellipse"
        if folded:
            attrs.update(shape="box3d", style="filled")
        if node in self.graph.python_nodes:
            attrs.update(color=PYTHON_COLOR, penwidth="2", style="rounded,filled,dashed")
            lines.append(f'<font point-size="8" color="{PYTHON_COLOR}">runs in Python</font>')
        elif node in self.graph.copies:
            attrs.update(color=PYTHON_COLOR, penwidth="2", style="rounded,filled,dashed")
            lines.append(f'<font point-size="8" color="{PYTHON_COLOR}">copies in a loop</font>')
        if node in self.graph.removed:  # (the graph as traced: the passes took it out)
            attrs.update(color=REMOVED_COLOR, style="rounded,dashed", fontcolor=REMOVED_COLOR)
            reason = REMOVED[self.graph.removed[node]]
            lines.append(f'<font point-size="8" color="{REMOVED_COLOR}">{reason}</font>')
        if node in self.fused:
            color = FUSED_COLORS[self.fused[node] % len(FUSED_COLORS)]
            attrs.update(color=color, penwidth="2.5")
            lines.append(
                f'<font point-size="8" color="{color}">fused pass {self.fused[node] + 1}</font>'
            )
        if self._failed(node, folded):
            attrs.update(color=FAILED_COLOR, penwidth="3")
            lines.append(f'<font point-size="8" color="{FAILED_COLOR}">last error here</font>')
        if node in self.values and not node.regions():  # a cond/while's: its projections'
            brief = self.values[node].brief()
            lines.append(f'<font point-size="8" color="#1d4ed8">{_html(brief)}</font>')
        attrs["label"] = f"<{'<br/>'.join(lines)}>"
        return attrs

    def _failed(self, shown: Cluster, folded: bool) -> bool:
        """Whether the last error happened in ``shown`` (or inside it, folded)."""
        failed = self.graph.failed_node
        if failed is None:
            return False
        return failed is shown or (folded and shown in self.nesting.owners.get(failed, ()))

    def _tooltip(self, node: Node) -> str:
        text = format_node(node, self.names.__getitem__)
        if node.loc:
            text += "\n" + location_text(node.loc)
        return text.replace("\\", "\\\\").replace("\n", "\\n")

    def _tail(self, value: Node) -> str | None:
        """The id an edge carrying ``value`` leaves from (None: not drawn)."""
        value = self.hidden.shown(value)
        if value is None or (self.hidden.hidden and isinstance(value.type, TokenType)):
            return None
        value = projected(value)
        if not self._drawn(value):
            return None
        shown = self.nesting.shown_as(value, self.unfolded)
        if shown is value and value in self.unfolded:
            return f"{self.ids[value]}_end"
        return self.ids[shown]

    def _edge(self, value: Node, head: str) -> None:
        tail = self._tail(value)
        if tail is None or tail == head or (tail, head) in self.edges:
            return
        if isinstance(value.type, TokenType):
            attrs = {"style": "dashed", "color": "#d97706"}
        elif self.types:
            attrs = {self.label_key: type_label(value.type, self.values.get(value))}
        else:
            attrs = {}
        self.edges[(tail, head)] = attrs


def projected(node: Node) -> Node:
    """The node a projection (of a projection ...) takes its value from."""
    while node.op is Op.PROJ:
        node = node.inputs[0]
    return node


def fused_groups(graph: Graph) -> dict[Node, int]:
    """The index of the fused group each fused operation of ``graph`` is in."""
    return {node: k for k, group in enumerate(graph.fused) for node in group}


def variable_names(graph: Graph) -> dict[Node, str]:
    """What the view calls a node after the user's code: a parameter by its variable (the
    function's arguments, each loop's variables: a loop's test and body take the same
    variables, named in the body), an operation by the variable its line assigns
    (``members = getitem``)."""
    names = {node: f"{name} = {op_text(node)}" for node, name in assigned_variables(graph).items()}
    names.update(param_names(graph))
    return names


def _html(text: str) -> str:
    return html.escape(text, quote=True)
