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

from collections.abc import Iterator
from dataclasses import dataclass, field

from .api import GraphFunction, Trace
from .backend import Program
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
        build = ", ".join(f"{stage} {seconds:.3f} s" for stage, seconds in trace.build.items())
        report.lines.append(f"  trace {k} {trace.signature}: {trace.reason}")
        report.lines.append(f"    built in {sum(trace.build.values()):.3f} s ({build})")
        compiled = getattr(trace.entry.program, "functions_compiled", None)
        after = getattr(trace.entry.program, "background_s", None)
        if after is not None:
            done = (
                f"Numba then compiled {compiled} functions"
                if compiled
                else "then loaded from the disk cache: nothing compiled"
            )
            report.lines.append(
                f"    first call ran on the interpreter; {done} ({after:.3f} s after it)"
            )
        elif compiled == 0:
            report.lines.append("    loaded from the disk cache: nothing compiled")
        elif compiled:
            report.lines.append(f"    Numba compiled {compiled} functions (not in the disk cache)")
    newest = fn.traces[-1].entry
    report.lines.append(f"in trace {count}:")
    report.lines += [f"  {line}" for line in _graph_facts(newest.graph, newest.program)]
    return report


def _graph_facts(graph: Graph, program: Program) -> Iterator[str]:
    unrolled: dict[int, int] = {}
    for node in graph.all_nodes():
        for line, iteration in node.loc.unrolled if node.loc else ():
            unrolled[line] = max(unrolled.get(line, 0), iteration + 1)
    for line, iterations in sorted(unrolled.items()):
        yield (
            f"line {line}: a Python loop ran {iterations} times while tracing, unrolled into "
            "the graph (its bounds were Python values, not graph values)"
        )
    loops = _loop_lines(graph.body)
    for node, reason in program.python_nodes.items():
        where = loops.get(node)
        per = f", inside the graph loop at line {where}: once per iteration" if where else ""
        yield f"line {_line(node)}: {node.label()} runs in Python{per} ({reason})"
    for node, reason in program.copies.items():
        yield f"line {_line(node)}: {node.label()} copies an array inside a loop ({reason})"
    if not unrolled and not program.python_nodes:
        yield "no Python loops unrolled, no nodes run in Python"
    for lines, members in sorted(
        ((sorted({m.loc.lineno for m in members if m.loc}), members) for members in program.fused),
        key=lambda item: item[0],
    ):
        where = f"line {lines[0]}" if len(lines) == 1 else f"lines {', '.join(map(str, lines))}"
        names = ", ".join(m.label() for m in members)
        yield f"{where}: {len(members)} operations fused into one pass over the elements ({names})"


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
