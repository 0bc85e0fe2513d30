"""State shared by the converters of one function: fresh names for generated code."""

from __future__ import annotations

import ast

from .analysis import local_names


class Namer:
    """Hands out names that collide with nothing in the user's function."""

    def __init__(self, taken: set[str]) -> None:
        self.taken = set(taken)
        self.generated: set[str] = set()

    def new(self, base: str) -> str:
        index = 1
        while f"{base}_{index}" in self.taken:
            index += 1
        name = f"{base}_{index}"
        self.taken.add(name)
        self.generated.add(name)
        return name


class Converter(ast.NodeTransformer):
    """Base class: a transformer with the function's namer."""

    def __init__(self, namer: Namer) -> None:
        self.namer = namer


def mark_generated(node: ast.FunctionDef) -> ast.FunctionDef:
    """Flag a function definition as generated (not the user's own)."""
    node._nbg_generated = True  # type: ignore[attr-defined]
    return node


def is_generated(node: ast.AST) -> bool:
    """Whether a function definition was made by a converter."""
    return getattr(node, "_nbg_generated", False)


def exit_flags(loop: ast.AST) -> list[str]:
    """Flags whose truth ends the loop early (break, return inside it)."""
    if not hasattr(loop, "_nbg_exit_flags"):
        loop._nbg_exit_flags = []  # type: ignore[attr-defined]
    return loop._nbg_exit_flags  # type: ignore[attr-defined]


class ScopedConverter(Converter):
    """A converter that knows which names are local to the function it is inside."""

    def __init__(self, namer: Namer) -> None:
        super().__init__(namer)
        self._scopes: list[set[str]] = []

    def is_local(self, name: str) -> bool:
        """Whether ``name`` is a local variable of the innermost function."""
        return bool(self._scopes) and name in self._scopes[-1]

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self._scopes.append(local_names(node))
        try:
            self.generic_visit(node)
        finally:
            self._scopes.pop()
        return node
