"""continue -> set a flag; the rest of the loop body runs only while it is unset."""

from __future__ import annotations

import ast

from ...staging.control_flow import CONTINUE_FLAG
from ..analysis import contains
from ..context import Converter
from ..templates import replace
from .exits import replace_exits


class ContinueConverter(Converter):
    def _convert(self, node: ast.While | ast.For) -> ast.AST:
        self.generic_visit(node)
        if not contains(node.body, ast.Continue, stop_at_loops=True):
            return node
        flag = self.namer.new(CONTINUE_FLAG)

        def make(stmt: ast.stmt) -> list[ast.stmt]:
            return replace("flag = True", stmt, flag=flag)

        body = replace_exits(node.body, ast.Continue, make, flag, into_loops=False)
        node.body = replace("flag = False", node, flag=flag) + body
        return node

    visit_While = visit_For = _convert
