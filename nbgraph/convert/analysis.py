"""Static facts about user code the converters need: which names a block assigns,
whether a block contains a given statement kind at its own loop level.
"""

from __future__ import annotations

import ast

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
LOOPS = (ast.For, ast.While, ast.AsyncFor)


def assigned_names(nodes: list[ast.AST]) -> list[str]:
    """Names bound by these statements (not inside nested scopes), sorted."""
    found: set[str] = set()

    def walk(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if not getattr(node, "_nbg_generated", False):
                found.add(node.name)
            for deco in node.decorator_list:
                walk(deco)
            return
        if isinstance(node, _SCOPES):
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                found.add((alias.asname or alias.name).split(".")[0])
        for child in ast.iter_child_nodes(node):
            walk(child)

    for node in nodes:
        walk(node)
    return sorted(found)


def declared_outside(fn: ast.FunctionDef) -> set[str]:
    """Names the function declares global or nonlocal."""
    out: set[str] = set()
    for node in walk_scope(fn.body):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
    return out


def walk_scope(nodes: list[ast.AST], stop_at_loops: bool = False) -> list[ast.AST]:
    """All nodes below ``nodes`` in the same function (and loop, if asked)."""
    out: list[ast.AST] = []
    stack = list(nodes)
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, _SCOPES) or (stop_at_loops and isinstance(node, LOOPS)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return out


def contains(nodes: list[ast.AST], kind: type | tuple, stop_at_loops: bool) -> bool:
    """Whether a node of ``kind`` occurs in these statements at this level."""
    for node in nodes:
        if isinstance(node, kind):
            return True
        if isinstance(node, _SCOPES) or (stop_at_loops and isinstance(node, LOOPS)):
            continue
        if contains(list(ast.iter_child_nodes(node)), kind, stop_at_loops):
            return True
    return False


def all_names(tree: ast.AST) -> set[str]:
    """Every identifier used anywhere (to pick fresh names for generated code)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def parameter_names(fn: ast.FunctionDef) -> set[str]:
    """Every parameter name of a function."""
    args = fn.args
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    return params | {a.arg for a in (args.vararg, args.kwarg) if a is not None}


def local_names(fn: ast.FunctionDef) -> set[str]:
    """Parameters and assigned names of a function, minus global/nonlocal ones."""
    return (parameter_names(fn) | set(assigned_names(fn.body))) - declared_outside(fn)
