"""and/or/not, chained comparisons and ternaries -> ag__ operators that keep Python's
short-circuit evaluation when the condition is a graph value."""

from __future__ import annotations

import ast

from ..context import Converter
from ..templates import replace_expr


class LogicalConverter(Converter):
    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        self.generic_visit(node)
        op = "and_" if isinstance(node.op, ast.And) else "or_"
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = replace_expr(f"ag__.{op}(lambda: a, lambda: b)", node, a=value, b=result)
        return result

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return replace_expr("ag__.not_(x)", node, x=node.operand)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        self.generic_visit(node)
        if len(node.ops) == 1:
            return _membership(node)
        parts = []
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            part = ast.Compare(left=left, ops=[op], comparators=[right])
            parts.append(_membership(ast.copy_location(part, node)))
            left = right
        return self.visit_BoolOp(ast.copy_location(ast.BoolOp(op=ast.And(), values=parts), node))

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        return replace_expr(
            "ag__.if_exp(test, lambda: a, lambda: b)",
            node,
            test=node.test,
            a=node.body,
            b=node.orelse,
        )


def _membership(node: ast.Compare) -> ast.expr:
    """``a in b`` / ``a not in b`` -> ag__.contains, which stages graph values."""
    op = node.ops[0]
    if isinstance(op, ast.In):
        return replace_expr("ag__.contains(b, a)", node, a=node.left, b=node.comparators[0])
    if isinstance(op, ast.NotIn):
        return replace_expr(
            "ag__.not_(ag__.contains(b, a))", node, a=node.left, b=node.comparators[0]
        )
    return node
