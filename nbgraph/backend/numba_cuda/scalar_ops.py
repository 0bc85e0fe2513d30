"""One element of an elementwise operation, as source for a CUDA kernel, with NumPy's
semantics: its dtype rules (operands cast to the operation's dtype first), its integer
division and remainder (sign of the divisor, 0 for a zero divisor), NaN-propagating
maximum/minimum.  Kernels have ``math`` but no NumPy functions, so NumPy's ufuncs are
written with ``math`` and the small device functions in ``device_functions.py``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ...graph import runtime
from ...graph.ir import Node
from ...graph.numpy_facts import OPERATORS
from ...graph.template import fill
from ...graph.types import PYTHON, TensorType, type_of


def _spelled(*operators: Callable) -> dict[Callable, str]:
    """Operators and their ufuncs, each with the operator's Python spelling."""
    return {fn: OPERATORS[op].syntax for op in operators for fn in (op, OPERATORS[op].ufunc)}


_ARITHMETIC = _spelled(operator.add, operator.sub, operator.mul)
_INSTRUCTIONS = {"+": "add", "-": "sub", "*": "mul"}  # df.wrapping_<instruction>
# Float products as device functions that are never fused with an addition into an FMA
# (NVVM fuses a * b + c by default; NumPy rounds the product first).
_UNFUSED_PRODUCTS = {"float64": "mul_f64", "float32": "mul_f32"}
_BITWISE = _spelled(operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift)
_COMPARE = _spelled(operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne)

# Functions of the operation's dtype, written with math (or a device function: df.).
_FLOAT_FUNCTIONS = {
    np.exp: "df.exp",
    np.expm1: "df.expm1",
    np.log: "df.log",
    np.log2: "df.log2",
    np.log10: "df.log10",
    np.log1p: "df.log1p",
    np.sqrt: "df.sqrt",
    np.sin: "df.sin",
    np.cos: "df.cos",
    np.tan: "df.tan",
    np.arcsin: "df.arcsin",
    np.arccos: "df.arccos",
    np.arctan: "math.atan",
    np.sinh: "df.sinh",
    np.cosh: "df.cosh",
    np.tanh: "math.tanh",
    np.arcsinh: "math.asinh",
    np.arccosh: "df.arccosh",
    np.arctanh: "df.arctanh",
    np.floor: "df.floor",
    np.ceil: "df.ceil",
    np.trunc: "df.trunc",
    np.rint: "df.rint",
    np.exp2: "df.exp2",
    np.cbrt: "df.cbrt",
    np.arctan2: "math.atan2",
    np.hypot: "math.hypot",
    np.copysign: "math.copysign",
    np.deg2rad: "df.deg2rad",
    np.radians: "df.deg2rad",
    np.rad2deg: "df.rad2deg",
    np.degrees: "df.rad2deg",
    np.fmod: "df.fmod_float",
    np.power: "df.power",
    np.float_power: "df.power",
    operator.pow: "df.power",
    np.true_divide: "df.divide",
    operator.truediv: "df.divide",
}
_ANY_FUNCTIONS = {
    np.maximum: "df.maximum",
    np.minimum: "df.minimum",
    np.fmax: "df.fmax",
    np.fmin: "df.fmin",
    np.absolute: "abs",
    np.fabs: "abs",
    operator.abs: "abs",
    abs: "abs",
    np.sign: "df.sign",
    np.square: "df.square",
    np.reciprocal: "df.reciprocal",
    np.conjugate: "",
    np.conj: "",
    **_spelled(operator.neg, operator.pos),
}
_FLOOR_DIVIDE = frozenset({operator.floordiv, np.floor_divide})
_REMAINDER = frozenset({operator.mod, np.remainder, np.mod})
_POWER = frozenset({operator.pow, np.power})
_LOGICAL = {np.logical_and: "and", np.logical_or: "or", np.logical_xor: "!="}
_PREDICATES = {np.isnan: "math.isnan", np.isinf: "math.isinf", np.isfinite: "math.isfinite"}
_INVERT = frozenset({operator.invert, np.invert, np.bitwise_not, operator.not_, np.logical_not})
_CASTS = frozenset({runtime.coerce, runtime.astype, runtime.retype, float, int, bool})
# Functions taking some arguments that are not elementwise operands.
_SELECTIONS = frozenset({np.where, np.clip})
_ROUNDS = frozenset({np.round, np.around})
_INTEGRAL_ROUNDINGS = frozenset({np.floor, np.ceil, np.trunc, np.rint})


class UnsupportedElement(Exception):
    """This operation has no per-element form on the device."""


