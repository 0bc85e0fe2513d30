"""Writes that graph mode cannot stage: ``x.attr = v``, assignments to ``global`` /
``nonlocal`` names, and in-place changes of a container that is not a local (``G[k] = v``,
``G.append(v)``) become checked calls, which refuse where the write would happen at the
wrong time (once while tracing instead of on every call, or on both paths of a graph if)."""

from __future__ import annotations

import ast

from ..analysis import MUTATING_METHODS, root_name, walk_scope
from ..context import ScopedConverter
from ..templates import as_load, replace, replace_expr


def _declared(fn: ast.FunctionDef, kind: type) -> set[str]:
    return {name for node in walk_scope(fn.body) if isinstance(node, kind) for name in node.names}


class OuterWriteConverter(ScopedConverter):
    def __init__(self, namer) -> None:
        super().__init__(namer)
        self._outer: list[tuple[set[str], set[str]]] = []  # (globals, nonlocals)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self._outer.append((_declared(node, ast.Global), _declared(node, ast.Nonlocal)))
        try:
            return super().visit_FunctionDef(node)
        finally:
            self._outer.pop()

    def _checked_root(self, target: ast.expr) -> None:
        """Wrap the root of ``target`` (``G`` of ``G[k].x``) in ag__.outer_mutation when
        it is not a local of the function: a container from outside it."""
        holder = target
        while isinstance(holder.value, (ast.Subscript, ast.Attribute)):
            holder = holder.value
        root = holder.value
        if not self._scopes or not isinstance(root, ast.Name) or self.is_local(root.id):
            return
        holder.value = replace_expr(
            "ag__.outer_mutation(name, root)", root, name=ast.Constant(value=root.id), root=root
        )

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in MUTATING_METHODS
            and root_name(func.value) is not None
        ):
            self._checked_root(func)
        return node

    def visit_Delete(self, node: ast.Delete) -> ast.AST:
        self.generic_visit(node)
        for target in node.targets:
            if isinstance(target, (ast.Subscript, ast.Attribute)):
                self._checked_root(target)
        return node

    def _checks(self, targets: list[ast.expr], origin: ast.stmt) -> list[ast.stmt]:
        if not self._outer:
            return []
        globals_, nonlocals = self._outer[-1]
        out = []
        for target in targets:
            for node in ast.walk(target):
                if isinstance(node, ast.Name) and node.id in globals_ | nonlocals:
                    kind = "global" if node.id in globals_ else "nonlocal"
                    out += replace(
                        "ag__.outer_write(name, kind, value)",
                        origin,
                        name=ast.Constant(value=node.id),
                        kind=ast.Constant(value=kind),
                        value=node.id,
                    )
        return out

    def visit_Assign(self, node: ast.Assign) -> ast.AST | list[ast.stmt]:
        if len(node.targets) > 1 and any(isinstance(t, ast.Attribute) for t in node.targets):
            # a.x = b = v: the value once, then each target in turn, as Python assigns
            value = self.namer.new("value")
            first = replace("v = value", node, v=value, value=node.value)
            each = [
                ast.copy_location(ast.Assign(targets=[t], value=ast.Name(value, ast.Load())), node)
                for t in node.targets
            ]
            return first + [out for stmt in each for out in _listed(self.visit_Assign(stmt))]
        self.generic_visit(node)
        for target in node.targets:
            if isinstance(target, ast.Subscript):
                self._checked_root(target)
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute):
            target = node.targets[0]
            return replace(
                "ag__.set_attribute(obj, attr, value)",
                node,
                obj=target.value,
                attr=ast.Constant(value=target.attr),
                value=node.value,
            )
        return [node, *self._checks(node.targets, node)]

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        target = node.target
        if isinstance(target, ast.Subscript):
            self._checked_root(target)
        if isinstance(target, ast.Attribute):
            current = ast.copy_location(
                ast.Attribute(value=as_load(target.value), attr=target.attr, ctx=ast.Load()), node
            )
            value = ast.copy_location(ast.BinOp(left=current, op=node.op, right=node.value), node)
            return replace(
                "ag__.set_attribute(obj, attr, value)",
                node,
                obj=target.value,
                attr=ast.Constant(value=target.attr),
                value=value,
            )
        return [node, *self._checks([target], node)]

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        return [node, *self._checks([node.target], node)]


def _listed(result: ast.AST | list[ast.stmt]) -> list[ast.stmt]:
    return result if isinstance(result, list) else [result]
