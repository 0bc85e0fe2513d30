"""if/while/for -> functions over the assigned variables + ag__.if_stmt/while_stmt/for_stmt.

The branch/body functions take every variable the statement assigns as parameters and
return them, so the operators can run them eagerly (Python values) or trace them into
graph regions (graph values) without closures over mutable locals.  A variable that a
lambda or nested def of the user's reads is also written back into the function's own
variable (``nonlocal``) as each body starts, so the closure sees it change, as eagerly.
"""

from __future__ import annotations

import ast

from ..analysis import assigned_names, captured_names, mutated_names
from ..context import ScopedConverter, exit_flags, mark_generated
from ..templates import names_tuple, replace, strings_tuple


def _with_return(body: list[ast.stmt], names: list[str], origin: ast.AST) -> list[ast.stmt]:
    return [*body, *replace("return state", origin, state=names_tuple(names))]


def _not_exited(flags: list[str], origin: ast.AST) -> ast.expr:
    tests = [ast.UnaryOp(op=ast.Not(), operand=ast.Name(id=f, ctx=ast.Load())) for f in flags]
    expr = tests[0] if len(tests) == 1 else ast.BoolOp(op=ast.And(), values=tests)
    for node in ast.walk(expr):
        ast.copy_location(node, origin)
    return expr


class ControlFlowConverter(ScopedConverter):
    def __init__(self, namer, outside: set[str]) -> None:
        super().__init__(namer)
        self.outside = outside  # global/nonlocal names stay out of the state
        self._captured: list[set[str]] = []  # per function: locals its closures read

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self._captured.append(captured_names(node))
        try:
            return super().visit_FunctionDef(node)
        finally:
            self._captured.pop()

    def _function(
        self, name: str, params: list[str], body: list[ast.stmt], origin: ast.AST
    ) -> ast.FunctionDef:
        captured = [p for p in params if self._captured and p in self._captured[-1]]
        if captured:
            renamed = {p: self.namer.new(f"{p}_in") for p in captured}
            params = [renamed.get(p, p) for p in params]
            sync = ast.Nonlocal(names=captured)
            ast.copy_location(sync, origin)
            body = [
                sync,
                *(s for p in captured for s in replace("p = value", origin, p=p, value=renamed[p])),
                *body,
            ]
        fn = replace("def fn():\n    pass", origin, fn=name)[0]
        fn.args.args = [ast.arg(arg=p) for p in params]
        fn.body = body or replace("pass", origin)
        ast.fix_missing_locations(fn)
        for arg in fn.args.args:
            ast.copy_location(arg, origin)
        return mark_generated(fn)

    def _names(self, nodes: list[ast.AST]) -> list[str]:
        """The statement's state: the variables it assigns, and the local containers it
        changes in place (each path changes a copy of its own, merged afterwards)."""
        changed = {n for n in mutated_names(nodes) if self.is_local(n)}
        return sorted(n for n in set(assigned_names(nodes)) | changed if n not in self.outside)

    def visit_If(self, node: ast.If) -> list[ast.stmt]:
        self.generic_visit(node)
        names = self._names(node.body + node.orelse)
        body_fn, else_fn = self.namer.new("if_body"), self.namer.new("else_body")
        return [
            self._function(body_fn, names, _with_return(node.body, names, node), node),
            self._function(else_fn, names, _with_return(node.orelse, names, node), node),
            *replace(
                "state = ag__.if_stmt(test, body_fn, else_fn, names, state)",
                node.test,
                state=names_tuple(names),
                test=node.test,
                body_fn=body_fn,
                else_fn=else_fn,
                names=strings_tuple(names),
            ),
        ]

    def visit_While(self, node: ast.While) -> list[ast.stmt]:
        self.generic_visit(node)
        names = self._names(node.body)
        test = node.test
        if exit_flags(node):
            test = ast.BoolOp(op=ast.And(), values=[test, _not_exited(exit_flags(node), node)])
            ast.copy_location(test, node.test)
        test_fn, body_fn = self.namer.new("loop_test"), self.namer.new("loop_body")
        test_body = [ast.copy_location(ast.Return(value=test), node.test)]
        return [
            self._function(test_fn, names, test_body, node),
            self._function(body_fn, names, _with_return(node.body, names, node), node),
            *replace(
                "state = ag__.while_stmt(test_fn, body_fn, names, state)",
                node.test,
                state=names_tuple(names),
                test_fn=test_fn,
                body_fn=body_fn,
                names=strings_tuple(names),
            ),
            *node.orelse,
        ]

    def visit_For(self, node: ast.For) -> list[ast.stmt]:
        self.generic_visit(node)
        names = self._names([node.target, *node.body])
        body_fn, item = self.namer.new("loop_body"), self.namer.new("itr")
        unpack = replace("target = item", node, item=item)
        unpack[0].targets = [node.target]
        out: list[ast.stmt] = [
            self._function(
                body_fn, [item, *names], _with_return(unpack + node.body, names, node), node
            )
        ]
        extra: str | ast.expr = ast.Constant(value=None)
        if exit_flags(node):
            extra = self.namer.new("extra_test")
            test = [ast.copy_location(ast.Return(value=_not_exited(exit_flags(node), node)), node)]
            out.append(self._function(extra, names, test, node))
        out += replace(
            "state = ag__.for_stmt(iterable, extra, body_fn, names, state)",
            node.iter,
            state=names_tuple(names),
            iterable=node.iter,
            extra=extra,
            body_fn=body_fn,
            names=strings_tuple(names),
        )
        return out + node.orelse
