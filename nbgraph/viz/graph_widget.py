"""The interactive graph view, an anywidget (so it runs in JupyterLab, Notebook 7, VS
Code and Colab alike).

The kernel lays the unfolded part of the graph out with Graphviz's ``dot`` and sends
the SVG; the browser draws it, folds and unfolds clusters, searches, and shows the
details of the node clicked.  The selection comes back to Python (``selected``) and,
in JupyterLab, the node's line is highlighted in its cell.  Where the kernel has no
``dot``, the browser lays the graph out itself with Graphviz compiled to WebAssembly
(bundled, and sent only then).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets
import traitlets
from IPython import get_ipython

from ..explain import graph_facts
from ..graph.ir import Graph, Node
from ..graph.passes import PIPELINE
from ..kernel import frontend
from .details import Details, node_sources
from .dot import NO_DOT, LayoutUnavailable, ViewFacts, has_dot, layout_svg, node_id, to_dot
from .families import FAMILIES
from .folding import VISIBLE_BUDGET

STATIC = Path(__file__).parent / "static"
# Graphviz compiled to WebAssembly (@hpcc-js/wasm-graphviz, see static/NOTICE).
BROWSER_GRAPHVIZ = STATIC / "wasm-graphviz.js"
ENGINES = ("kernel", "browser")
KEPT_LAYOUTS = 16  # recent layouts kept, so folding back and forth is instant
# The view's text for where widgets do not run lists a graph up to this many nodes (a
# larger listing takes a second and more to make, for a page nobody reads).
LISTED_NODES = 2000


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector: working out the view of a large graph
    makes many small objects and no cycles, and with the graph's own objects alive each
    full collection walks them all (half the time of a 20,000-node graph's view)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


class GraphWidget(anywidget.AnyWidget):
    """The graph view of one graph: ``GraphWidget(graph)`` or ``graph.widget()``.

    ``engine``: where the layout is made, ``"kernel"`` (Graphviz's ``dot``, the default
    when installed) or ``"browser"``.  ``budget``: how many nodes the first view shows
    at most before deeper clusters start folded.  ``selected`` is the listing name of
    the selected node (``"%7"``, or ``""``); set it to select a node from Python.
    """

    _esm = STATIC / "graph_widget.js"
    _css = STATIC / "graph_widget.css"

    title = traitlets.Unicode().tag(sync=True)
    engine = traitlets.Unicode("kernel").tag(sync=True)
    svg = traitlets.Unicode().tag(sync=True)  # the layout, when the kernel makes it
    dot = traitlets.Unicode().tag(sync=True)  # the drawing, when the browser lays it out
    layout_help = traitlets.Unicode().tag(sync=True)  # why the kernel cannot lay out
    # drawing id -> the node's entry in the index (details.py); the full records are
    # sent when the browser asks (a "details" message)
    nodes = traitlets.Dict().tag(sync=True)
    sources = traitlets.Dict().tag(sync=True)  # filename -> {line: text}
    families = traitlets.Dict().tag(sync=True)  # family -> [color, legend text]
    groups = traitlets.Dict().tag(sync=True)  # group cluster id -> {label, size, in}
    unfolded = traitlets.List(traitlets.Unicode()).tag(sync=True)  # ids of open clusters
    show_types = traitlets.Bool(True).tag(sync=True)
    show_values = traitlets.Bool(False).tag(sync=True)
    has_values = traitlets.Bool(False).tag(sync=True)
    show_fusion = traitlets.Bool(False).tag(sync=True)  # outline the fused groups
    has_fusion = traitlets.Bool(False).tag(sync=True)
    # Draw what conversion added (break/continue/return flags, the effect token).
    show_scaffolding = traitlets.Bool(False).tag(sync=True)
    selected = traitlets.Unicode().tag(sync=True)
    # What graph mode made of the graph (``nbgraph.explain``): {"trace": [lines],
    # "facts": [{"text": ..., "nodes": [drawing ids]}]}, for the explain panel.
    explanation = traitlets.Dict().tag(sync=True)

    @_collector_paused()
    def __init__(
        self,
        graph: Graph,
        *,
        engine: str | None = None,
        budget: int = VISIBLE_BUDGET,
        **kwargs: Any,
    ) -> None:
        if engine not in (None, *ENGINES):
            raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
        self.graph = graph
        self._facts = facts = ViewFacts(graph)
        self._details = details = Details(facts)
        nesting, ids = facts.nesting, facts.ids
        self._clusters = {ids[c]: c for c in nesting.clusters}
        kernel = engine == "kernel" or (engine is None and has_dot())
        super().__init__(
            title=f"graph {graph.name}",
            engine="kernel" if kernel else "browser",
            layout_help="" if kernel or engine == "browser" else NO_DOT,
            nodes=details.index(),
            groups=details.groups(),
            sources=node_sources(graph),
            families={name: list(style) for name, style in FAMILIES.items()},
            unfolded=[ids[c] for c in nesting.initial_unfolded(budget)],
            has_values=graph.values is not None,
            has_fusion=bool(graph.fused),
            show_values=graph.values is not None,
            explanation=explanation(graph, facts.ids),
            **kwargs,
        )
        self._layouts: dict[tuple, str] = {}
        self._draw()
        self.observe(
            self._draw,
            names=["unfolded", "show_types", "show_values", "show_fusion", "show_scaffolding"],
        )
        self.observe(self._select, names="selected")
        self.on_msg(self._message)
        shell = get_ipython()
        if getattr(shell, "kernel", None) is not None:
            frontend.install(shell)  # cell ids, for highlighting a node's line

    @property
    def selected_node(self) -> Node | None:
        """The selected node, or None."""
        return self._details.by_id.get(node_id(self.selected)) if self.selected else None

    def details(self, ident: str) -> dict[str, Any] | None:
        """The detail panel's record of the node drawn as ``ident`` (``"n7"``)."""
        return self._details.record(ident)

    @_collector_paused()
    def _draw(self, change: Any = None) -> None:
        """Draw the unfolded part again (lay it out, when the kernel does)."""
        unfolded = frozenset(self._clusters[i] for i in self.unfolded if i in self._clusters)
        drawing = to_dot(
            self.graph,
            unfolded,
            types=self.show_types,
            values=self.show_values,
            fusion=self.show_fusion,
            everything=self.show_scaffolding,
            facts=self._facts,
        )
        if self.engine == "browser":
            self.dot = drawing.source
            return
        key = (
            unfolded,
            self.show_types,
            self.show_values,
            self.show_fusion,
            self.show_scaffolding,
        )
        if key not in self._layouts:
            try:
                self._layouts[key] = layout_svg(drawing)
            except LayoutUnavailable:  # uninstalled since: the browser lays it out
                self.layout_help = NO_DOT
                self.engine = "browser"
                self.dot = drawing.source
                return
            while len(self._layouts) > KEPT_LAYOUTS:
                del self._layouts[next(iter(self._layouts))]
        self.svg = self._layouts[key]

    def _select(self, change: Any) -> None:
        node = self.selected_node
        if node is not None and node.loc is not None:
            frontend.highlight_line(node.loc.filename, node.loc.lineno, "node")
        else:
            frontend.clear_highlights("node")

    def _message(self, widget: Any, content: Any, buffers: Any) -> None:
        """Answer the browser: the records of the nodes it shows details of, or the
        browser's Graphviz."""
        kind = content.get("type") if isinstance(content, dict) else None
        if kind == "details":
            ids = [i for i in content.get("ids", ()) if isinstance(i, str)]
            records = {i: self.details(i) for i in ids}
            self.send({"type": "details", "nodes": {i: r for i, r in records.items() if r}})
        elif kind == "graphviz-module":
            self.send({"type": "graphviz-module", "source": BROWSER_GRAPHVIZ.read_text()})

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The widget, with the SVG for where widgets do not run (exported HTML, GitHub)
        and the text listing for terminals (of a large graph, its size)."""
        data, metadata = super()._repr_mimebundle_(**kwargs)
        nodes = len(self._details.by_id)
        data["text/plain"] = (
            str(self.graph)
            if nodes <= LISTED_NODES
            else f"graph {self.graph.name}: {nodes} nodes (print(graph) lists them)"
        )
        if self.engine == "kernel":
            data["image/svg+xml"] = self.svg
        return data, metadata


def explanation(graph: Graph, ids: dict[Any, str]) -> dict[str, Any]:
    """The explain panel's content: the graph's trace and ``graph_facts``, each fact
    with the drawing ids (``ids``, the view's) of the nodes it is about."""
    facts = [
        {"text": fact.text, "nodes": [ids[n] for n in fact.nodes if n in ids]}
        for fact in graph_facts(graph)
    ]
    return {"trace": list(graph.trace), "facts": facts}


def passes_view(graph: Graph, **options: Any) -> ipywidgets.HBox:
    """The graph as traced (each operation the passes took out marked with why) beside
    the graph as optimised: two graph views, side by side."""
    if graph.traced is None:
        raise ValueError(
            "this graph keeps no copy from before the optimisation passes; make it with "
            "f.graph(...) of a graph function"
        )
    before = GraphWidget(graph.traced, **options)
    after = GraphWidget(graph, **options)
    removed = len(graph.traced.removed)
    before.title = f"graph {graph.name} as traced ({removed} taken out by the passes)"
    after.title = f"graph {graph.name} after {', '.join(name for name, _ in PIPELINE)}"
    for view in (before, after):
        view.layout = ipywidgets.Layout(width="50%")
    return ipywidgets.HBox([before, after])


def mimebundle(graph: Graph) -> tuple[dict[str, Any], dict[str, Any]] | dict[str, Any]:
    """How a graph displays: the graph view in a kernel, else the text listing."""
    if getattr(get_ipython(), "kernel", None) is None:
        return {"text/plain": str(graph)}
    return GraphWidget(graph)._repr_mimebundle_()
