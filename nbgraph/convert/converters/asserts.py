"""assert c, msg -> ag__.assert_stmt(c, lambda: msg): checked when the graph runs."""

from __future__ import annotations

import ast

from ..context import Converter
from ..templates import replace


class AssertConverter(Converter):
    def visit_Assert(self, node: ast.Assert) -> list[ast.stmt]:
        self.generic_visit(node)
        if node.msg is None:
            return replace("ag__.assert_stmt(test)", node, test=node.test)
        return replace("ag__.assert_stmt(test, lambda: msg)", node, test=node.test, msg=node.msg)
