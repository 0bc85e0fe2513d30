"""return inside control flow -> set ``do_return``/``retval``; return once at the end."""

from __future__ import annotations

import ast

from ...staging.control_flow import RETURN_FLAG
from ..analysis import always_exits, contains, walk_scope
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
        flag, value = self.namer.new(RETURN_FLAG), self.namer.new("retval")

        def make(stmt: ast.Return) -> list[ast.stmt]:
            result = stmt.value or ast.Constant(value=None)
            # The value first: if computing it raises (and an except clause catches the
            # error), no return has happened.
            return replace(
                "value = result\nflag = True", stmt, flag=flag, value=value, result=result
            )

        # Falling off the end returns None: the result must say whether a return ran.
        end = (
            "return ag__.retval(value)"
            if always_exits(node.body)
            else "return ag__.retval(value, flag, line)"
        )
        last_line = node.body[-1].end_lineno
        self._restore_after_finally(node, flag, value)
        body = replace_exits(node.body, ast.Return, make, flag, into_loops=True)
        node.body = [
            *replace("flag = False\nvalue = ag__.UndefinedReturn()", node, flag=flag, value=value),
            *body,
            *replace(end, node, value=value, flag=flag, line=ast.Constant(value=last_line)),
        ]
        return node

    def _restore_after_finally(self, node: ast.FunctionDef, flag: str, value: str) -> None:
        """A finally clause runs whether or not its try returned, and a return in it wins:
        it runs with the flag cleared, and the try's return is restored if it did not
        return itself."""
        for stmt in walk_scope(node.body):
            if not (
                isinstance(stmt, ast.Try)
                and contains(stmt.finalbody, ast.Return, stop_at_loops=False)
            ):
                continue
            saved_flag, saved_value = self.namer.new("flag_before"), self.namer.new("value_before")
            stmt.finalbody = replace(
                "saved_flag = flag\nsaved_value = value\nflag = False\nfinal\n"
                "if not flag:\n    flag = saved_flag\n    value = saved_value",
                stmt.finalbody[0],
                flag=flag,
                value=value,
                saved_flag=saved_flag,
                saved_value=saved_value,
                final=stmt.finalbody,
            )
