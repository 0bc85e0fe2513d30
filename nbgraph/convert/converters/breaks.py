"""break -> set a flag that also ends the loop; ``else:`` runs only if it is unset."""

from __future__ import annotations

import ast

from ...staging.control_flow import BREAK_FLAG
from ..analysis import contains
from ..context import Converter, exit_flags
from ..templates import replace
from .exits import replace_exits


class BreakConverter(Converter):
    def _convert(self, node: ast.While | ast.For) -> ast.AST | list[ast.AST]:
        self.generic_visit(node)
        if not contains(node.body, ast.Break, stop_at_loops=True):
            return node
        flag = self.namer.new(BREAK_FLAG)

        def make(stmt: ast.stmt) -> list[ast.stmt]:
            return replace("flag = True", stmt, flag=flag)

        node.body = replace_exits(node.body, ast.Break, make, flag, into_loops=False)
        exit_flags(node).append(flag)
        after: list[ast.stmt] = []
        if node.orelse:
            after = replace("if not flag:\n    orelse", node, flag=flag, orelse=node.orelse)
            node.orelse = []
        return [*replace("flag = False", node, flag=flag), node, *after]

    visit_While = visit_For = _convert
