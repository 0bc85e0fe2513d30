"""The graph IR: nodes, regions and graphs.

A graph is a Region: parameters, an ordered list of nodes (a valid schedule) and results.
Control flow nodes (COND, WHILE) own nested regions; a nested region may use any value
of an enclosing region directly (implicit capture).  All computation is one op, CALL,
applying a function to a template of static arguments with holes for graph inputs, so
the whole of NumPy is expressible; op properties live in ``graph/functions.py``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .types import GraphType

if TYPE_CHECKING:  # the graph view is imported only when a graph is shown
    import graphviz

    from ..viz.graph_widget import GraphWidget
    from ..viz.values import ValueSummary


class Op(enum.Enum):
    PARAM = "param"  # arg: position in the region's parameter list
    CONST = "const"  # arg: the constant value
    CALL = "call"  # arg: Call (function + argument template)
    COND = "cond"  # inputs: (pred, *operands); arg: (then_region, else_region)
    WHILE = "while"  # inputs: initial state; arg: (test_region, body_region)
    PROJ = "proj"  # inputs: (multi-result node,); arg: index


@dataclass(frozen=True)
class Loc:
    """Where in the user's source a node was created."""

    filename: str
    lineno: int
    col: int = 0
    end_col: int | None = None
    function: str = ""
    caller: Loc | None = None  # where the user's calling function was (helper calls)
    function_line: int = 0  # the first line of the function (0: unknown)
    # (loop line, iteration) of each loop that ran while tracing around this spot
    unrolled: tuple[tuple[int, int], ...] = ()
    gradient: bool = False  # a node of a gradient, derived from the node at this line

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno}"

    def stack(self) -> list[Loc]:
        """This location and its callers, outermost first (as a traceback lists them)."""
        out: list[Loc] = []
        loc: Loc | None = self
        while loc is not None:
            out.append(loc)
            loc = loc.caller
        return out[::-1]


class Node:
    """One value-producing operation.  Compared by identity; never mutated after passes."""

    __slots__ = ("arg", "inputs", "loc", "op", "type")

    def __init__(
        self,
        op: Op,
        inputs: tuple[Node, ...],
        arg: Any,
        type: GraphType,
        loc: Loc | None = None,
    ) -> None:
        self.op = op
        self.inputs = inputs
        self.arg = arg
        self.type = type
        self.loc = loc

    def __repr__(self) -> str:
        return f"<{self.label()} : {self.type}>"

    def label(self) -> str:
        """Short text naming the operation, for dumps and the graph view."""
        if self.op is Op.CALL:
            return self.arg.name
        if self.op is Op.CONST:
            text = repr(self.arg)
            return text if len(text) <= 24 else text[:21] + "..."
        if self.op in (Op.PARAM, Op.PROJ):
            return f"{self.op.value}[{self.arg}]"
        return self.op.value

    def regions(self) -> tuple[Region, ...]:
        """Nested regions of a control-flow node, else ()."""
        return self.arg if self.op in (Op.COND, Op.WHILE) else ()


@dataclass
class Region:
    """A scheduled block: params, nodes in execution order, results."""

    params: list[Node] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    results: tuple[Node, ...] = ()
    # Loop bodies: the user's variable per param (None for what conversion added), and
    # how many iterations ran unrolled while tracing before the loop became a graph loop.
    names: tuple[str | None, ...] = ()
    unrolled: int = 0


@dataclass
class Graph:
    """A traced function: its top region plus how to map Python arguments to params."""

    name: str
    body: Region
    in_tree: Any  # how the call's arguments flatten into params (see graph/pytree.py)
    out_tree: Any  # how results rebuild the returned Python structure
    failed_node: Node | None = None  # the node the last failing run raised in, if any
    # Arguments the function writes into (their positions among the params): the last
    # results before the effect token are their final values, in this order.
    writes: tuple[int, ...] = ()
    # Nodes the compiled backend runs in Python, and why (known once it has compiled).
    python_nodes: dict[Node, str] = field(default_factory=dict, repr=False, compare=False)
    # Updates the compiled backend makes by copying a whole array inside a loop, and why.
    copies: dict[Node, str] = field(default_factory=dict, repr=False, compare=False)
    # Each node's value in one run, when asked for (``f.graph(..., inspect=True)``).
    values: dict[Node, ValueSummary] | None = field(default=None, repr=False, compare=False)

    def all_nodes(self) -> list[Node]:
        """Every node, nested regions included, in schedule order."""
        out: list[Node] = []

        def walk(region: Region) -> None:
            for node in region.nodes:
                out.append(node)
                for sub in node.regions():
                    walk(sub)

        walk(self.body)
        return out

    def find(self, op: Op) -> list[Node]:
        """All nodes with the given op."""
        return [n for n in self.all_nodes() if n.op is op]

    def __str__(self) -> str:
        from .printer import format_graph

        return format_graph(self)

    def to_dot(self, **options: Any) -> graphviz.Digraph:
        """The graph in Graphviz's DOT language (options: see ``nbgraph.viz.to_dot``)."""
        from ..viz.dot import to_dot

        return to_dot(self, **options)

    def widget(self, **options: Any) -> GraphWidget:
        """The interactive graph view (options: see ``nbgraph.viz.GraphWidget``)."""
        from ..viz.graph_widget import GraphWidget

        return GraphWidget(self, **options)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        """The interactive view in a notebook, an SVG where widgets do not run (exported
        HTML, GitHub), the text listing in a terminal."""
        from ..viz.graph_widget import mimebundle

        return mimebundle(self)
