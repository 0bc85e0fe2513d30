"""try: ... except: -> the try body runs inside ag__.try_block(line): graph operations
there are reported, because their errors happen when the graph runs, after the except
clause is gone; each except clause starts with ag__.refusal_caught(), so that such a
refusal (or any other of graph mode's) is not taken for an error the clause handles.
try: ... finally: -> the body runs inside ag__.finally_block(key): a raise there happens
while tracing, so the finally clause is traced before the raise.

A raise in a graph branch or loop of such a body is staged instead: the graph raises it
when it runs, and the finally clauses it leaves must run before.  Each such raise is
preceded by ``if ag__.stages_raise(key): <copies of those finally clauses>``, innermost
first, ``key`` naming the outermost try statement it leaves (``ag__.leaving(key)``: a
failure there does not run those finally clauses again); a raise in a finally clause
(or in a copy of one) leaves the try statements around that one.  The finally clause
itself is traced in ``ag__.finally_clause(key)``: when an operation of the body fails
as the graph runs, the clause's nodes run then (``backend/finally_clauses.py``).  A
finally clause that may return, break or continue would drop the exception: a raise
that leaves one is refused while tracing."""

from __future__ import annotations

import ast
import copy

from ..analysis import contains, is_converted_raise
from ..context import Converter
from ..templates import replace, replace_expr
from .exits import BLOCKS


class TryConverter(Converter):
    def __init__(self, namer) -> None:
        super().__init__(namer)
        self._guards: dict[int, ast.If] = {}  # id of a raise -> the copies before it

    def visit_Try(self, node: ast.Try) -> ast.AST:
        self.generic_visit(node)
        if node.handlers:
            node.body = replace(
                "with ag__.try_block(line):\n    body",
                node,
                line=ast.Constant(value=node.lineno),
                body=node.body,
            )
            for handler in node.handlers:
                handler.body = [*replace("ag__.refusal_caught()", handler), *handler.body]
        elif node.finalbody:
            key = ast.Constant(value=self.namer.new("finally"))
            exits = contains(node.finalbody, ast.Return, stop_at_loops=False) or contains(
                node.finalbody, (ast.Break, ast.Continue), stop_at_loops=True
            )
            final = [] if exits else node.finalbody  # raise_stmt refuses (it would drop it)
            body = self._run_finally_first(node.body, key, final)
            node.body = replace(
                "with ag__.finally_block(key, exits):\n    body",
                node,
                key=key,
                exits=ast.Constant(value=exits),
                body=body,
            )
            if not exits:
                node.finalbody = replace(
                    "with ag__.finally_clause(key):\n    body", node, key=key, body=final
                )
        return node

    def _run_finally_first(
        self, block: list[ast.stmt], key: ast.Constant, final: list[ast.stmt]
    ) -> list[ast.stmt]:
        """``block`` with a copy of ``final`` run before each raise it may stage (not
        inside a nested function or the body of a try statement with except clauses,
        whose handlers may catch it)."""
        out: list[ast.stmt] = []
        for stmt in block:
            if is_converted_raise(stmt):
                guard = self._guards.get(id(stmt))
                if guard is None:
                    guard = replace(
                        "if ag__.stages_raise(key):\n    with ag__.leaving(key):\n        pass",
                        stmt,
                        key=key,
                    )[0]
                    self._guards[id(stmt)] = guard
                    out.append(guard)
                guard.test = replace_expr("ag__.stages_raise(key)", stmt, key=key)
                copies = guard.body[0]
                copies.items[0].context_expr = replace_expr("ag__.leaving(key)", stmt, key=key)
                copies.body.extend(copy.deepcopy(final))
                stmt.value.keywords = [ast.keyword(arg="leaves", value=key)]
            elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for field in BLOCKS:
                    inner = getattr(stmt, field, None)
                    if inner and not (field == "body" and getattr(stmt, "handlers", None)):
                        setattr(stmt, field, self._run_finally_first(inner, key, final))
                for handler in getattr(stmt, "handlers", ()):
                    handler.body = self._run_finally_first(handler.body, key, final)
            out.append(stmt)
        return out
