"""[elt for x in it if c] -> ag__.list_comp(it, lambda x: elt, (lambda x: c,)): a list
comprehension over a graph iterable becomes a graph loop."""

from __future__ import annotations

import ast

from ..context import Converter


def _target_params(target: ast.expr) -> tuple[list[str], bool] | None:
    if isinstance(target, ast.Name):
        return [target.id], False
    if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        return [e.id for e in target.elts], True
    return None


def _lambda(params: list[str], body: ast.expr, origin: ast.AST) -> ast.Lambda:
    fn = ast.Lambda(
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=p) for p in params],
            kwonlyargs=[],
            kw_defaults=[],
            defaults=[],
        ),
        body=body,
    )
    for node in ast.walk(fn):
        if "lineno" in node._attributes and not hasattr(node, "lineno"):
            ast.copy_location(node, origin)
    return fn


class ComprehensionConverter(Converter):
    def visit_ListComp(self, node: ast.ListComp) -> ast.expr:
        self.generic_visit(node)
        if len(node.generators) != 1 or node.generators[0].is_async:
            return node
        gen = node.generators[0]
        target = _target_params(gen.target)
        if target is None:
            return node
        params, unpack = target
        conditions = ast.Tuple(elts=[_lambda(params, c, c) for c in gen.ifs], ctx=ast.Load())
        call = ast.Call(
            func=ast.Attribute(
                value=ast.Name(id="ag__", ctx=ast.Load()), attr="list_comp", ctx=ast.Load()
            ),
            args=[
                gen.iter,
                _lambda(params, node.elt, node),
                conditions,
                ast.Constant(value=unpack),
            ],
            keywords=[],
        )
        for child in ast.walk(call):
            if "lineno" in child._attributes and not hasattr(child, "lineno"):
                ast.copy_location(child, node)
        return call
