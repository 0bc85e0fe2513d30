"""Vector-Jacobian products: how each operation passes a gradient to its operands.

``RULES[fn](g, out, *args, **kwargs)`` gets the cotangent ``g`` of a CALL node's result
``out`` and the call's arguments (graph values where the node had inputs), and returns
one cotangent per positional argument: None where none flows (constants, integers,
booleans), a list for a list argument (``np.concatenate([a, b])``).  Rules are written
in NumPy on graph values, so the backward pass is an ordinary graph.  Each rule's
comment states the identity it implements.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph import runtime
from ..graph.numpy_facts import REDUCTIONS
from ..graph.runtime import call_method
from ..graph.types import ARRAY
from ..staging.traced import Traced, call
from .broadcast import cast, unbroadcast, zeros

Rule = Callable[..., tuple]


def differentiable(x: Any) -> bool:
    """Whether a gradient flows into x: a real floating graph value."""
    return isinstance(x, Traced) and x.type.dtype.kind == "f"


def _unary(derivative: Callable[[Any, Any, Any], Any]) -> Rule:
    """A rule for f(x) from f'(x) written with x, f(x) and g: d/dx = g * f'(x)."""

    def rule(g: Any, out: Any, x: Any, *rest: Any, **kwargs: Any) -> tuple:
        return (
            cast(derivative(g, x, out), x.type) if differentiable(x) else None,
            *(None for _ in rest),
        )

    return rule


def _binary(da: Callable | None, db: Callable | None) -> Rule:
    """A rule for f(a, b) from the two partial products g * df/da and g * df/db."""

    def rule(g: Any, out: Any, a: Any, b: Any, *rest: Any, **kwargs: Any) -> tuple:
        return (
            unbroadcast(da(g, a, b, out), a, (b,)) if da and differentiable(a) else None,
            unbroadcast(db(g, a, b, out), b, (a,)) if db and differentiable(b) else None,
            *(None for _ in rest),
        )

    return rule


def _zero(g: Any, out: Any, *args: Any, **kwargs: Any) -> tuple:
    """Piecewise-constant functions (floor, sign, round...): zero almost everywhere."""
    return tuple(zeros(a) if differentiable(a) else None for a in args)


def _log_or_zero(x: Any) -> Any:
    """log(x) where x > 0, else 0 (the power rule's d/dy where the base is not positive)."""
    return np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), 0.0)


_ADD = _binary(lambda g, a, b, o: g, lambda g, a, b, o: g)  # d(a+b) = da + db
_SUB = _binary(lambda g, a, b, o: g, lambda g, a, b, o: -g)  # d(a-b) = da - db
_MUL = _binary(lambda g, a, b, o: g * b, lambda g, a, b, o: g * a)  # d(ab) = b da + a db
_DIV = _binary(lambda g, a, b, o: g / b, lambda g, a, b, o: -g * o / b)  # d(a/b) = da/b - a/b² db
_POW = _binary(  # d(a^b) = b a^(b-1) da + a^b log(a) db
    lambda g, a, b, o: g * b * a ** (b - 1), lambda g, a, b, o: g * o * _log_or_zero(a)
)
_MAX = _binary(  # the larger operand gets the gradient, a on ties
    lambda g, a, b, o: g * (a >= b), lambda g, a, b, o: g * (a < b)
)
_MIN = _binary(lambda g, a, b, o: g * (a <= b), lambda g, a, b, o: g * (a > b))
_NEG = _unary(lambda g, x, o: -g)
_SAME = _unary(lambda g, x, o: g)

