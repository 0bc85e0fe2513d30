"""The graph IR: nodes, regions and graphs.

A graph is a Region: parameters, an ordered list of nodes (a valid schedule) and results.
Control flow nodes (COND, WHILE) own nested regions; a nested region may use any value
of an enclosing region directly (implicit capture).  All computation is one op, CALL,
applying a function to a template of static arguments with holes for graph inputs, so
the whole of NumPy is expressible; op properties live in ``graph/functions.py``.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any

from ..source.locations import Loc
from .types import GraphType
from .views import view


class Op(enum.Enum):
    PARAM = "param"  # arg: position in the region's parameter list
    CONST = "const"  # arg: the constant value
    CALL = "call"  # arg: Call (function + argument template)
    COND = "cond"  # inputs: (pred, *operands); arg: (then_region, else_region)
    WHILE = "while"  # inputs: initial state; arg: (test_region, body_region)
    PROJ = "proj"  # inputs: (multi-result node,); arg: index


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

    def reads(self) -> list[Node]:
        """The values this node reads: its inputs, and those of its nested regions'
        nodes and results (values of its own regions among them)."""
        found = list(self.inputs)
        for sub in self.regions():
            found += sub.results
            for inner in sub.nodes:
                found += inner.reads()
        return found


@dataclass
class Region:
    """A scheduled block: params, nodes in execution order, results."""

    params: list[Node] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    results: tuple[Node, ...] = ()
    # The user's variable per param (None for what conversion added): a loop body's, and
    # the function's arguments in its top region; and, for a loop body, how many
    # iterations ran unrolled while tracing before the loop became a graph loop.
    names: tuple[str | None, ...] = ()
    unrolled: int = 0
    # A loop body's variables that are no loop state (nothing after the loop reads them,
    # a for loop's target say): each name with the node giving its value per iteration
    # (a node of the body, or a param), for showing values (trace/graph_steps.py).
    variables: tuple[tuple[str, Node], ...] = ()
    # A loop body's variables that had no value before the loop (the graph carries a
    # placeholder in them until the body assigns them).
    undefined: frozenset[str] = frozenset()
    # The flags conversion added for a ``break``, ``continue`` or ``return``: a loop
    # body's by param position, a branch's by result position, each with that kind (the
    # views hide them: ``graph/scaffolding.py``).
    flags: dict[int, str] = field(default_factory=dict)

    def walk(self) -> list[Region]:
        """This region and every region nested in it, outermost first."""
        out = [self]
        for region in out:
            out += [sub for node in region.nodes for sub in node.regions()]
        return out


@dataclass(frozen=True)
class PassChange:
    """What one optimisation pass did to a graph: the calls and constants it took out
    (dead, merged into an equal one, computed while tracing) and those it put in (the
    constants folding computed)."""

    name: str
    removed: tuple[Node, ...]
    added: tuple[Node, ...]


@dataclass
class Graph:
    """A traced function: its top region plus how to map Python arguments to params.

    ``failed_node`` and the fields after ``flavors`` are annotations for showing a graph.
    A traced graph is cached and shared by later calls, so they stay empty on it: what a
    backend or a run learns is kept beside the graph (by its specialization and program)
    and attached to a copy, ``annotated(...)``, when the graph is asked for.
    """

    name: str
    body: Region
    in_tree: Any  # how the call's arguments flatten into params (see graph/pytree.py)
    out_tree: Any  # how results rebuild the returned Python structure
    failed_node: Node | None = None  # the node the last failing run raised in, if any
    # Arguments the function writes into (their positions among the params): the last
    # results before the effect token are their final values, in this order.
    writes: tuple[int, ...] = ()
    # Results whose Python type depends on the run (a Python int where the graph computes
    # a NumPy int64, after a loop that never ran...): (result, ((flag result, type), ...)).
    # Their flags are results after the function's own, before the writes; the first
    # flag that is true gives the type eager code returns.
    flavors: tuple[tuple[int, tuple[tuple[int, Any], ...]], ...] = ()
    # Each call of a user's helper made while tracing: ((its call site, the unrolled
    # iterations around it), its arguments by parameter name: nodes, or values known
    # while tracing), for showing the helper's frame when stepping through a run.
    calls: tuple[tuple[tuple[Any, tuple], tuple[tuple[str, Any], ...]], ...] = field(
        default=(), repr=False, compare=False
    )
    # Nodes the compiled backend runs in Python, and why (known once it has compiled).
    python_nodes: dict[Node, str] = field(default_factory=dict, repr=False, compare=False)
    # Updates the compiled backend makes by copying a whole array inside a loop, and why.
    copies: dict[Node, str] = field(default_factory=dict, repr=False, compare=False)
    # The operations the backend computes in one pass over the elements, group by group.
    fused: tuple[tuple[Node, ...], ...] = field(default=(), repr=False, compare=False)
    # Each node's value in one run, when asked for (``f.graph(..., inspect=True)``).
    values: dict[Node, Any] | None = field(default=None, repr=False, compare=False)
    # What the optimisation passes took out and put in (``graph/passes``), pass by pass,
    # and the graph as traced, before them (its nodes they took out: ``removed``).
    passes: tuple[PassChange, ...] = field(default=(), repr=False, compare=False)
    traced: Graph | None = field(default=None, repr=False, compare=False)
    removed: dict[Node, str] = field(default_factory=dict, repr=False, compare=False)
    # Which trace of its function made it, why, and what building it cost, a line each.
    trace: tuple[str, ...] = field(default=(), repr=False, compare=False)

    def own_results(self) -> tuple[Node, ...]:
        """The function's own results: not the flags of ``flavors``, the final values of
        written arguments or the effect token that follow them."""
        extra = 1 + len(self.writes) + sum(len(found) for _, found in self.flavors)
        return self.body.results[: len(self.body.results) - extra]

    def annotated(self, **annotations: Any) -> Graph:
        """A copy of this graph (the same nodes) carrying ``annotations``."""
        return dataclasses.replace(self, **annotations)

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
        return self.listing()

    def listing(self, everything: bool = False) -> str:
        """The text listing, one node per line; ``everything``: with what conversion
        added (the flags of break, continue and return, the effect token), which is left
        out by default as in the graph view."""
        return view("text")(self, everything=everything)

    def to_dot(self, **options: Any) -> Any:
        """The graph as a ``graphviz.Digraph`` (options: see ``nbgraph.viz.to_dot``)."""
        return view("dot")(self, **options)

    def widget(self, **options: Any) -> Any:
        """The interactive graph view (options: see ``nbgraph.viz.GraphWidget``)."""
        return view("graph widget")(self, **options)

    def passes_view(self, **options: Any) -> Any:
        """The graph as traced beside the graph as optimised, the operations the passes
        took out marked in the first (options: see ``nbgraph.viz.GraphWidget``)."""
        return view("passes view")(self, **options)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        """The interactive view in a notebook, an SVG where widgets do not run (exported
        HTML, GitHub), the text listing in a terminal."""
        return view("graph in a notebook")(self)
