"""Source of a user function as an AST whose locations are the real file's.

Works for files and notebook cells alike: IPython registers each cell's source in
linecache under the file name the cell's code objects carry.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from collections.abc import Callable

from ..errors.exceptions import ConversionError
from ..source.locations import Loc


def _source_lines(fn: Callable) -> tuple[list[str], int]:
    code = fn.__code__
    try:
        return inspect.getsourcelines(fn)
    except (OSError, TypeError):
        lines = linecache.getlines(code.co_filename)
        if not lines:
            raise ConversionError(
                f"cannot read the source of {fn.__qualname__} (defined in {code.co_filename}); "
                "graph mode converts source code, so define the function in a file or a "
                "notebook cell",
                Loc(code.co_filename, code.co_firstlineno),
            ) from None
        return inspect.getblock(lines[code.co_firstlineno - 1 :]), code.co_firstlineno


def parse_function(fn: Callable) -> ast.FunctionDef | ast.Lambda:
    """The function's definition, with file line numbers and columns."""
    lines, start = _source_lines(fn)
    source = "".join(lines)
    dedented = textwrap.dedent(source)
    indent = len(source.splitlines()[0]) - len(dedented.splitlines()[0]) if source else 0
    try:
        tree = ast.parse(dedented)
    except SyntaxError:
        tree = None
    if tree is None or fn.__name__ == "<lambda>":
        return _find_lambda(fn, lines, start)
    ast.increment_lineno(tree, start - 1)
    for node in ast.walk(tree):
        if hasattr(node, "col_offset"):
            node.col_offset += indent
            if getattr(node, "end_col_offset", None) is not None:
                node.end_col_offset += indent
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if isinstance(node, ast.AsyncFunctionDef):
                raise ConversionError(
                    f"{fn.__name__} is async; graph mode cannot convert it",
                    Loc(fn.__code__.co_filename, node.lineno),
                )
            return node
    raise ConversionError(
        f"cannot find the definition of {fn.__qualname__} in its source",
        Loc(fn.__code__.co_filename, start),
    )


def _find_lambda(fn: Callable, lines: list[str], start: int) -> ast.Lambda:
    """The lambda expression among the source lines that matches fn's parameters."""
    code = fn.__code__
    params = list(code.co_varnames[: code.co_argcount])
    text = "".join(lines).strip()
    for candidate in (text, text.rstrip(",)"), "(" + text + ")"):
        try:
            tree = ast.parse(textwrap.dedent(candidate))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Lambda) and [a.arg for a in node.args.args] == params:
                ast.increment_lineno(node, start - 1)
                return node
    raise ConversionError(
        f"cannot find the source of the lambda at line {start}", Loc(code.co_filename, start)
    )
