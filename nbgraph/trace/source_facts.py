"""What a function's source says about its lines, for stepping through its graph and
titling its loops: its returns, the names each line binds, its loops and their targets,
its ``x += v`` lines, its breaks, continues and returns; and which lines may have run
between two steps of a call."""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from collections.abc import Callable
from typing import Any, NamedTuple


class Facts(NamedTuple):
    """What a function's source says about its lines (nested functions left out)."""

    returns: tuple[int, ...] = ()  # the lines of its return statements
    binds: tuple[tuple[int, str], ...] = ()  # (line, name) of each name bound or deleted
    loops: dict[int, int] = {}  # each loop's first line -> its last
    augmented: frozenset[int] = frozenset()  # the lines of its x += v
    targets: dict[int, frozenset[str]] = {}  # a for loop's line -> the names it binds
    exits: tuple[tuple[int, str], ...] = ()  # (line, "break"/"continue"/"return")


_EXITS = {ast.Break: "break", ast.Continue: "continue", ast.Return: "return"}


@functools.lru_cache(maxsize=256)
def source_facts(code: Any) -> Facts:
    """The ``Facts`` of the function ``code`` is (or is converted from)."""
    try:
        lines, first = inspect.getsourcelines(code)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return Facts()
    function = tree.body[0] if tree.body else None
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return Facts()
    returns, binds, loops, augmented, targets, exits = set(), set(), {}, set(), {}, set()
    todo = list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        line = getattr(node, "lineno", 0) + first - 1
        if isinstance(node, ast.Return):
            returns.add(line)
        if isinstance(node, ast.Break | ast.Continue | ast.Return):
            exits.add((line, _EXITS[type(node)]))
        if isinstance(node, ast.For | ast.While):
            loops[line] = (node.end_lineno or node.lineno) + first - 1
        if isinstance(node, ast.AugAssign):
            augmented.add(line)
        if isinstance(node, ast.For):
            targets[line] = frozenset(_names(node.target))
        bound = (
            node.targets
            if isinstance(node, ast.Assign | ast.Delete)
            else [node.target]
            if isinstance(node, ast.AugAssign | ast.AnnAssign)
            else []
        )
        binds |= {(line, name) for target in bound for name in _names(target)}
        todo.extend(ast.iter_child_nodes(node))
    return Facts(
        tuple(sorted(returns)),
        tuple(sorted(binds)),
        loops,
        frozenset(augmented),
        targets,
        tuple(sorted(exits)),
    )


def _names(target: ast.expr) -> list[str]:
    """The names an assignment target binds (in tuples and lists too; not x[i], x.a)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List | ast.Starred):
        return [name for part in ast.iter_child_nodes(target) for name in _names(part)]
    return []


def passed_lines(code: Any, previous: int, lineno: int) -> Callable[[int], bool]:
    """Whether a line may have run between a frame's step at ``previous`` and its next
    at ``lineno``: the lines between them, or, going back (a loop's next iteration),
    the rest of the innermost loop holding both and its lines before ``lineno``."""
    if previous <= lineno:
        return lambda line: previous <= line < lineno
    loops = [
        (first, last)
        for first, last in source_facts(code).loops.items()
        if first <= lineno and previous <= last
    ]
    if not loops:
        return lambda line: line > lineno
    first, last = max(loops)  # (the innermost: it starts last)
    return lambda line: previous <= line <= last or first <= line < lineno


def return_line(code: Any, latest: int) -> int:
    """The line a call of ``code`` whose latest step was at ``latest`` returns from:
    ``latest`` if that is a ``return``, else the first ``return`` after it (one without
    operations of its own; after the loop, where ``latest`` is a loop's line), else
    ``latest``."""
    facts = source_facts(code)
    end = facts.loops.get(latest, latest)  # (at a loop's line: its body is not run)
    after = [line for line in facts.returns if line == latest or line > end]
    return after[0] if after else latest