RULES: dict[Any, Rule] = {
    operator.add: _ADD,
    np.add: _ADD,
    operator.sub: _SUB,
    np.subtract: _SUB,
    operator.mul: _MUL,
    np.multiply: _MUL,
    operator.truediv: _DIV,
    np.true_divide: _DIV,
    operator.pow: _POW,
    np.power: _POW,
    np.float_power: _POW,
    operator.neg: _NEG,
    np.negative: _NEG,
    operator.pos: _SAME,
    np.positive: _SAME,
    np.maximum: _MAX,
    np.fmax: _MAX,
    np.minimum: _MIN,
    np.fmin: _MIN,
    np.arctan2: _binary(  # d atan2(a, b) = (b da - a db) / (a² + b²)
        lambda g, a, b, o: g * b / (a * a + b * b), lambda g, a, b, o: -g * a / (a * a + b * b)
    ),
    np.hypot: _binary(lambda g, a, b, o: g * a / o, lambda g, a, b, o: g * b / o),
    np.exp: _unary(lambda g, x, o: g * o),  # exp' = exp
    np.exp2: _unary(lambda g, x, o: g * o * math.log(2.0)),
    np.expm1: _unary(lambda g, x, o: g * (o + 1.0)),
    np.log: _unary(lambda g, x, o: g / x),  # log' = 1/x
    np.log2: _unary(lambda g, x, o: g / (x * math.log(2.0))),
    np.log10: _unary(lambda g, x, o: g / (x * math.log(10.0))),
    np.log1p: _unary(lambda g, x, o: g / (x + 1.0)),
    np.sqrt: _unary(lambda g, x, o: g * 0.5 / o),  # sqrt' = 1 / (2 sqrt)
    np.cbrt: _unary(lambda g, x, o: g / (3.0 * o * o)),
    np.square: _unary(lambda g, x, o: g * 2.0 * x),
    np.reciprocal: _unary(lambda g, x, o: -g * o * o),
    np.sin: _unary(lambda g, x, o: g * np.cos(x)),
    np.cos: _unary(lambda g, x, o: -g * np.sin(x)),
    np.tan: _unary(lambda g, x, o: g * (1.0 + o * o)),
    np.arcsin: _unary(lambda g, x, o: g / np.sqrt(1.0 - x * x)),
    np.arccos: _unary(lambda g, x, o: -g / np.sqrt(1.0 - x * x)),
    np.arctan: _unary(lambda g, x, o: g / (1.0 + x * x)),
    np.sinh: _unary(lambda g, x, o: g * np.cosh(x)),
    np.cosh: _unary(lambda g, x, o: g * np.sinh(x)),
    np.tanh: _unary(lambda g, x, o: g * (1.0 - o * o)),  # tanh' = 1 - tanh²
    np.arcsinh: _unary(lambda g, x, o: g / np.sqrt(x * x + 1.0)),
    np.absolute: _unary(lambda g, x, o: g * np.sign(x)),  # |x|' = sign(x), 0 at 0
    np.fabs: _unary(lambda g, x, o: g * np.sign(x)),
    abs: _unary(lambda g, x, o: g * np.sign(x)),
    np.sign: _zero,
    np.floor: _zero,
    np.ceil: _zero,
    np.rint: _zero,
    np.trunc: _zero,
    np.round: _zero,
    np.around: _zero,
    float: _SAME,
    runtime.retype: _SAME,
    runtime.coerce: _SAME,
    runtime.astype: _SAME,
    np.real: _SAME,
}


def rule_for(fn: Any, args: tuple) -> Rule | None:
    """The rule for a call of fn (array methods by name), or None."""
    if fn is call_method:
        return _METHODS.get(args[1])
    try:
        return RULES.get(fn)
    except TypeError:  # an unhashable callable
        return None


# --- reductions ------------------------------------------------------------------------


