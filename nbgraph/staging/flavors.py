"""A number whose Python type depends on the path the graph takes when it runs.

Eagerly, ``total = 0; for e in x: total += e`` leaves the Python int ``0`` when the loop
never runs and a NumPy ``int64`` when it does; ``t = 0.0 if c else np.float64(1)`` is a
Python float on one path and a NumPy scalar on the other.  A graph value has one static
type (the loop's, the join of both branches'), so each such value also carries its
``alts``: pairs ``(when, type)`` of a graph bool and the type eager code gives it on the
run where that bool is true (the first true one counts).  Operators pass the alts on
where the other type differs in Python flavor only; a function's results that carry
alts are returned with the flags beside them (``Graph.flavors``), so the caller gets
eager's type.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..graph.types import TensorType, type_of
from .traced import Alts, Traced, Unbound, call, trimmed, visible_alts
from .undefined import Undefined


def _on(when: Traced, value: Any, static: TensorType) -> Alts:
    """Alts of ``value`` (entering a path taken when ``when`` holds) where the path's
    result has the static type ``static``: its own alts under ``when``, then its type."""
    alts = visible_alts(value) if isinstance(value, Traced) else ()
    out = [(call(operator.and_, when, w), t) for w, t in alts]
    return trimmed(out + _own(when, value, static), static)


def _own(when: Traced, value: Any, static: TensorType) -> list[tuple[Traced, Any]]:
    """(when, value's type) if value is a scalar: where ``when`` holds, eager's type."""
    own = value.type if isinstance(value, Traced) else type_of(value)
    if isinstance(own, TensorType) and own.ndim == 0 and static.ndim == 0:
        return [(when, own if _exact(own, static) else static)]
    return []


def _exact(t: TensorType, static: TensorType) -> bool:
    """Whether a value of type t computed in the static type converts back to t exactly
    (a float that entered a narrower type lost bits: its type alone is no fix)."""
    return t.dtype.kind in "biu" or np.can_cast(t.dtype, static.dtype, "safe")


def give(value: Any, alts: Alts) -> Any:
    """value (a graph value) carrying ``alts``: an array only those that say it is
    unbound, since an array's type does not depend on the run; other values unchanged."""
    if isinstance(value, Traced):
        if value.type.ndim != 0:
            alts = tuple((w, t) for w, t in alts if isinstance(t, Unbound))
        if alts:
            value.alts = alts
    return value


def same_value(value: Any, handle: Any) -> Any:
    """A new handle of the same value carries the value's alts."""
    if isinstance(value, Traced):
        give(handle, visible_alts(value))
    return handle


def after_branches(pred: Traced, a: Any, b: Any, merged: Any, exported: list) -> Any:
    """The merged value of an ``if`` whose branches left ``a`` (pred true) and ``b``;
    ``exported``: per branch, its value's alts with their flags read after the if
    (false where the other branch ran)."""
    if not isinstance(merged, Traced):
        return merged
    static = merged.type
    alts = [*exported[0], *_own(pred, a, static), *exported[1]]
    if any(t != static for _, t in _own(pred, b, static)):  # (made only when needed)
        alts += _own(call(operator.not_, pred), b, static)
    return give(merged, trimmed(alts, static))


def after_extremum(fn: Callable, args: Sequence[Any], result: Any) -> Any:
    """Python's max/min of numbers (``fn``): the graph computes the promoted type, but
    eager code returns the argument that wins, as it is (a bool stays a bool).  The
    first argument greater (max) or less (min) than every one before it and not
    exceeded by any after it is the one returned."""
    if not isinstance(result, Traced):
        return result
    beats = operator.gt if fn is max else operator.lt
    alts: Alts = ()
    for i, arg in enumerate(args):
        if all(t == result.type for t in other_types_of(arg)):
            continue  # it has the result's type on every run
        won: Any = True
        for j, other in enumerate(args):
            if j < i:
                wins = call(beats, arg, other)
            elif j > i:
                wins = call(operator.not_, call(beats, other, arg))
            else:
                continue
            won = wins if won is True else call(operator.and_, won, wins)
        alts += _on(call(bool, won), arg, result.type)
    return give(result, tuple((w, t) for w, t in alts if not isinstance(t, Unbound)))


def types_of(value: Any) -> Alts:
    """The alts of value that give it another type (not those that say it is unbound)."""
    alts = visible_alts(value) if isinstance(value, Traced) else ()
    return tuple((w, t) for w, t in alts if not isinstance(t, Unbound))


def flags(values: Sequence[Any]) -> list[tuple[int, Alts]]:
    """The results (by position) that carry alts visible at the function's top level."""
    return [(i, alts) for i, alts in enumerate(map(types_of, values)) if alts]


def other_types_of(value: Any) -> list[Any]:
    """The types a value has on some run: its static type and its alts' types (or
    ``Unbound`` for a variable with no value yet)."""
    if isinstance(value, Traced):
        return [value.type, *(t for _, t in visible_alts(value))]
    if isinstance(value, Undefined):
        return [Unbound(value.name)]
    if not isinstance(value, (bool, int, float, complex, np.generic)):
        return []
    t = type_of(value)
    return [t] if isinstance(t, TensorType) and t.ndim == 0 else []


def holds(value: Any, t: TensorType) -> Any:
    """Whether value is eagerly of type t: a Python bool, or a graph bool."""
    if not isinstance(value, Traced):
        return t in other_types_of(value)
    found: Any = value.type == t
    for when, u in reversed(visible_alts(value)):  # the first true flag decides
        if u == t:
            found = True if found is True else call(operator.or_, when, found)
        elif found is not False:
            not_when = call(operator.not_, when)
            found = not_when if found is True else call(operator.and_, not_when, found)
    return found


class CarryFlags(Exception):
    """A loop variable may hold a number of another type than the loop's (``found``:
    (variable, type) pairs): trace the loop again with a flag for each beside it."""

    def __init__(self, found: list[tuple[int, TensorType]]) -> None:
        super().__init__()
        self.found = found


TYPE_FLAG = "<type of "  # how a variable's Python-type flag is named: "<type of x>"


def flags_to_carry(
    k: int, static: TensorType, types: list[TensorType], flagged: frozenset
) -> list[tuple[int, TensorType]]:
    """The (variable, type) flags loop variable k needs that are not carried yet: for each
    scalar type it has on some run besides the loop's static one (and converts back to
    exactly)."""
    out: list[tuple[int, TensorType]] = []
    for t in types:
        exact = isinstance(t, Unbound) or (static.ndim == 0 and _exact(t, static))
        if t != static and exact and (k, t) not in flagged and (k, t) not in out:
            out.append((k, t))
    return out


class FlaggedLoop:
    """A loop whose variables listed in ``flagged`` ((variable, type) pairs) carry a
    graph bool each beside them: whether the variable holds, eagerly, a number of that
    type (a Python int where the loop's is a NumPy int64, until the body changes it)."""

    def __init__(
        self,
        test: Callable,
        body: Callable,
        names: Sequence[str],
        init: Sequence[Any],
        flagged: list[tuple[int, TensorType]],
    ) -> None:
        self.test, self.body, self.names, self.init = test, body, names, init
        self.flagged = list(flagged)
        self.count = len(names)

    def traced(self) -> tuple[Callable, Callable, tuple, tuple]:
        """The condition, body, names and initial values to trace the loop with."""
        if not self.flagged:
            return self.test, self.body, tuple(self.names), tuple(self.init)
        names = (*self.names, *(f"{TYPE_FLAG}{self.names[k]}>" for k, _ in self.flagged))
        starts = (holds(self.init[k], t) for k, t in self.flagged)
        return self._test, self._body, names, (*self.init, *starts)

    def _with_flags(self, args: Sequence[Any]) -> list[Any]:
        own = list(args[: self.count])
        for (k, t), flag in zip(self.flagged, args[self.count :]):
            if isinstance(own[k], Traced) and isinstance(flag, Traced):
                own[k].alts = (*own[k].alts, (flag, t))
        return own

    def _test(self, *args: Any) -> Any:
        return self.test(*self._with_flags(args))

    def _body(self, *args: Any) -> tuple:
        out = tuple(self.body(*self._with_flags(args)))
        return (*out, *(holds(out[k], t) for k, t in self.flagged))

    def finish(self, result: Sequence[Any]) -> list[Any]:
        """The loop variables after the loop, each carrying its flags as alts."""
        out = list(result[: self.count])
        for (k, t), flag in zip(self.flagged, result[self.count :]):
            if isinstance(out[k], Traced) and isinstance(flag, Traced):
                give(out[k], (*visible_alts(out[k]), (flag, t)))
        return out
