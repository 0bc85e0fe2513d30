"""x.append(v) -> x = ag__.list_append(x, v): the list becomes a loop/branch variable."""

from __future__ import annotations

import ast

from ..context import ScopedConverter
from ..templates import replace


class ListConverter(ScopedConverter):
    def visit_Expr(self, node: ast.Expr) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        call = node.value
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "append"
            and isinstance(call.func.value, ast.Name)
            and len(call.args) == 1
            and not call.keywords
            and self.is_local(call.func.value.id)
        ):
            name = call.func.value.id
            return replace("x = ag__.list_append(x, item)", node, x=name, item=call.args[0])
        return node
