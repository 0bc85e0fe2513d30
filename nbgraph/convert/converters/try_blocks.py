"""try: ... except: -> the try body runs inside ag__.try_block(line): graph operations
there are reported, because their errors happen when the graph runs, after the except
clause is gone. try: ... finally: -> the body runs inside ag__.finally_block(): a raise
there happens while tracing, so the finally clause is traced before the raise."""

from __future__ import annotations

import ast

from ..context import Converter
from ..templates import replace


class TryConverter(Converter):
    def visit_Try(self, node: ast.Try) -> ast.AST:
        self.generic_visit(node)
        if node.handlers:
            node.body = replace(
                "with ag__.try_block(line):\n    body",
                node,
                line=ast.Constant(value=node.lineno),
                body=node.body,
            )
        elif node.finalbody:
            node.body = replace("with ag__.finally_block():\n    body", node, body=node.body)
        return node
