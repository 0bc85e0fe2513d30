"""Generated code as source templates: parse a snippet, substitute user AST, keep origins.

Every node a template creates takes the source location of the user's statement it
replaces, so compiled converted code reports the user's file, line and column.
"""

from __future__ import annotations

import ast
import copy
from typing import Any


def _set_location(node: ast.AST, origin: ast.AST) -> None:
    for child in ast.walk(node):
        if "lineno" in child._attributes:
            child.lineno = getattr(origin, "lineno", 1)
            child.col_offset = getattr(origin, "col_offset", 0)
            single_line = getattr(origin, "end_lineno", None) == child.lineno
            child.end_lineno = child.lineno
            child.end_col_offset = origin.end_col_offset if single_line else child.col_offset + 1


class _Substitute(ast.NodeTransformer):
    def __init__(self, subs: dict[str, Any]) -> None:
        self.subs = subs

    def _replacement(self, name: str) -> Any:
        value = self.subs[name]
        if isinstance(value, str):
            return ast.Name(id=value, ctx=ast.Load())
        return copy.copy(value) if isinstance(value, ast.AST) else value

    def visit_Name(self, node: ast.Name) -> Any:
        if node.id not in self.subs:
            return node
        new = self._replacement(node.id)
        if isinstance(new, ast.Name):
            new = ast.Name(id=new.id, ctx=node.ctx)
        elif isinstance(new, (ast.Tuple, ast.List)) and isinstance(node.ctx, ast.Store):
            new = type(new)(
                elts=[ast.Name(id=e.id, ctx=ast.Store()) for e in new.elts], ctx=ast.Store()
            )
        return new

    def visit_Expr(self, node: ast.Expr) -> Any:
        if isinstance(node.value, ast.Name) and node.value.id in self.subs:
            value = self.subs[node.value.id]
            if isinstance(value, list):  # a statement-list placeholder
                return value
        return self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        if node.name in self.subs:
            node.name = self.subs[node.name]
        self.generic_visit(node)
        return node

    def visit_arg(self, node: ast.arg) -> Any:
        if node.arg in self.subs and isinstance(self.subs[node.arg], str):
            node.arg = self.subs[node.arg]
        return node


def replace(template: str, origin: ast.AST, **subs: Any) -> list[ast.stmt]:
    """Statements from ``template`` with placeholders replaced by ``subs``.

    A placeholder standing alone as a statement takes a list of statements; elsewhere a
    placeholder takes an expression AST or a name (str).  Template nodes get ``origin``'s
    location; substituted user nodes keep their own.
    """
    module = ast.parse(template)
    for stmt in module.body:
        _set_location(stmt, origin)
    out = []
    for stmt in module.body:
        new = _Substitute(subs).visit(stmt)
        out.extend(new if isinstance(new, list) else [new])
    for stmt in out:
        ast.fix_missing_locations(stmt)
    return out


def replace_expr(template: str, origin: ast.AST, **subs: Any) -> ast.expr:
    """An expression from ``template`` (see replace)."""
    stmt = replace(template, origin, **subs)[0]
    assert isinstance(stmt, ast.Expr)
    return stmt.value


def names_tuple(names: list[str], ctx: type = ast.Load) -> ast.Tuple:
    """``(a, b, c)`` as an AST tuple of names."""
    return ast.Tuple(elts=[ast.Name(id=n, ctx=ctx()) for n in names], ctx=ctx())


def strings_tuple(names: list[str]) -> ast.Tuple:
    """``('a', 'b')`` as an AST tuple of string constants."""
    return ast.Tuple(elts=[ast.Constant(value=n) for n in names], ctx=ast.Load())


def as_load(expr: ast.expr) -> ast.expr:
    """A copy of an assignment target as an expression that reads it."""
    expr = copy.deepcopy(expr)
    for node in ast.walk(expr):
        if hasattr(node, "ctx"):
            node.ctx = ast.Load()
    return expr
