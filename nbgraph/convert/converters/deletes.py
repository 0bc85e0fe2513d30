"""del x -> x = ag__.deleted(x, 'x', line): the name has no value from here on, on this path
only (a staged branch that deletes it must not delete it on the other path)."""

from __future__ import annotations

import ast

from ..context import ScopedConverter
from ..templates import replace


class DeleteConverter(ScopedConverter):
    def visit_Delete(self, node: ast.Delete) -> ast.AST | list[ast.stmt]:
        names = [t for t in node.targets if isinstance(t, ast.Name) and self.is_local(t.id)]
        if not names:
            return node
        out = [
            stmt
            for t in names
            for stmt in replace(
                "x = ag__.deleted(x, name, line)",
                node,
                x=t.id,
                name=ast.Constant(value=t.id),
                line=ast.Constant(value=node.lineno),
            )
        ]
        rest = [t for t in node.targets if t not in names]
        if rest:
            out.insert(0, ast.copy_location(ast.Delete(targets=rest), node))
        return out
