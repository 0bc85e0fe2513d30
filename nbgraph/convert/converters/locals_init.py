"""Start each converted function with ``x = ag__.Undefined('x')`` for its locals, so
control-flow operators can pass every variable, assigned yet or not."""

from __future__ import annotations

import ast

from ..analysis import assigned_names, declared_outside, parameter_names
from ..context import Converter, is_generated
from ..templates import replace


class LocalsInitConverter(Converter):
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.generic_visit(node)
        if is_generated(node) or not any(is_generated(s) for s in ast.walk(node) if s is not node):
            return node
        generated = {s.name for s in node.body if is_generated(s)}
        skip = parameter_names(node) | declared_outside(node) | generated
        inits = []
        for name in assigned_names(node.body):
            if name not in skip:
                inits += replace(
                    "x = ag__.Undefined(name)", node, x=name, name=ast.Constant(value=name)
                )
        node.body = inits + node.body
        return node
