"""The user's source behind graph nodes: where a node came from, and the lines around it.

Notebook cells are named as IPython names them in tracebacks ("Cell In[3]"); their
text, like a file's, comes from ``linecache``, where IPython registers every cell.
"""

from __future__ import annotations

import linecache
from collections.abc import Collection, Iterable

from ..errors.exceptions import source_name
from ..source.locations import Loc
from ..trace.graph_places import code_of
from ..trace.source_facts import source_facts

CONTEXT_LINES = 2  # lines shown above and below a node's line


def location_text(loc: Loc) -> str:
    """'Cell In[3], line 7, in f' (or the file's name for a file); a gradient node's
    says it is the gradient of that line."""
    where = f"{source_name(loc.filename)}, line {loc.lineno}"
    where = f"gradient of {where}" if loc.gradient else where
    return f"{where}, in {loc.function}" if loc.function else where


def source_lines(locations: Iterable[Loc]) -> dict[str, dict[str, str]]:
    """Each file's lines around the given locations: {filename: {lineno: text}}."""
    out: dict[str, dict[str, str]] = {}
    for loc in locations:
        lines = linecache.getlines(loc.filename)
        if not lines:
            continue
        kept = out.setdefault(loc.filename, {})
        for lineno in range(
            max(1, loc.lineno - CONTEXT_LINES), min(len(lines), loc.lineno + CONTEXT_LINES) + 1
        ):
            kept[str(lineno)] = lines[lineno - 1].rstrip("\n")
    return out


def loop_exits(loc: Loc | None, kinds: Collection[str]) -> list[tuple[str, int]]:
    """The statements of ``kinds`` ("break", "continue", "return") that leave the loop
    whose line ``loc`` is, from its function's source, in line order (a break or
    continue in a loop inside it leaves that loop)."""
    if loc is None or not kinds:
        return []
    facts = source_facts(code_of(loc))
    last = facts.loops.get(loc.lineno)
    if last is None:
        return []

    def innermost(line: int) -> int:
        return max(first for first, end in facts.loops.items() if first < line <= end)

    return [
        (kind, line)
        for line, kind in facts.exits
        if kind in kinds
        and loc.lineno < line <= last
        and (kind == "return" or innermost(line) == loc.lineno)
    ]
