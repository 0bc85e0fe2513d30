"""raise E(...) -> ag__.raise_stmt(E(...)): raised when the graph reaches it."""

from __future__ import annotations

import ast

from ..context import Converter
from ..templates import replace


class RaiseConverter(Converter):
    def visit_Raise(self, node: ast.Raise) -> ast.AST | list[ast.stmt]:
        if node.exc is None or node.cause is not None:
            return node
        return replace("ag__.raise_stmt(exc)", node, exc=node.exc)
