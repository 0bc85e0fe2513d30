"""with m as v: ... -> with ag__.managed(m, line) as v: ...: the manager is entered as
eagerly, but one that may swallow an exception (``contextlib.suppress``) refuses graph
operations in its block, whose errors happen when the graph runs, after the block is
gone; and no manager swallows a refusal of graph mode (see ``staging.tracing``)."""

from __future__ import annotations

import ast

from ..context import Converter
from ..templates import replace_expr


class WithConverter(Converter):
    def visit_With(self, node: ast.With) -> ast.With:
        self.generic_visit(node)
        for item in node.items:
            item.context_expr = replace_expr(
                "ag__.managed(manager, line)",
                item.context_expr,
                manager=item.context_expr,
                line=ast.Constant(value=node.lineno),
            )
        return node
