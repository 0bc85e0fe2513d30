"""Joining the types a variable has on two paths (branches, loop entry and loop end)."""

from __future__ import annotations

import numpy as np

from ..errors.exceptions import LoopTypeError
from ..graph.types import ARRAY, PYTHON, SCALAR, TensorType
from ..source.origins import generated_names, user_location

_FLAVOR_RANK = {PYTHON: 0, SCALAR: 1, ARRAY: 2}


def join_tensor_types(
    a: TensorType, b: TensorType, name: str, where: str, *, in_loop: bool
) -> TensorType:
    """The one type both paths can take, or a LoopTypeError naming the variable.

    Same dtype and rank always join.  A Python scalar (weak, as in NumPy's promotion)
    takes the NumPy dtype of the same kind it meets.  Branches may also promote Python
    scalars across kinds (``1`` vs ``2.5``); a loop may not, because the value before the
    first iteration would change type -- except a Python bool and int, which compute
    alike (``True`` is ``1``; the value's flags give back eager's type).
    """
    if a.ndim != b.ndim:
        raise LoopTypeError(
            f"{describe_variable(name)} is "
            f"{_paths(name, in_loop, where, _a(a.describe()), _a(b.describe()))}; "
            "a graph variable keeps one rank on all "
            "paths (or call the function's .eager(...) to run it as plain Python)",
            user_location(),
        )
    if in_loop:  # after one or more iterations the value is the body's
        flavor = b.flavor
    else:
        flavor = a.flavor if _FLAVOR_RANK[a.flavor] >= _FLAVOR_RANK[b.flavor] else b.flavor
    if a.dtype == b.dtype:
        return TensorType(a.dtype, a.ndim, flavor)
    weak_a, weak_b = a.flavor == PYTHON, b.flavor == PYTHON
    if weak_a != weak_b and a.dtype.kind == b.dtype.kind:
        strong = b if weak_a else a
        return TensorType(strong.dtype, strong.ndim, strong.flavor)
    if weak_a and weak_b and (not in_loop or {a.dtype.kind, b.dtype.kind} == {"b", "i"}):
        return TensorType(np.result_type(a.dtype, b.dtype), 0, PYTHON)
    raise LoopTypeError(
        f"{describe_variable(name)} has dtype "
        f"{_paths(name, in_loop, where, a.python_kind, b.python_kind)}; "
        "a graph variable keeps one dtype on all "
        f"paths: {_type_fix(name, a, b, in_loop)}, or call the function's .eager(...) to "
        "run it as plain Python",
        user_location(),
    )


_EXAMPLES = {"c": "0j", "f": "0.0", "i": "0", "u": "0", "b": "False"}
_CASTS = {"c": "complex", "f": "float", "i": "int"}


def _type_fix(name: str, a: TensorType, b: TensorType, in_loop: bool) -> str:
    """How to give the variable one type: start it with the type of the wider kind."""
    if name not in _DESCRIPTIONS and not _is_return_value(name):
        kind = max(a.dtype.kind, b.dtype.kind, key="buifc".find)
        if in_loop and kind == a.dtype.kind and kind in _CASTS:
            # The loop makes it narrower: a wider start would not help.
            return f"convert the new value (e.g. {name} = {_CASTS[kind]}(...) in the loop)"
        example = _EXAMPLES.get(kind)
        if example is not None:
            return (
                f"give it that type from the start (e.g. {name} = {example} where it is first set)"
            )
    return "convert the values to one type on every path (e.g. float(...))"


_DESCRIPTIONS = {
    "<if-exp>": "the conditional expression (x if c else y)",
    "<and>": "the 'and' expression",
    "<or>": "the 'or' expression",
    "<comprehension>": "the list built by the comprehension",
    "<index>": "the loop index",
}


def _is_return_value(name: str) -> bool:
    return name.startswith("retval_") and name in generated_names()


def describe_variable(name: str) -> str:
    """A variable as messages name it: the user's name, or what conversion's own
    variables stand for (the return value, a conditional expression...)."""
    if _is_return_value(name):
        return "the return value"
    return _DESCRIPTIONS.get(name, f"variable '{name}'")


def _paths(name: str, in_loop: bool, where: str, first: str, second: str) -> str:
    """Where the variable is ``first`` and where ``second``: before a loop and after an
    iteration, or on a branch's two paths.  A return value's paths are not the
    condition's (an early return puts the rest of the function in a branch of its
    own), so they go unnamed."""
    if in_loop:
        return f"{first} before the loop ({where}) but {second} after an iteration"
    if _is_return_value(name):
        return f"{first} on one path and {second} on another (the branch at {where})"
    return f"{first} where the condition at {where} is true but {second} where it is false"


def _a(noun: str) -> str:
    return f"an {noun}" if noun[:1] in "aeiou" else f"a {noun}"
