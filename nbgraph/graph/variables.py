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
from collections.abc import Hashable, Sequence

from .ir import Graph, Node, Op


def assigned_variables(graph: Graph) -> dict[Node, str]:
    """Each operation whose value a line of the user's code assigns to a name, with it."""
    found: dict[Node, tuple[int, str]] = {}  # the innermost line's name wins
    for region in graph.body.walk():
        calls = [n for n in region.nodes if n.op is Op.CALL and n.loc and not n.loc.gradient]
        # A helper's operations also compute the line that called it.
        lines = [
            (n, [(loc.filename, loc.lineno, loc.caller) for loc in n.loc.stack()]) for n in calls
        ]
        last: dict[tuple, tuple[Node, int]] = {}
        for node, runs in unrolled_runs(lines):
            for depth, run in enumerate(runs):
                last[run] = (node, depth)
        for ((filename, lineno, _), _), (node, depth) in last.items():
            name = assigned_name(linecache.getline(filename, lineno))
            if name is not None and depth >= found.get(node, (-1, ""))[0]:
                found[node] = (depth, name)
    return {node: name for node, (_, name) in found.items()}


def unrolled_runs(
    keyed: Sequence[tuple[Node, Sequence[Hashable]]],
) -> list[tuple[Node, list[tuple]]]:
    """Each node with its keys (a line, a call site: what made it) made into runs: the
    key and the iterations of the loops unrolled while tracing that every node with
    that key is inside.  A caller's location carries no iterations, so this is how the
    calls one line makes in each unrolled iteration are told apart."""
    shared: dict[Hashable, int] = {}
    for node, keys in keyed:
        depth = len(node.loc.unrolled) if node.loc else 0
        for key in keys:
            shared[key] = min(shared.get(key, depth), depth)
    return [
        (node, [(key, node.loc.unrolled[: shared[key]] if node.loc else ()) for key in keys])
        for node, keys in keyed
    ]


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
