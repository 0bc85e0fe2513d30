"""The one frame between a user's call of a graph function and the graph's error.

Python adds a traceback entry for every frame an exception passes, so the function a
user calls cannot live in nbgraph's files without showing up in every error.  Instead
each graph function gets its own entry point compiled with the user's file name and
placed at the first line of their definition (decorator included), with every
instruction at that line: a traceback reads ``File "model.py", line 3, in step`` /
``@nbgraph.function``, then the failing line below it.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from ..source.origins import register_machinery

# Raised after the except clause, so that the error's context is what ``mapped`` leaves
# (none shown, or the compiled backend's own exception with NBGRAPH_TRACEBACK=full).
_TEMPLATE = """\
def entry(*args, **kwargs):
    try:
        return call(args, kwargs)
    except BaseException as exc:
        error = mapped(exc)
    raise error
"""

# Python 3.11 location table entry: 0x80 | code << 3 | (code units - 1); code 13 is
# "line only" followed by the signed line delta (0 here), so no columns, no carets.
_LINE_ONLY = 13


def _same_line_table(code_units: int) -> bytes:
    table = bytearray()
    while code_units > 0:
        run = min(code_units, 8)
        table += bytes((0x80 | _LINE_ONLY << 3 | (run - 1), 0))
        code_units -= run
    return bytes(table)


def entry_point(
    fn: Callable,
    call: Callable[[tuple, dict], Any],
    mapped: Callable[[BaseException], BaseException],
) -> Callable:
    """``entry(*args, **kwargs) = call(args, kwargs)``, whose exceptions are replaced by
    ``mapped(exc)``, with its frame at ``fn``'s first line in ``fn``'s file."""
    user = fn.__code__
    code = compile(_TEMPLATE, user.co_filename, "exec")
    body = next(c for c in code.co_consts if hasattr(c, "co_code"))
    body = body.replace(
        co_firstlineno=user.co_firstlineno,
        co_name=fn.__name__,
        co_qualname=fn.__qualname__,
        co_linetable=_same_line_table(len(body.co_code) // 2),
    )
    register_machinery(body)
    namespace = {"call": call, "mapped": mapped}
    return types.FunctionType(body, namespace, fn.__name__)
