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
from .types import PYTHON, TOKEN, TensorType


def assigned_variables(graph: Graph) -> dict[Node, str]:
    """Each operation whose value a line of the user's code assigns to a name, with it
    (the innermost line's name, where a helper's line and its caller's both do)."""
    return {node: max(named)[1] for node, named in assignments(graph).items()}


def assignments(graph: Graph) -> dict[Node, list[tuple[int, str]]]:
    """Each operation whose value lines assign to names: per line, its depth in the
    operation's call stack (0: the graph function's own line) and the name."""
    found: dict[Node, list[tuple[int, str]]] = {}
    for region in graph.body.walk():
        # The operations a line's value can come from: calls (not effects such as a
        # print), and the results of a graph branch (``a if c else b``).
        calls = [
            n
            for n in region.nodes
            if n.loc
            and not n.loc.gradient
            and n.type is not TOKEN
            and (n.op is Op.CALL or (n.op is Op.PROJ and n.inputs[0].op is Op.COND))
        ]
        # A helper's operations also compute the line that called it.
        lines = [
            (n, [(loc.filename, loc.lineno, loc.caller) for loc in n.loc.stack()]) for n in calls
        ]
        made: dict[tuple, list[tuple[Node, int]]] = {}  # each run of a line: its operations
        for node, runs in unrolled_runs(lines):
            for depth, run in enumerate(runs):
                made.setdefault(run, []).append((node, depth))
        # A loop body's variables: the value the body passes on is the one assigned.
        passed = {n: r for n, r in zip(region.names, region.results) if n is not None}
        for ((filename, lineno, _), _), operations in made.items():
            text = linecache.getline(filename, lineno)
            name = assigned_name(text)
            if name is None:
                continue
            result = passed.get(name)
            if result is not None and result.loc is not None and result.loc.lineno == lineno:
                found.setdefault(result, []).append((operations[-1][1], name))
                continue
            value = _value_of(operations, assigned_span(text))
            if value is not None:
                found.setdefault(value[0], []).append((value[1], name))
    return found


def _value_of(
    operations: list[tuple[Node, int]], span: tuple[str, int, int | None] | None
) -> tuple[Node, int] | None:
    """Which of a line's operations (each with its depth) computes the value the line
    assigns: for ``name = value``, the last one made at ``value``'s columns (none
    where ``value`` made no operation of its own: ``y = x``, or one optimised away),
    else the last one; the Python bool that may follow it at those columns (whether
    ``max`` picked a Python number) is not the value."""
    if span is not None:
        operations = [(n, d) for n, d in operations if _columns(n, d) == span[1:]]
    if not operations:
        return None
    values = [op for op in operations if not _python_bool(op[0])]
    return (values or operations)[-1]


def _columns(node: Node, depth: int) -> tuple[int, int | None]:
    """The columns of the expression that made ``node``, at ``depth`` of its stack."""
    loc = node.loc.stack()[depth]
    return loc.col, loc.end_col


def _python_bool(node: Node) -> bool:
    t = node.type
    return isinstance(t, TensorType) and t.flavor == PYTHON and t.dtype == bool


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
def assigned_span(line: str) -> tuple[str, int, int | None] | None:
    """The name ``name = value`` on a line assigns, with the columns of ``value`` in the
    line (where the statement is one such assignment, on that one line)."""
    try:
        (statement,) = ast.parse(line.strip()).body
    except (SyntaxError, ValueError):
        return None
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        return None
    indent = len(line.encode()) - len(line.lstrip().encode())
    value = statement.value
    end = None if value.end_col_offset is None else value.end_col_offset + indent
    return statement.targets[0].id, value.col_offset + indent, end


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
    if isinstance(getattr(statement, "value", None), _CONTAINERS):
        return None  # (its items are operations; no operation is the whole value)
    return target.id if isinstance(target, ast.Name) else None


_CONTAINERS = (
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.Dict,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)
