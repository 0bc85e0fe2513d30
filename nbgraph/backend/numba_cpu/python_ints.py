"""Python scalars meeting NumPy values, converted as NumPy 2 converts them (NEP 50).

A Python int, float or complex next to a NumPy value takes the dtype of the ufunc loop
NumPy picks (``int32_array / 2**40`` divides in float64), and a Python int that does not fit
an integer dtype raises ``OverflowError`` (``int32_array + 2**40``, ``np.int32(2**40)``,
``a[0] = 2**40``, ``np.full(3, 2**40, dtype=np.int32)``) where a plain cast would wrap it.
Comparisons take Python floats in the array's dtype too (``float32_array < 1e-300`` compares
with float32's 0.0) and Python ints exactly, as NumPy does; ``np.where`` is left alone (NumPy
wraps there).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from numba import njit

from ...graph import runtime
from ...graph.ir import Node
from ...graph.numpy_facts import call_operands, method_name, ufunc_of
from ...graph.template import Hole
from ...graph.types import PYTHON, TensorType

_COMPARISONS = frozenset(
    {np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal}
)
_PYTHON_TYPES = {"i": int, "f": float, "c": complex}
_INT64 = np.iinfo(np.int64)
_INTEGER_SCALARS = {np.dtype(t).type for t in np.typecodes["AllInteger"]}
_STORING = (runtime.setitem, np.full, np.full_like)
_STORING_WITH_DTYPE = (np.array, np.asarray, np.arange)


@njit(cache=True)
def python_int_in(value, low, high, dtype):
    """``value`` if ``low <= value <= high``; else NumPy's OverflowError."""
    if value < low or value > high:
        raise OverflowError("Python integer " + str(value) + " out of bounds for " + dtype)
    return value


def loop_dtypes(fn: Any, operands: list[TensorType]) -> tuple[np.dtype, ...] | None:
    """The input dtypes of the ufunc loop NumPy runs for ``fn`` on these operands (Python
    scalars weak), or None where ``fn`` is no ufunc or NumPy finds no loop."""
    ufunc = ufunc_of(fn)
    if ufunc is None or ufunc.nin != len(operands):
        return None
    types = [
        _PYTHON_TYPES.get(t.dtype.kind, t.dtype) if t.flavor == PYTHON else t.dtype
        for t in operands
    ]
    try:
        return ufunc.resolve_dtypes((*types, *[None] * ufunc.nout))[: ufunc.nin]
    except (TypeError, ValueError, np.exceptions.DTypePromotionError):
        return None


def _bounds(dtype: np.dtype) -> tuple[int, int] | None:
    """The range of an integer dtype narrower than a graph's Python int (int64)."""
    if dtype.kind not in "iu":
        return None
    info = np.iinfo(dtype)
    if info.min <= _INT64.min and info.max >= _INT64.max:
        return None
    return int(info.min), min(int(info.max), int(_INT64.max))


def checked(lowering: Any, source: str, value: TensorType, dtype: np.dtype) -> str:
    """``source`` (a Python value) with NumPy's range check for ``dtype``, where needed."""
    bounds = _bounds(np.dtype(dtype))
    if bounds is None or value.flavor != PYTHON or value.dtype.kind != "i":
        return source
    try:
        if bounds[0] <= int(source) <= bounds[1]:
            return source  # a literal that fits
    except ValueError:
        pass
    check = lowering._global(python_int_in, "f")
    return f"{check}({source}, {bounds[0]}, {bounds[1]}, {np.dtype(dtype).name!r})"


def weak_operands(
    lowering: Any, node: Node, args: list[str], operands: list[TensorType], target: np.dtype
) -> list[str]:
    """The operands of an elementwise call, Python scalars cast to the dtype NumPy's loop
    takes them in (``target``, the result's dtype, where no loop is known)."""
    fn = node.arg.fn
    loop = loop_dtypes(fn, operands) or [target] * len(args)
    exact = ufunc_of(fn) in _COMPARISONS  # Python ints compare exactly
    cast = [lowering.literal(dtype) for dtype in loop]
    return [
        f"{c}({checked(lowering, a, t, dtype)})"
        if t.flavor == PYTHON and t.dtype != dtype and not (exact and t.dtype.kind in "bi")
        else a
        for a, t, dtype, c in zip(args, operands, loop, cast)
    ]


def checks(lowering: Any, node: Node, inputs: list[str]) -> Iterator[str]:
    """Statements raising NumPy's OverflowError for Python ints that ``node`` stores into
    an integer dtype too narrow for them (array items, fill values, NumPy scalars)."""
    dtype = _stored_dtype(node)
    if dtype is None or _bounds(dtype) is None:
        return
    for item in _stored_values(node):
        if isinstance(item, Hole):
            source, value = inputs[item.index], node.inputs[item.index].type
        elif type(item) is int:
            source, value = repr(item), TensorType(np.dtype(np.int64), 0, PYTHON)
        else:
            continue
        if isinstance(value, TensorType):
            line = checked(lowering, source, value, dtype)
            if line != source:
                yield line


def _stored_dtype(node: Node) -> np.dtype | None:
    """The dtype ``node`` converts Python values to, for the calls that store them."""
    fn = node.arg.fn
    if fn in _INTEGER_SCALARS:
        return np.dtype(fn)
    if method_name(node.arg) == "fill":
        t = node.inputs[0].type
    elif fn in _STORING or (fn in _STORING_WITH_DTYPE and "dtype" in node.arg.kwargs):
        t = node.type
    else:
        return None
    return t.dtype if isinstance(t, TensorType) else None


def _stored_values(node: Node) -> Iterator[Any]:
    """The argument templates' leaves that become items of the result."""
    fn, args, kwargs = node.arg.fn, node.arg.args, node.arg.kwargs
    if fn is runtime.setitem:
        parts = [args[2]]
    elif method_name(node.arg) is not None:
        parts = list(call_operands(node.arg)[1:])
    elif fn in (np.full, np.full_like):
        parts = [*args[1:2], kwargs.get("fill_value")]
    else:
        parts = list(args)
    yield from _leaves(parts)


def _leaves(template: Any) -> Iterator[Any]:
    if isinstance(template, (tuple, list)):
        for item in template:
            yield from _leaves(item)
    else:
        yield template
