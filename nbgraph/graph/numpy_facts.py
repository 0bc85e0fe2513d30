"""Facts about the NumPy functions and Python operators CALL nodes apply, each said once.

Passes, backends and the graph view ask here which functions are reductions (and which
of those arrays have as methods, or never fail), which results may be views of their
argument, how an operator is spelled and which ufunc it is on arrays, and what an array
method call (``runtime.call_method``) applies to.  Each user selects what it supports
with a query of these tables, so they cannot disagree about the facts.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .runtime import call_method


class Call(Protocol):
    """A CALL node's function and argument template (``functions.Call``)."""

    fn: Callable
    args: tuple


# --- operators ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Operator:
    """A Python operator: how the graph names it, how Python spells it (None: no
    operator syntax, as ``x[i]``) and the ufunc it is on arrays (None where it is not
    elementwise: ``@``, ``not``, indexing)."""

    symbol: str
    syntax: str | None
    arity: int
    ufunc: np.ufunc | None


OPERATORS: dict[Callable, Operator] = {
    operator.add: Operator("+", "+", 2, np.add),
    operator.sub: Operator("-", "-", 2, np.subtract),
    operator.mul: Operator("*", "*", 2, np.multiply),
    operator.truediv: Operator("/", "/", 2, np.true_divide),
    operator.floordiv: Operator("//", "//", 2, np.floor_divide),
    operator.mod: Operator("%", "%", 2, np.remainder),
    operator.pow: Operator("**", "**", 2, np.power),
    operator.matmul: Operator("@", "@", 2, None),
    operator.and_: Operator("&", "&", 2, np.bitwise_and),
    operator.or_: Operator("|", "|", 2, np.bitwise_or),
    operator.xor: Operator("^", "^", 2, np.bitwise_xor),
    operator.lshift: Operator("<<", "<<", 2, np.left_shift),
    operator.rshift: Operator(">>", ">>", 2, np.right_shift),
    operator.lt: Operator("<", "<", 2, np.less),
    operator.le: Operator("<=", "<=", 2, np.less_equal),
    operator.gt: Operator(">", ">", 2, np.greater),
    operator.ge: Operator(">=", ">=", 2, np.greater_equal),
    operator.eq: Operator("==", "==", 2, np.equal),
    operator.ne: Operator("!=", "!=", 2, np.not_equal),
    operator.neg: Operator("neg", "-", 1, np.negative),
    operator.pos: Operator("pos", "+", 1, np.positive),
    operator.invert: Operator("~", "~", 1, np.invert),
    operator.not_: Operator("not", "not ", 1, None),
    operator.getitem: Operator("getitem", None, 2, None),
}


def ufunc_of(fn: Callable) -> np.ufunc | None:
    """The ufunc computing what ``fn`` does on arrays: fn itself, or an operator's."""
    if isinstance(fn, np.ufunc):
        return fn
    op = OPERATORS.get(fn)
    return op.ufunc if op is not None else None


# --- functions along axes ------------------------------------------------------------------

REDUCTION = "reduction"  # drops the axes it works along: np.sum
SCAN = "scan"  # cumulative along an axis, the shape kept: np.cumsum
ALONG_AXIS = "along_axis"  # other work along one axis that keeps the rank: np.sort


@dataclass(frozen=True)
class AxisFunction:
    """A NumPy function working along axes of its first argument (``axis=``).

    ``kind``: REDUCTION, SCAN or ALONG_AXIS.  ``method``: the array method computing the
    same (``x.max()`` for ``np.amax``), for the reductions and scans arrays have.
    ``default_axis``: where it works without ``axis=`` (None: all axes, or the flattened
    array).  ``total``: gives a value for any input, empty ones included, so an unused
    one may be dropped.  ``common``: in everyday use; the graph view colours only these
    as reductions (the rarer NaN-ignoring variants are not).
    """

    name: str
    kind: str
    method: str | None = None
    default_axis: int | None = None
    total: bool = False
    common: bool = True

    @property
    def function(self) -> Callable:
        """``np.<name>``."""
        return getattr(np, self.name)

    @property
    def alias(self) -> bool:
        """Whether it is another name of an array method's function (np.amax: x.max)."""
        return self.method is not None and self.method != self.name


def _table(*facts: AxisFunction) -> dict[str, AxisFunction]:
    return {f.name: f for f in facts}


