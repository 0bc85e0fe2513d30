"""Shared by break/continue/return: replace an exit statement by setting a flag, and
guard the statements after it with ``if not flag:`` (AutoGraph's approach)."""

from __future__ import annotations

import ast
from collections.abc import Callable

from ..analysis import LOOPS, contains
from ..context import exit_flags
from ..templates import replace

BLOCKS = ("body", "orelse", "finalbody")  # a statement's statement lists


def replace_exits(
    block: list[ast.stmt],
    kind: type,
    make: Callable[[ast.stmt], list[ast.stmt]],
    flag: str,
    into_loops: bool,
) -> list[ast.stmt]:
    """Rewrite ``block`` so each ``kind`` statement sets ``flag`` instead."""
    out: list[ast.stmt] = []
    for index, stmt in enumerate(block):
        if isinstance(stmt, kind):
            out.extend(make(stmt))
            return out  # the rest of the block is unreachable
        if not contains([stmt], kind, stop_at_loops=not into_loops):
            out.append(stmt)
            continue
        if isinstance(stmt, LOOPS):
            exit_flags(stmt).append(flag)
        exits_in_try = isinstance(stmt, ast.Try) and contains(
            stmt.body, kind, stop_at_loops=not into_loops
        )
        for field in BLOCKS:
            inner = getattr(stmt, field, None)
            if inner and not (isinstance(stmt, LOOPS) and field == "orelse"):
                setattr(stmt, field, replace_exits(inner, kind, make, flag, into_loops))
        if isinstance(stmt, ast.Try):
            for handler in stmt.handlers:
                handler.body = replace_exits(handler.body, kind, make, flag, into_loops)
            if stmt.orelse and exits_in_try:
                # else runs only if the try body ran to its end
                stmt.orelse = replace(
                    "if not flag:\n    rest", stmt.orelse[0], flag=flag, rest=stmt.orelse
                )
        out.append(stmt)
        rest = block[index + 1 :]
        if rest:
            guarded = replace_exits(rest, kind, make, flag, into_loops)
            out.extend(replace("if not flag:\n    rest", stmt, flag=flag, rest=guarded))
        return out
    return out
