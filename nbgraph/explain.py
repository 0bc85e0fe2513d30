"""``nbgraph.explain(f)``: what graph mode made of a function, one line per fact.

Every trace with why it was made (the first call; which argument changed type, by name,
with the old and new types; which static value changed; which helper was redefined) and
what its build cost per stage; then, for the newest trace, the Python loops that ran
while tracing (unrolled into the graph), the nodes the backend runs in Python (and
whether a graph loop runs them once per iteration), and the array copies it makes inside
loops, each at the user's line with the backend's reason; the operations the backend
fused into one pass over the elements; and whether the build compiled or loaded from
the disk cache.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .api import GraphFunction, Trace
from .graph.ir import Graph, Node, Op, Region


@dataclass
class Explanation:
    """``explain``'s report: ``lines`` of text (its repr), and the traces it read."""

    name: str
    traces: list[Trace]
    lines: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return "\n".join(self.lines)

    def _repr_markdown_(self) -> str:
        return "```\n" + repr(self) + "\n```"


def explain(fn: GraphFunction) -> Explanation:
    """Report how graph mode handled ``fn`` so far (see the module docstring)."""
    if not isinstance(fn, GraphFunction):
        raise TypeError(
            f"nbgraph.explain needs a graph function (nbgraph.function or %%autograph), "
            f"got {type(fn).__name__}"
        )
    report = Explanation(fn.__name__, list(fn.traces))
    count = len(fn.traces)
    if not count:
        report.lines.append(f"{fn.__name__} (backend {fn.backend}) has not been traced yet")
        return report
    plural = "s" if count > 1 else ""
    report.lines.append(f"{fn.__name__} (backend {fn.backend}): {count} trace{plural}")
    for k, trace in enumerate(fn.traces, 1):
        first, *rest = trace.summary()
        report.lines.append(f"  trace {k} {first}")
        report.lines += [f"    {line}" for line in rest]
    report.lines.append(f"in trace {count}:")
    report.lines += [
        f"  {fact.text}" for fact in graph_facts(fn.traces[-1].entry.annotated_graph())
    ]
    return report


@dataclass(frozen=True)
class Fact:
    """One line of what graph mode made of a graph, and the nodes it is about (the graph
    view selects them)."""

    text: str
    nodes: tuple[Node, ...] = ()


def graph_facts(graph: Graph) -> list[Fact]:
    """The Python loops unrolled into ``graph`` while tracing, the nodes its backend runs
    in Python (and whether a graph loop runs them once per iteration), its copies inside
    loops, its fused groups (an annotated graph: ``f.graph(...)``), and what the
    optimisation passes took out."""
    facts = []
    unrolled: dict[int, list[Node]] = {}  # a loop's line -> the nodes it made
    runs: dict[int, dict[tuple, int]] = {}  # -> each run of it (the iterations around it):
    for node in graph.all_nodes():  # the iterations (from 1) it made nodes in, at most
        around = node.loc.unrolled if node.loc else ()
        for depth, (line, iteration) in enumerate(around):
            unrolled.setdefault(line, []).append(node)
            run = runs.setdefault(line, {})
            run[around[:depth]] = max(run.get(around[:depth], 0), iteration)
    for line, nodes in sorted(unrolled.items()):
        facts.append(
            Fact(
                f"line {line}: a Python loop ran {sum(runs[line].values())} times while "
                "tracing, unrolled into the graph (its bounds were Python values, not graph "
                "values)",
                tuple(nodes),
            )
        )
    loops = _loop_lines(graph.body)
    for node, reason in graph.python_nodes.items():
        where = loops.get(node)
        per = f", inside the graph loop at line {where}: once per iteration" if where else ""
        facts.append(
            Fact(f"line {_line(node)}: {node.label()} runs in Python{per} ({reason})", (node,))
        )
    for node, reason in graph.copies.items():
        facts.append(
            Fact(
                f"line {_line(node)}: {node.label()} copies an array inside a loop ({reason})",
                (node,),
            )
        )
    if not unrolled and not graph.python_nodes:
        facts.append(Fact("no Python loops unrolled, no nodes run in Python"))
    passes: dict[tuple[tuple[int, ...], str], list[Node]] = {}  # alike groups (one per call
    counts: dict[tuple[tuple[int, ...], str], int] = {}  # or unrolled iteration) together
    for members in graph.fused:
        lines = tuple(sorted({m.loc.lineno for m in members if m.loc}))
        key = (lines, ", ".join(m.label() for m in members))
        passes.setdefault(key, []).extend(members)
        counts[key] = counts.get(key, 0) + 1
    for (lines, names), members in sorted(passes.items(), key=lambda item: item[0]):
        where = f"line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines)) or '?'}"
        size = len(members) // counts[(lines, names)]
        times = f", {counts[(lines, names)]} times" if counts[(lines, names)] > 1 else ""
        text = f"{where}: {size} operations fused into one pass over the elements ({names}){times}"
        facts.append(Fact(text, tuple(members)))
    facts += _pass_facts(graph)
    return facts


# What each optimisation pass did to the operations it took out.
_PASSES = {
    "dce": "removed {n} operation{s} whose values nothing uses",
    "cse": "merged {n} operation{s} into an equal one computed before",
    "fold": "computed {n} operation{s} on constants while building the graph",
}


def _pass_facts(graph: Graph) -> list[Fact]:
    """What the optimisation passes took out of the traced graph, pass by pass, with
    the operations (and lines) each took out; a fact is about the constants a pass
    put in, which the graph still has."""
    facts = []
    for change in graph.passes:
        calls = [m for m in change.removed if m.op is Op.CALL]  # (not dead constants)
        if not calls:
            continue
        n = len(calls)
        what = _PASSES.get(change.name, "removed {n} operation{s}").format(
            n=n, s="s" if n > 1 else ""
        )
        taken = ", ".join(f"{m.label()} at line {_line(m)}" for m in calls[:8])
        more = f" and {n - 8} more" if n > 8 else ""
        facts.append(Fact(f"pass {change.name}: {what} ({taken}{more})", change.added))
    return facts


def _loop_lines(region: Region, line: int | None = None) -> dict[Node, int]:
    """The line of the innermost graph loop around each node (nodes in no loop: absent)."""
    found: dict[Node, int] = {}
    for node in region.nodes:
        if line is not None:
            found[node] = line
        inner = _line(node) if node.op is Op.WHILE else line
        for sub in node.regions():
            found.update(_loop_lines(sub, inner))
    return found


def _line(node: Node) -> int | str:
    return node.loc.lineno if node.loc else "?"