def _axes(x: Any, axis: Any) -> tuple[int, ...]:
    """The reduced axes, non-negative and sorted (all of them for None)."""
    if axis is None:
        return tuple(range(x.type.ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(a % x.type.ndim for a in axes))


def _expanded(value: Any, x: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    """A reduction's result (or its cotangent) with the reduced axes back as length 1,
    so it broadcasts against x."""
    if keepdims or value.type.ndim == x.type.ndim or len(axes) in (0, x.type.ndim):
        return value  # (a full reduction's scalar broadcasts as it is)
    for axis in axes:  # one int axis at a time: what the CPU backend compiles
        value = call(np.expand_dims, value, axis)
    return value


def _kept(fn: Any, value: Any, x: Any, axes: tuple[int, ...]) -> Any:
    """``fn(value)`` over x's reduced ``axes``, broadcastable against x (a scalar for
    all axes, one int axis at a time: what the CPU backend compiles)."""
    if len(axes) == x.type.ndim:
        return call(fn, value)
    return call(fn, value, axis=axes[0] if len(axes) == 1 else axes, keepdims=True)


def _count(x: Any, out: Any) -> Any:
    """How many elements of x each reduced value summarises."""
    if out.type.flavor != ARRAY or out.type.ndim == 0:
        return call(np.size, x)
    return call(np.size, x) // call(runtime.extremum, max, call(np.size, out), 1)


def _reduction(kind: str) -> Rule:
    """Rules for sum, mean, max, min, prod, var and std over ``axis``."""

    def rule(
        g: Any,
        out: Any,
        x: Any,
        *rest: Any,
        axis: Any = None,
        keepdims: bool = False,
        ddof: Any = 0,
        **kwargs: Any,
    ) -> tuple:
        if rest:
            axis = rest[0]
        nones = tuple(None for _ in rest)
        if not differentiable(x):
            return (None, *nones)
        axes = _axes(x, axis)
        ge = _expanded(g, x, axes, keepdims)
        spread = ge + zeros(x)  # g broadcast to x's shape
        if kind == "sum":  # d sum = sum of d
            grad = spread
        elif kind == "mean":
            grad = spread / _count(x, out)
        elif kind in ("max", "min"):  # ties share the gradient equally, as in JAX
            hits = call(runtime.astype, x == _expanded(out, x, axes, keepdims), x.type.dtype)
            grad = spread * hits / _kept(np.sum, hits, x, axes)
        elif kind == "prod":  # d prod = prod / x dx (x nonzero)
            grad = spread * _expanded(out, x, axes, keepdims) / x
        else:  # var: 2 (x - mean) / (n - ddof); std: var' / (2 std)
            centred = x - _kept(np.mean, x, x, axes)
            n = _count(x, out) - ddof
            grad = spread * 2.0 * centred / n
            if kind == "std":
                grad = grad / (2.0 * _expanded(out, x, axes, keepdims))
        return (cast(grad, x.type), *nones)

    return rule


# The reductions ``_reduction`` differentiates, by their array methods (np.amax is max).
_DIFFERENTIATED = ("sum", "mean", "max", "min", "prod", "var", "std")
RULES.update(
    {f.function: _reduction(f.method) for f in REDUCTIONS.values() if f.method in _DIFFERENTIATED}
)


# --- linear algebra --------------------------------------------------------------------


def _matmul(g: Any, out: Any, a: Any, b: Any, *rest: Any, **kwargs: Any) -> tuple:
    """d(ab) = da b + a db: a's gradient is g bᵀ, b's is aᵀ g (vectors as rows/columns)."""
    ga = gb = None
    va, vb = a.type.ndim == 1, b.type.ndim == 1
    if differentiable(a):
        if va and vb:
            ga = g * b
        elif vb:
            ga = call(np.expand_dims, g, -1) * b
        elif va:
            ga = call(operator.matmul, b, g)
        else:
            ga = call(operator.matmul, g, _transposed(b))
            ga = unbroadcast(ga, a, (b,)) if ga.type.ndim > a.type.ndim else ga
        ga = cast(ga, a.type)
    if differentiable(b):
        if va and vb:
            gb = g * a
        elif va:
            gb = call(np.expand_dims, a, -1) * call(np.expand_dims, g, 0)
        elif vb:
            gb = call(operator.matmul, g, a)
        else:
            gb = call(operator.matmul, _transposed(a), g)
            gb = unbroadcast(gb, b, (a,)) if gb.type.ndim > b.type.ndim else gb
        gb = cast(gb, b.type)
    return (ga, gb, *(None for _ in rest))


def _transposed(m: Any) -> Any:
    """A matrix (or stack of them) with its last two axes swapped, copied contiguous
    (compiled matrix products are several times faster on contiguous operands)."""
    if m.type.ndim == 2:
        return call(np.ascontiguousarray, call(np.transpose, m))
    return call(np.swapaxes, m, -1, -2)


def _dot(g: Any, out: Any, a: Any, b: Any, *rest: Any, **kwargs: Any) -> tuple:
    """np.dot: a product with a scalar, else matmul's rule (1-d and 2-d operands)."""
    if a.type.ndim == 0 or b.type.ndim == 0:
        return _MUL(g, out, a, b, *rest)
    return _matmul(g, out, a, b, *rest)


RULES.update({operator.matmul: _matmul, np.matmul: _matmul, np.dot: _dot})


# --- indexing and shapes ---------------------------------------------------------------


def _gathers(index: Any) -> bool:
    """Whether an index selects by integer arrays (an element may be picked twice)."""
    items = index if type(index) is tuple else (index,)
    return any(
        (isinstance(i, Traced) and i.type.ndim > 0 and i.type.dtype.kind in "iu")
        or isinstance(i, list)
        or (isinstance(i, np.ndarray) and i.dtype.kind in "iu")
        for i in items
    )


def _getitem(g: Any, out: Any, x: Any, index: Any) -> tuple:
    """x[index]: g lands where the elements came from (added up where picked twice)."""
    if not differentiable(x):
        return (None, None)
    scatter = runtime.add_at if _gathers(index) else runtime.setitem
    return (call(scatter, zeros(x), index, g), None)


def _setitem(g: Any, out: Any, x: Any, index: Any, value: Any) -> tuple:
    """x with x[index] = value: the overwritten elements' gradient goes to value."""
    gx = call(runtime.setitem, g, index, 0.0) if differentiable(x) else None
    gv = (
        unbroadcast(call(operator.getitem, g, index), value, (x,))
        if differentiable(value)
        else None
    )
    return (gx, None, gv)


def _reshape(g: Any, out: Any, x: Any, *rest: Any, **kwargs: Any) -> tuple:
    """Reshapes, ravel, squeeze, expand_dims: g takes x's shape back."""
    if not differentiable(x):
        return (None, *(None for _ in rest))
    back = (
        call(np.reshape, call(np.ascontiguousarray, g), x.shape) if x.type.flavor == ARRAY else g
    )  # (compiled reshapes need contiguous arrays)
    return (cast(back, x.type), *(None for _ in rest))


def _transpose(g: Any, out: Any, x: Any, axes: Any = None) -> tuple:
    """transpose by axes: g transposed by the inverse permutation."""
    if not differentiable(x):
        return (None, None)
    inverse = None if axes is None else tuple(int(i) for i in np.argsort(axes))
    return (call(np.transpose, g, inverse), None)


def _swapaxes(g: Any, out: Any, x: Any, a: int, b: int) -> tuple:
    return (call(np.swapaxes, g, a, b) if differentiable(x) else None, None, None)


def _concatenate(g: Any, out: Any, parts: Any, axis: Any = 0, **kwargs: Any) -> tuple:
    """Each part gets its slice of g along the axis (g flattened for axis=None)."""
    flat = axis is None
    axis = 0 if flat else axis % out.type.ndim
    start: Any = 0
    grads = []
    for part in parts:
        length = (
            (call(np.size, part) if flat else part.shape[axis])
            if isinstance(part, Traced)
            else (np.size(part) if flat else np.shape(part)[axis])
        )
        stop = start + length
        if differentiable(part):
            piece = call(operator.getitem, g, (slice(None),) * axis + (slice(start, stop),))
            grads.append(cast(call(np.reshape, piece, part.shape) if flat else piece, part.type))
        else:
            grads.append(None)
        start = stop
    return (grads, None)


def _stack(g: Any, out: Any, parts: Any, axis: int = 0, **kwargs: Any) -> tuple:
    """Part i gets g[..., i, ...] along the new axis."""
    axis %= out.type.ndim
    return (
        [
            cast(call(operator.getitem, g, (slice(None),) * axis + (i,)), part.type)
            if differentiable(part)
            else None
            for i, part in enumerate(parts)
        ],
        None,
    )


def _hstack(g: Any, out: Any, parts: Any, **kwargs: Any) -> tuple:
    return _concatenate(g, out, parts, 0 if out.type.ndim == 1 else 1)


def _vstack(g: Any, out: Any, parts: Any, **kwargs: Any) -> tuple:
    if all(p.type.ndim == 1 for p in parts if isinstance(p, Traced)):
        return _stack(g, out, parts, 0)
    return _concatenate(g, out, parts, 0)


def _where(g: Any, out: Any, cond: Any, a: Any, b: Any) -> tuple:
    """where(c, a, b): a's gradient where c holds, b's elsewhere."""
    return (
        None,
        unbroadcast(np.where(cond, g, 0.0), a, (cond, b)) if differentiable(a) else None,
        unbroadcast(np.where(cond, 0.0, g), b, (cond, a)) if differentiable(b) else None,
    )


def _clip(g: Any, out: Any, x: Any, low: Any = None, high: Any = None, **kwargs: Any) -> tuple:
    """clip(x, lo, hi): x's gradient inside [lo, hi], the bound's where x is past it."""
    low, high = kwargs.get("a_min", low), kwargs.get("a_max", high)
    inside = g
    if low is not None:
        inside = inside * (x >= low)
    if high is not None:
        inside = inside * (x <= high)
    gx = unbroadcast(inside, x, (low, high)) if differentiable(x) else None
    glow = unbroadcast(g * (x < low), low, (x, high)) if differentiable(low) else None
    ghigh = unbroadcast(g * (x > high), high, (x, low)) if differentiable(high) else None
    return (gx, glow, ghigh)


def _extremum(g: Any, out: Any, fn: Any, *values: Any) -> tuple:
    """Builtin max/min of numbers: the values equal to the result share g."""
    hits = [v == out for v in values]
    count = hits[0] * 1
    for hit in hits[1:]:
        count = count + hit
    return (
        None,
        *(
            cast(g * hit / count, v.type) if differentiable(v) else None
            for v, hit in zip(values, hits)
        ),
    )


def _copy(g: Any, out: Any, x: Any, *rest: Any, **kwargs: Any) -> tuple:
    return (g if differentiable(x) else None, *(None for _ in rest))


def _cumsum(g: Any, out: Any, x: Any, axis: Any = None, **kwargs: Any) -> tuple:
    """cumsum: each element feeds every later sum, so g summed from the end."""
    if not differentiable(x):
        return (None, None)
    if axis is None:
        back = call(np.cumsum, g[::-1])[::-1]
        return (call(np.reshape, back, x.shape), None)
    axis %= x.type.ndim
    flip = (slice(None),) * axis + (slice(None, None, -1),)
    return (call(operator.getitem, call(np.cumsum, g[flip], axis=axis), flip), None)


def _filled(g: Any, out: Any, *args: Any, **kwargs: Any) -> tuple:
    """zeros_like, full... depend on their argument's shape only; a fill value gets the
    sum of g."""
    fill = kwargs.get("fill_value", args[1] if len(args) > 1 else None)
    grads: list[Any] = [None] * len(args)
    if differentiable(fill) and len(args) > 1:
        grads[1] = cast(call(np.sum, g), fill.type)
    return tuple(grads)


RULES.update(
    {
        fn: _filled
        for fn in (
            np.zeros_like,
            np.ones_like,
            np.empty_like,
            np.full_like,
            np.zeros,
            np.ones,
            np.empty,
            np.full,
        )
    }
)
RULES.update(
    {
        operator.getitem: _getitem,
        runtime.setitem: _setitem,
        np.reshape: _reshape,
        np.ravel: _reshape,
        np.squeeze: _reshape,
        np.expand_dims: _reshape,
        np.transpose: _transpose,
        np.swapaxes: _swapaxes,
        np.concatenate: _concatenate,
        np.stack: _stack,
        np.hstack: _hstack,
        np.vstack: _vstack,
        np.where: _where,
        np.clip: _clip,
        runtime.extremum: _extremum,
        np.copy: _copy,
        np.cumsum: _cumsum,
        np.asarray: _copy,
        np.array: _copy,
    }
)


def _method(rule: Rule) -> Rule:
    """A rule for ``x.name(...)``, recorded as call_method(x, name, ...)."""

    def method_rule(g: Any, out: Any, x: Any, name: str, *args: Any, **kwargs: Any) -> tuple:
        grads = rule(g, out, x, *args, **kwargs)
        return (grads[0], None, *grads[1:])

    return method_rule


_METHODS: dict[str, Rule] = {
    **{name: _method(RULES[getattr(np, name)]) for name in _DIFFERENTIATED},
    "ravel": _method(_reshape),
    "flatten": _method(_reshape),
    "copy": _method(_copy),
    "clip": _method(_clip),
    "dot": _method(_dot),
    "cumsum": _method(_cumsum),
    "conj": _method(_copy),
    "conjugate": _method(_copy),
    "round": _method(_zero),
}