def cast(dtype: np.dtype, expr: str) -> str:
    """``expr`` converted to ``dtype`` as NumPy's astype does (bool: nonzero)."""
    if dtype.kind == "b":
        return f"({expr} != 0)"
    return f"np.{dtype.name}({expr})"


def literal(value: Any) -> str:
    """Source for a constant operand."""
    if isinstance(value, (bool, np.bool_)):
        return repr(bool(value))
    if isinstance(value, (int, np.integer)):
        return repr(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "math.nan"
        if math.isinf(value):
            return "math.inf" if value > 0 else "-math.inf"
        return repr(value)
    raise UnsupportedElement(f"a {type(value).__name__} operand")


def supported(node: Node) -> bool:
    """Whether ``node`` has a per-element form here (what fusion may group)."""
    fn = node.arg.fn
    known = (
        fn in _ARITHMETIC
        or fn in _BITWISE
        or fn in _COMPARE
        or fn in _FLOAT_FUNCTIONS
        or fn in _ANY_FUNCTIONS
        or fn in _FLOOR_DIVIDE
        or fn in _REMAINDER
        or fn in _POWER
        or fn in _LOGICAL
        or fn in _PREDICATES
        or fn in _INVERT
        or fn in _CASTS
        or fn in _SELECTIONS
        or fn in _ROUNDS
    )
    if not known or not isinstance(node.type, TensorType):
        return False
    kinds = {node.type.dtype.kind} | {
        i.type.dtype.kind for i in node.inputs if isinstance(i.type, TensorType)
    }
    return not kinds & {"c", "U", "S", "O", "M", "m", "V"} and (
        fn in _SELECTIONS or fn in _CASTS or fn in _ROUNDS or not node.arg.kwargs
    )


def element(node: Node, inputs: list[str], number: int, ranges: list[tuple[str, np.dtype]]) -> str:
    """The expression computing one element of ``node`` from its inputs' elements
    (``number``: the node's number in the error array, for operations that can fail).
    Python int operands the host must check against a dtype's range are added to
    ``ranges`` as (source text, dtype)."""
    call = node.arg
    fn = call.fn
    values = fill(call.args, [_Operand(s, i.type) for s, i in zip(inputs, node.inputs)])
    out = node.type.dtype
    if fn in _CASTS:  # the value, then the dtype and flavor
        return cast(out, _operand(values[0]).text)
    operands = [_operand(v) for v in values]
    if fn in _SELECTIONS:
        return _selection(node, operands)
    if fn in _ROUNDS:
        decimals = fill(call.kwargs, []).get("decimals", values[1] if len(values) > 1 else 0)
        return _round(operands[0], out, decimals)
    if fn in _COMPARE:
        common = _common(operands)
        # Python ints compare exactly, also beyond the array's range (as in NumPy 2).
        a, b = (
            o.text if common.kind in "iu" and o.type.flavor == PYTHON else cast(common, o.text)
            for o in operands
        )
        return f"({a} {_COMPARE[fn]} {b})"
    if fn in _LOGICAL:
        a, b = (f"({o.text} != 0)" for o in operands)
        return f"({a} {_LOGICAL[fn]} {b})"
    if fn in _PREDICATES:
        source = operands[0]
        if source.dtype.kind != "f":
            return "False" if fn is not np.isfinite else "True"
        return f"{_PREDICATES[fn]}({source.text})"
    if fn in _INVERT:
        if out.kind == "b":
            return f"(not {cast(np.dtype(bool), operands[0].text)})"
        return cast(out, f"(~{operands[0].text})")
    if out.kind in "iu":  # NumPy 2 refuses Python ints outside the dtype's range
        ranges.extend(
            (o.text, out) for o in operands if o.type.flavor == PYTHON and o.dtype.kind in "iu"
        )
    args = [cast(out, o.text) if o.dtype != out else o.text for o in operands]
    if fn in _INTEGRAL_ROUNDINGS and out.kind in "iub":
        return cast(out, args[0])  # NumPy rounds integers and bools to themselves
    if out.kind == "b":
        return _boolean(fn, args)
    if fn in _ARITHMETIC and out == np.int64:  # wraps around where LLVM may assume not
        a, b = (cast(out, arg) for arg in args)  # (a Python int operand is a literal)
        return f"df.wrapping_{_INSTRUCTIONS[_ARITHMETIC[fn]]}({a}, {b})"
    if fn in _ARITHMETIC and _ARITHMETIC[fn] == "*" and out.name in _UNFUSED_PRODUCTS:
        return f"df.{_UNFUSED_PRODUCTS[out.name]}({cast(out, args[0])}, {cast(out, args[1])})"
    if fn in _ARITHMETIC:
        return cast(out, f"({args[0]} {_ARITHMETIC[fn]} {args[1]})")
    if fn in _BITWISE:
        return cast(out, f"({args[0]} {_BITWISE[fn]} {args[1]})")
    if fn in _FLOOR_DIVIDE:
        kind = "float" if out.kind == "f" else "int"
        return cast(out, f"df.floor_divide_{kind}({args[0]}, {args[1]})")
    if fn is np.fmod and out.kind in "iu":
        return cast(out, f"df.fmod_int({args[0]}, {args[1]})")
    if fn in _REMAINDER:
        kind = "float" if out.kind == "f" else "int"
        return cast(out, f"df.remainder_{kind}({args[0]}, {args[1]})")
    if fn in _POWER and out.kind in "iu":
        return cast(out, f"df.int_power({args[0]}, {args[1]}, {cast(out, '1')}, err, {number})")
    if fn in _FLOAT_FUNCTIONS and out.kind == "f":
        return cast(out, f"{_FLOAT_FUNCTIONS[fn]}({', '.join(args)})")
    if fn is np.square and out.name in _UNFUSED_PRODUCTS:
        x = cast(out, args[0])
        return f"df.{_UNFUSED_PRODUCTS[out.name]}({x}, {x})"
    if fn in _ANY_FUNCTIONS:
        name = _ANY_FUNCTIONS[fn]
        if name == "-" and out == np.int64:  # -x of the minimum is the minimum, as in NumPy
            return f"df.wrapping_sub(np.int64(0), {cast(out, args[0])})"
        if name in ("-", "+", ""):
            return cast(out, f"({name}{args[0]})")
        return cast(out, f"{name}({', '.join(args)})")
    raise UnsupportedElement(f"{call.name} on {out}")


class _Operand:
    """One operand of an element: its source text and dtype (Python scalars are weak)."""

    def __init__(self, text: str, t: Any) -> None:
        self.text = text
        self.type = t
        self.dtype = t.dtype


def _operand(value: Any) -> _Operand:
    if isinstance(value, _Operand):
        return value
    t = type_of(value)
    if t is None:
        raise UnsupportedElement(f"a {type(value).__name__} operand")
    return _Operand(literal(value), t)


def _common(operands: list[_Operand]) -> np.dtype:
    """NumPy's dtype for comparing these operands (Python scalars weak, NEP 50)."""
    return np.result_type(*(o.type.example() for o in operands))


def _boolean(fn: Callable, args: list[str]) -> str:
    """Arithmetic on bools: NumPy's add is or, multiply is and, maximum is or..."""
    if fn in (operator.add, np.add, np.maximum, np.fmax, operator.or_, np.bitwise_or):
        return f"({args[0]} or {args[1]})"
    if fn in (operator.mul, np.multiply, np.minimum, np.fmin, operator.and_, np.bitwise_and):
        return f"({args[0]} and {args[1]})"
    if fn in (operator.xor, np.bitwise_xor):
        return f"({args[0]} != {args[1]})"
    if fn in (
        np.absolute,
        np.fabs,
        operator.abs,
        abs,
        np.positive,
        operator.pos,
        np.square,
        np.sign,
    ):
        return args[0]
    raise UnsupportedElement(f"{getattr(fn, '__name__', fn)} on bool")


def _round(x: _Operand, out: np.dtype, decimals: Any) -> str:
    """np.round: half to even at ``decimals`` places, scaling as NumPy does."""
    if not isinstance(decimals, (int, np.integer)):
        raise UnsupportedElement("np.round with decimals known only at run time")
    if out.kind in "iu" and decimals >= 0:
        return cast(out, x.text)
    if out.kind != "f":
        raise UnsupportedElement("np.round of integers to tens")
    value = cast(out, x.text)
    scale = literal(10.0 ** abs(int(decimals)))
    if decimals >= 0:
        return cast(out, f"(df.rint({value} * {scale}) / {scale})")
    return cast(out, f"(df.rint({value} / {scale}) * {scale})")


def _selection(node: Node, operands: list[_Operand]) -> str:
    out = node.type.dtype
    if node.arg.fn is np.where:
        cond, a, b = operands
        return f"({cast(out, a.text)} if {cond.text} else {cast(out, b.text)})"
    x, low, high = operands  # np.clip(x, low, high)
    x, low, high = (cast(out, o.text) for o in (x, low, high))
    if all(bound.type.ndim == 0 for bound in node.inputs[1:]):
        return f"df.clip({x}, {low}, {high})"
    return f"df.clip_between({x}, {low}, {high})"


__all__ = ["UnsupportedElement", "cast", "element", "literal", "supported"]
