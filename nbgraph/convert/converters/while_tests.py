"""while (v := f(v)) > 0: body  ->  while True: if not ((v := f(v)) > 0): break; body

A while test that assigns a name (``:=``) moves to the top of the loop body, where the
body's statements see the name: a graph loop's test is a function of its own, whose
assignments would stay in it.  An else clause runs after the loop where the test ended
it (a flag says so), so that its break or continue is still the enclosing loop's.
"""

from __future__ import annotations

import ast

from ..context import Converter
from ..templates import replace


class WhileTestConverter(Converter):
    def visit_While(self, node: ast.While) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        if not any(isinstance(n, ast.NamedExpr) for n in ast.walk(node.test)):
            return node
        ended = self.namer.new("while_ended") if node.orelse else None
        stop = replace("if not test:\n    break", node.test, test=node.test)
        if ended is not None:
            stop[0].body[:0] = replace("ended = True", node.test, ended=ended)
        loop = replace("while True:\n    pass", node)[0]
        loop.body = [*stop, *node.body]
        if ended is None:
            return loop
        before = replace("ended = False", node, ended=ended)
        after = replace("if ended:\n    pass", node, ended=ended)
        after[0].body = node.orelse
        return [*before, loop, *after]
