"""return inside control flow -> set ``do_return``/``retval``; return once at the end."""

from __future__ import annotations

import ast

from ..analysis import walk_scope
from ..context import Converter, is_generated
from ..templates import replace
from .exits import replace_exits


def _needs_conversion(fn: ast.FunctionDef) -> bool:
    """Whether a return sits inside a compound statement (else Python's return is fine)."""
    for stmt in fn.body:
        if isinstance(stmt, ast.Return):
            continue
        if any(isinstance(n, ast.Return) for n in walk_scope([stmt])):
            return True
    return False


class _CheckedReturns(ast.NodeTransformer):
    """return x -> return ag__.retval(x): an undefined x is reported at this line."""

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node  # nested functions are handled on their own

    visit_Lambda = visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Return(self, node: ast.Return) -> ast.AST:
        if node.value is None:
            return node
        return replace("return ag__.retval(value)", node, value=node.value)[0]


class ReturnConverter(Converter):
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.generic_visit(node)
        if is_generated(node):
            return node
        if not _needs_conversion(node):
            node.body = [_CheckedReturns().visit(stmt) for stmt in node.body]
            return node
        flag, value = self.namer.new("do_return"), self.namer.new("retval")

        def make(stmt: ast.Return) -> list[ast.stmt]:
            result = stmt.value or ast.Constant(value=None)
            return replace("flag = True\nvalue = result", stmt, flag=flag, value=value,
                           result=result)

        body = replace_exits(node.body, ast.Return, make, flag, into_loops=True)
        node.body = [
            *replace("flag = False\nvalue = ag__.UndefinedReturn()", node, flag=flag,
                     value=value),
            *body,
            *replace("return ag__.retval(value)", node, value=value),
        ]
        return node
