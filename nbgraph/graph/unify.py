"""Joining the types a variable has on two paths (branches, loop entry and loop end)."""

from __future__ import annotations

import numpy as np

from ..errors.exceptions import LoopTypeError
from ..errors.origins import user_location
from .types import ARRAY, PYTHON, SCALAR, TensorType

_FLAVOR_RANK = {PYTHON: 0, SCALAR: 1, ARRAY: 2}


def join_tensor_types(
    a: TensorType, b: TensorType, name: str, where: str, *, in_loop: bool
) -> TensorType:
    """The one type both paths can take, or a LoopTypeError naming the variable.

    Same dtype and rank always join.  A Python scalar (weak, as in NumPy's promotion)
    takes the NumPy dtype of the same kind it meets.  Branches may also promote Python
    scalars across kinds (``1`` vs ``2.5``); a loop may not, because the value before the
    first iteration would change type.
    """
    if a.ndim != b.ndim:
        raise LoopTypeError(
            f"variable '{name}' is a {a.describe()} {_before(in_loop)} but a {b.describe()} "
            f"{_after(in_loop)} ({where}); a graph variable keeps one rank on all paths",
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
    if weak_a and weak_b and not in_loop:
        return TensorType(np.result_type(a.dtype, b.dtype), 0, PYTHON)
    fix = ""
    if in_loop and weak_a:
        example = {"f": "0.0", "c": "0j", "i": "0"}.get(b.dtype.kind, "")
        if example:
            fix = f"; initialize it as {name} = {example} before the loop"
    raise LoopTypeError(
        f"variable '{name}' has dtype {a.python_kind} {_before(in_loop)} but "
        f"{b.python_kind} {_after(in_loop)} ({where}); a graph variable keeps one dtype on "
        f"all paths{fix}",
        user_location(),
    )


def _before(in_loop: bool) -> str:
    return "before the loop" if in_loop else "in the if branch"


def _after(in_loop: bool) -> str:
    return "after an iteration" if in_loop else "in the else branch"
