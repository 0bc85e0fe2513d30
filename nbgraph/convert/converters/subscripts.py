"""a[i] = v / a[i] += v / a[i][j] = v -> a = ag__.setitem(a, i, ...) (``+=``:
ag__.augmented_item): item assignment rebinds the name, so it is visible to staged
branches and loops.  Only for the function's own locals: an enclosing function's
container is updated in place.  a[i] read at a variable index -> ag__.getitem(a, i),
which reads an array made while tracing at an index known when the graph runs; x += v
-> x = ag__.augmented(x, "iadd", v), which refuses writes made while tracing."""

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
    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        """a[i] read at an index that is not a constant -> ag__.getitem(a, i)."""
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load) or not any(
            isinstance(n, ast.Name) for n in ast.walk(node.slice)
        ):
            return node
        return replace_expr("ag__.getitem(x, i)", node, x=node.value, i=node.slice)

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
        if isinstance(target, ast.Name) and self.is_local(target.id):
            update = replace_expr(
                "ag__.augmented(x, op, v)",
                node,
                x=as_load(target),
                op=ast.Constant(_IN_PLACE[type(node.op)]),
                v=node.value,
            )
            return replace("x = update", node, x=target.id, update=update)
        if (
            not isinstance(target, ast.Subscript)
            or _root(target) is None
            or not self.is_local(_root(target).id)
        ):
            return node
        # The item's own in-place operator where it has one (an array in a list), as
        # Python applies it; the value is computed after the item is read, as in Python.
        update = replace_expr(
            "ag__.augmented_item(x, i, op, lambda: v)",
            node,
            x=as_load(target.value),
            i=as_load(target.slice),
            op=ast.Constant(_IN_PLACE[type(node.op)]),
            v=node.value,
        )
        if isinstance(target.value, ast.Subscript):
            update = _update(target.value, update, node)
        return replace("x = update", node, x=_root(target).id, update=update)


# The name in ``operator`` of each augmented assignment's in-place operator.
_IN_PLACE = {
    ast.Add: "iadd",
    ast.Sub: "isub",
    ast.Mult: "imul",
    ast.Div: "itruediv",
    ast.FloorDiv: "ifloordiv",
    ast.Mod: "imod",
    ast.Pow: "ipow",
    ast.MatMult: "imatmul",
    ast.BitAnd: "iand",
    ast.BitOr: "ior",
    ast.BitXor: "ixor",
    ast.LShift: "ilshift",
    ast.RShift: "irshift",
}
