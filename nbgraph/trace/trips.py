"""How many times a ``for`` loop will run, where its header says so plainly.

``for i in range(n)``, ``for x in xs``, ``enumerate``/``zip``/``reversed`` of those:
evaluated when the loop starts, from the frame's variables, calling nothing but the
builtins named (and ``len`` of a builtin container or an array), so no user code runs.
A loop whose count is known needs snapshots of its variables only near its end.
"""

from __future__ import annotations

import ast
import builtins
from collections import ChainMap
from collections.abc import Mapping
from typing import Any

import numpy as np

_SIZED = (list, tuple, str, bytes, dict, set, frozenset, range, np.ndarray)
_ARITHMETIC = {
    ast.Add: int.__add__,
    ast.Sub: int.__sub__,
    ast.Mult: int.__mul__,
    ast.FloorDiv: int.__floordiv__,
    ast.Mod: int.__mod__,
}


def trip_count(
    iterable: ast.expr, local: Mapping[str, Any], global_: Mapping[str, Any]
) -> int | None:
    """The number of items ``iterable`` yields, or None if that is not plain."""
    namespace = ChainMap(dict(local), global_, vars(builtins))
    try:
        return _count(iterable, namespace)
    except Exception:  # anything unexpected: not plain
        return None


def _builtin(node: ast.expr, namespace: Mapping[str, Any], *names: str) -> str | None:
    """The name of the builtin ``node`` calls, if it is one of ``names`` (unshadowed)."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in names
        and not node.keywords
        and namespace.get(node.func.id) is getattr(builtins, node.func.id)
    ):
        return node.func.id
    return None


def _count(node: ast.expr, namespace: Mapping[str, Any]) -> int | None:
    called = _builtin(node, namespace, "range", "enumerate", "zip", "reversed")
    if called == "range":
        return len(range(*(_integer(arg, namespace) for arg in node.args)))
    if called in ("enumerate", "reversed") and node.args:
        return _count(node.args[0], namespace)
    if called == "zip" and node.args:
        counts = [_count(arg, namespace) for arg in node.args]
        return None if None in counts else min(counts)
    if isinstance(node, ast.Name):
        value = namespace[node.id]
        return len(value) if isinstance(value, _SIZED) else None
    return None


def _integer(node: ast.expr, namespace: Mapping[str, Any]) -> int:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        value = namespace[node.id]
        if isinstance(value, int | np.integer) and not isinstance(value, bool):
            return int(value)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_integer(node.operand, namespace)
    elif isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        return _ARITHMETIC[type(node.op)](
            _integer(node.left, namespace), _integer(node.right, namespace)
        )
    elif _builtin(node, namespace, "len") and len(node.args) == 1:
        count = _count(node.args[0], namespace)
        if count is not None:
            return count
    raise ValueError("not a plain integer")
