"""a[i] = v / a[i] += v / a[i][j] = v -> a = ag__.setitem(a, i, ...): item assignment
rebinds the name, so it is visible to staged branches and loops.  Only for the
function's own locals: an enclosing function's container is updated in place."""

from __future__ import annotations

import ast

from ..context import ScopedConverter
from ..templates import as_load, replace, replace_expr


def _root(target: ast.expr) -> ast.Name | None:
    while isinstance(target, ast.Subscript):
        target = target.value
    return target if isinstance(target, ast.Name) else None


def _update(target: ast.Subscript, value: ast.expr, origin: ast.AST) -> ast.expr:
    """The expression that computes the new root value of ``target = value``."""
    new = replace_expr(
        "ag__.setitem(x, i, v)", origin, x=as_load(target.value), i=as_load(target.slice), v=value
    )
    if isinstance(target.value, ast.Subscript):
        return _update(target.value, new, origin)
    return new


class SubscriptConverter(ScopedConverter):
    def visit_Assign(self, node: ast.Assign) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Subscript):
            return node
        target = node.targets[0]
        root = _root(target)
        if root is None or not self.is_local(root.id):
            return node
        return replace("x = update", node, x=root.id, update=_update(target, node.value, node))

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        target = node.target
        if (
            not isinstance(target, ast.Subscript)
            or _root(target) is None
            or not self.is_local(_root(target).id)
        ):
            return node
        value = ast.copy_location(
            ast.BinOp(left=as_load(target), op=node.op, right=node.value), node
        )
        return replace("x = update", node, x=_root(target).id, update=_update(target, value, node))
