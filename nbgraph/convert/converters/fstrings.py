"""f"..{x}.." -> ag__.fstring(...) and "..%d.." % x -> ag__.percent_format(...): the
text is formatted when the graph runs if x is a graph value."""

from __future__ import annotations

import ast

from ..context import Converter

_CONVERSIONS = {-1: None, 115: "s", 114: "r", 97: "a"}


class FStringConverter(Converter):
    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.expr:
        parts: list[ast.expr] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(value)
                continue
            spec = value.format_spec
            if spec is not None and not all(isinstance(v, ast.Constant) for v in spec.values):
                return node  # nested replacement fields in the spec: left to Python
            spec_text = "".join(v.value for v in spec.values) if spec is not None else ""
            parts.append(
                ast.Tuple(
                    elts=[
                        self.visit(value.value),
                        ast.Constant(value=_CONVERSIONS[value.conversion]),
                        ast.Constant(value=spec_text),
                    ],
                    ctx=ast.Load(),
                )
            )
        call = ast.Call(
            func=ast.Attribute(
                value=ast.Name(id="ag__", ctx=ast.Load()), attr="fstring", ctx=ast.Load()
            ),
            args=parts,
            keywords=[],
        )
        for child in ast.walk(call):
            if not hasattr(child, "lineno") and "lineno" in child._attributes:
                ast.copy_location(child, node)
        return call

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        literal = isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)
        if not (literal and isinstance(node.op, ast.Mod)):
            return node
        call = ast.Call(
            func=ast.Attribute(
                value=ast.Name(id="ag__", ctx=ast.Load()), attr="percent_format", ctx=ast.Load()
            ),
            args=[node.left, node.right],
            keywords=[],
        )
        for child in ast.walk(call):
            if not hasattr(child, "lineno") and "lineno" in child._attributes:
                ast.copy_location(child, node)
        return call
