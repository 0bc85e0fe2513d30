"""f(args) -> ag__.converted_call(f, (args,), {kwargs}) so calls can be converted or
staged when they receive graph values."""

from __future__ import annotations

import ast

from ..context import Converter
from ..templates import replace_expr


def _is_internal(func: ast.expr) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "ag__"
    ) or (isinstance(func, ast.Name) and func.id == "super")


class CallConverter(Converter):
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.body = [self.visit(s) for s in node.body]  # decorators stay as they are
        node.body = [s for item in node.body for s in (item if isinstance(item, list) else [item])]
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        if _is_internal(node.func):
            return node
        args = ast.Tuple(elts=list(node.args), ctx=ast.Load())
        keys = [ast.Constant(value=k.arg) if k.arg else None for k in node.keywords]
        kwargs = ast.Dict(keys=keys, values=[k.value for k in node.keywords])
        for part in (args, kwargs):
            ast.copy_location(part, node)
        return replace_expr(
            "ag__.converted_call(f, args, kwargs)", node, f=node.func, args=args, kwargs=kwargs
        )
