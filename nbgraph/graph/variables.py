"""The user's variable each operation's value was assigned to, read from the source.

A statement such as ``members = points[labels == k]`` traces to a few operations on its
line, or on a helper's lines when it calls one; the last of them in its region (for one
run of the line: one helper call, one unrolled iteration) computes the value the name
gets.  The listing and the graph view label that operation with the name, and the view's
search finds it.  Lines that are not one simple assignment of one name (tuple targets,
several statements, a statement over several lines) name nothing.
"""

from __future__ import annotations

import ast
import functools
import linecache

from .ir import Graph, Node, Op


def assigned_variables(graph: Graph) -> dict[Node, str]:
    """Each operation whose value a line of the user's code assigns to a name, with it."""
    found: dict[Node, tuple[int, str]] = {}  # the innermost line's name wins
    for region in graph.body.walk():
        calls = [n for n in region.nodes if n.op is Op.CALL and n.loc and not n.loc.gradient]
        # A helper's operations also compute the line that called it; that line's run
        # is told by the unrolled loops around it, which all its operations are in.
        shared: dict[tuple, int] = {}
        for node in calls:
            for loc in node.loc.stack():
                line = (loc.filename, loc.lineno, loc.caller)
                shared[line] = min(shared.get(line, 1 << 30), len(node.loc.unrolled))
        last: dict[tuple, tuple[Node, int]] = {}
        for node in calls:
            for depth, loc in enumerate(node.loc.stack()):
                line = (loc.filename, loc.lineno, loc.caller)
                last[(*line, node.loc.unrolled[: shared[line]])] = (node, depth)
        for (filename, lineno, *_), (node, depth) in last.items():
            name = assigned_name(linecache.getline(filename, lineno))
            if name is not None and depth >= found.get(node, (-1, ""))[0]:
                found[node] = (depth, name)
    return {node: name for node, (_, name) in found.items()}


@functools.lru_cache(maxsize=4096)
def assigned_name(line: str) -> str | None:
    """The name a one-line statement assigns (``x = ...``, ``x += ...``, ``x: T = ...``)."""
    try:
        (statement,) = ast.parse(line.strip()).body
    except (SyntaxError, ValueError):
        return None
    target = None
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, ast.AugAssign) or (
        isinstance(statement, ast.AnnAssign) and statement.value is not None
    ):
        target = statement.target
    return target.id if isinstance(target, ast.Name) else None
