"""Static facts about user code the converters need: which names a block assigns,
whether a block contains a given statement kind at its own loop level.
"""

from __future__ import annotations

import ast

_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)
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


# Methods that change their list, dict or set in place.
MUTATING_METHODS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "pop",
        "remove",
        "clear",
        "sort",
        "reverse",
        "update",
        "setdefault",
        "popitem",
        "add",
        "discard",
        "difference_update",
        "intersection_update",
        "symmetric_difference_update",
    }
)


def root_name(target: ast.expr) -> str | None:
    """The variable an item or attribute expression starts from (``d`` of ``d[k].x``)."""
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def mutated_names(nodes: list[ast.AST]) -> list[str]:
    """Variables whose value these statements change in place (not inside nested
    scopes): ``x.append(v)``, ``x[k] = v``, ``x.a = v``, ``del x[k]``, sorted."""
    found: set[str] = set()
    for node in walk_scope(nodes):
        targets: list[ast.expr] = []
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in MUTATING_METHODS
        ):
            targets = [node.func.value]
        elif _is_operator_call(node, "set_attribute"):  # a converted x.attr = v
            targets = [node.args[0]]
        elif isinstance(node, ast.Assign):
            targets = [t for t in node.targets if isinstance(t, (ast.Subscript, ast.Attribute))]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(
            node.target, (ast.Subscript, ast.Attribute)
        ):
            targets = [node.target.value]
        elif isinstance(node, ast.Delete):
            targets = [t for t in node.targets if isinstance(t, (ast.Subscript, ast.Attribute))]
        for target in targets:
            name = root_name(target)
            if name is not None:
                found.add(name)
    return sorted(found)


def captured_names(fn: ast.FunctionDef) -> set[str]:
    """Locals of fn that a lambda or def of the user's inside it reads, the methods of a
    class defined in it included (an over-estimate: any name used inside them)."""
    inner = [
        n
        for n in walk_scope(fn.body)
        if isinstance(n, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and not getattr(n, "_nbg_generated", False)
    ]
    used: set[str] = set()
    for scope in inner:
        own = set() if isinstance(scope, ast.ClassDef) else parameter_names(scope)  # type: ignore[arg-type]
        used |= {n.id for n in ast.walk(scope) if isinstance(n, ast.Name)} - own
    return used & local_names(fn)


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


def always_exits(block: list[ast.stmt]) -> bool:
    """Whether running ``block`` surely ends in a return or raise (conservative: loops
    other than ``while True`` without a break may run to their end)."""
    return any(_stmt_exits(stmt) for stmt in block)


def _stmt_exits(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.Return, ast.Raise)):
        return True
    if isinstance(stmt, ast.Expr):
        return is_converted_raise(stmt)
    if isinstance(stmt, ast.If):
        return always_exits(stmt.body) and always_exits(stmt.orelse)
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return always_exits(stmt.body)
    if isinstance(stmt, ast.Try):
        if always_exits(stmt.finalbody):
            return True
        ends = always_exits(stmt.body) or always_exits(stmt.orelse)
        return ends and all(always_exits(h.body) for h in stmt.handlers)
    if isinstance(stmt, ast.While):
        forever = isinstance(stmt.test, ast.Constant) and bool(stmt.test.value)
        return forever and not contains(stmt.body, ast.Break, stop_at_loops=True)
    return False


def is_converted_raise(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` is a raise statement as RaiseConverter writes it."""
    return isinstance(stmt, ast.Expr) and _is_operator_call(stmt.value, "raise_stmt")


def _is_operator_call(node: ast.AST, name: str) -> bool:
    """Whether node is a call of ``ag__.<name>`` that a converter put there."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == name
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "ag__"
    )