AXIS_FUNCTIONS: dict[str, AxisFunction] = _table(
    AxisFunction("sum", REDUCTION, "sum", total=True),
    AxisFunction("prod", REDUCTION, "prod", total=True),
    AxisFunction("mean", REDUCTION, "mean", total=True),
    AxisFunction("std", REDUCTION, "std"),
    AxisFunction("var", REDUCTION, "var"),
    AxisFunction("min", REDUCTION, "min"),
    AxisFunction("max", REDUCTION, "max"),
    AxisFunction("amin", REDUCTION, "min"),
    AxisFunction("amax", REDUCTION, "max"),
    AxisFunction("any", REDUCTION, "any", total=True),
    AxisFunction("all", REDUCTION, "all", total=True),
    AxisFunction("argmin", REDUCTION, "argmin"),
    AxisFunction("argmax", REDUCTION, "argmax"),
    AxisFunction("median", REDUCTION),
    AxisFunction("average", REDUCTION),
    AxisFunction("ptp", REDUCTION),
    AxisFunction("count_nonzero", REDUCTION, total=True),
    AxisFunction("nansum", REDUCTION),
    AxisFunction("nanmean", REDUCTION),
    AxisFunction("nanmin", REDUCTION),
    AxisFunction("nanmax", REDUCTION),
    AxisFunction("nanprod", REDUCTION, common=False),
    AxisFunction("nanstd", REDUCTION, common=False),
    AxisFunction("nanvar", REDUCTION, common=False),
    AxisFunction("nanargmin", REDUCTION, common=False),
    AxisFunction("nanargmax", REDUCTION, common=False),
    AxisFunction("nanmedian", REDUCTION, common=False),
    AxisFunction("cumsum", SCAN, "cumsum"),
    AxisFunction("cumprod", SCAN, "cumprod"),
    AxisFunction("nancumsum", SCAN, common=False),
    AxisFunction("nancumprod", SCAN, common=False),
    AxisFunction("sort", ALONG_AXIS, default_axis=-1),
    AxisFunction("argsort", ALONG_AXIS, default_axis=-1),
    AxisFunction("diff", ALONG_AXIS, default_axis=-1),
    AxisFunction("flip", ALONG_AXIS),
)
REDUCTIONS: dict[str, AxisFunction] = {
    name: f for name, f in AXIS_FUNCTIONS.items() if f.kind == REDUCTION
}


# --- views ---------------------------------------------------------------------------------

# Functions whose result may be a view of (or be) their first argument, other than basic
# slicing (which graph mode follows: ``Traced.sliced``).
VIEW_FUNCTIONS = frozenset(
    {
        np.transpose,
        np.reshape,
        np.ravel,
        np.squeeze,
        np.expand_dims,
        np.swapaxes,
        np.moveaxis,
        np.broadcast_to,
        np.real,
        np.imag,
        np.asarray,
        np.asanyarray,
        np.diagonal,
        np.flip,
        np.fliplr,
        np.flipud,
        np.rot90,
        np.atleast_1d,
        np.atleast_2d,
        np.atleast_3d,
        np.ascontiguousarray,
        np.asfortranarray,
        np.require,
    }
)
# The array methods of those: ``x.ravel()`` may be a view of x as ``np.ravel(x)`` is.
VIEW_METHODS = frozenset(
    fn.__name__ for fn in VIEW_FUNCTIONS if callable(getattr(np.ndarray, fn.__name__, None))
)

# Array methods whose result is always a new array (or a scalar), never the array itself
# or a view of it, when no ``out=`` is given.
NEW_ARRAY_METHODS = frozenset(
    {
        "copy",
        "flatten",
        "round",
        "clip",
        "cumsum",
        "cumprod",
        "dot",
        "repeat",
        "take",
        "compress",
        "argsort",
        "nonzero",
        "searchsorted",
        "sum",
        "mean",
        "prod",
        "min",
        "max",
        "std",
        "var",
        "any",
        "all",
        "argmax",
        "argmin",
        "trace",
    }
)


# --- array method calls --------------------------------------------------------------------


def method_name(call: Call) -> str | None:
    """The array method ``call`` applies (``x.sum(0)``: "sum"), None for a function."""
    return call.args[1] if call.fn is call_method else None


def call_operands(call: Call, args: Sequence[Any] | None = None) -> tuple:
    """What ``call``'s function or method is applied to: its argument template, or
    ``args`` (the template filled in), with a method call's name left out, so
    ``x.sum(0)`` and ``np.sum(x, 0)`` both give ``(x, 0)``."""
    args = tuple(call.args if args is None else args)
    return (args[0], *args[2:]) if call.fn is call_method else args


def axis_function(call: Call) -> AxisFunction | None:
    """The function along axes ``call`` applies, as ``np.amax(x)`` or as ``x.max()``."""
    name = method_name(call)
    if name is not None:
        facts = AXIS_FUNCTIONS.get(name)
        return facts if facts is not None and facts.method == name else None
    facts = AXIS_FUNCTIONS.get(getattr(call.fn, "__name__", ""))
    return facts if facts is not None and facts.function is call.fn else None


def reduction_of(call: Call) -> AxisFunction | None:
    """The reduction ``call`` applies (function or array method), if it is one."""
    facts = axis_function(call)
    return facts if facts is not None and facts.kind == REDUCTION else None
