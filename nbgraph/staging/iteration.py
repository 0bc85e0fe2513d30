"""Iterables a graph loop can run over: ranges, array rows, enumerate, zip, lists.

``as_graph_sequence`` answers None for plain Python iterables (the loop is unrolled at
trace time) and otherwise a sequence with a run-time length and item access by index.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors.exceptions import StagingError
from ..graph import runtime
from ..graph.types import PYTHON
from ..source.origins import user_location
from .traced import Traced, TracedList, call, const, is_graph_value


class GraphSequence:
    """Something with ``length()`` and ``item(index)`` on graph values."""

    def length(self) -> Any:
        raise NotImplementedError

    def item(self, index: Any) -> Any:
        raise NotImplementedError

    def arrays(self) -> list[Traced]:
        """The arrays whose rows it reads."""
        return []

    def rebased(self, current: dict[int, Traced]) -> GraphSequence:
        """The same sequence reading each array ``a`` from ``current[id(a)]`` where given
        (the array's value at this point of a loop that writes into it)."""
        return self

    def __iter__(self) -> Any:
        raise StagingError(
            "a range (or enumerate/zip over it) whose length is known only when the graph "
            "runs is used outside a for loop or list(...): graph mode cannot unpack it into "
            "Python values. Loop over it with for, build an array with np.arange, or call "
            "the function's .eager(...) to run it as plain Python",
            user_location(),
        )


class GraphRange(GraphSequence):
    """range(start, stop, step) with graph bounds."""

    def __init__(self, *args: Any) -> None:
        if not 1 <= len(args) <= 3:
            raise TypeError(f"range expected at most 3 arguments, got {len(args)}")
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
        for value in (start, stop, step):
            t = value.type if isinstance(value, Traced) else None
            if t is not None and t.dtype.kind not in "iub":
                raise TypeError(f"'{t.dtype}' object cannot be interpreted as an integer")
        self.start, self.stop, self.step = start, stop, step

    def length(self) -> Any:
        return call(runtime.range_len, self.start, self.stop, self.step)

    def item(self, index: Any) -> Any:
        value = index if _is(self.step, 1) else index * self.step
        value = value if _is(self.start, 0) else self.start + value
        if isinstance(value, Traced) and value.type.flavor != PYTHON:
            value = call(int, value)  # (a range yields Python ints, whatever its bounds)
        return value


def _is(value: Any, constant: int) -> bool:
    """Whether value is the Python int ``constant`` (not a graph value)."""
    return type(value) is int and value == constant


class ArrayRows(GraphSequence):
    """The first-axis items of an array (rows of a matrix, elements of a vector)."""

    def __init__(self, array: Traced) -> None:
        if array.type.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        self.array = array

    def length(self) -> Any:
        return call(runtime.shape_dim, self.array, 0)

    def item(self, index: Any) -> Any:
        return self.array[index]

    def arrays(self) -> list[Traced]:
        return [self.array]

    def rebased(self, current: dict[int, Traced]) -> GraphSequence:
        return ArrayRows(current.get(id(self.array), self.array))


class ListItems(GraphSequence):
    """The items of a list built in a graph loop."""

    def __init__(self, lst: TracedList) -> None:
        self.lst = lst

    def length(self) -> Any:
        return call(runtime.list_len, self.lst)

    def item(self, index: Any) -> Any:
        return self.lst[index]


class Enumerate(GraphSequence):
    """enumerate(sequence, start)."""

    def __init__(self, inner: GraphSequence, start: Any = 0) -> None:
        self.inner, self.start = inner, start

    def length(self) -> Any:
        return self.inner.length()

    def item(self, index: Any) -> Any:
        count = index if _is(self.start, 0) else index + self.start
        return (count, self.inner.item(index))

    def arrays(self) -> list[Traced]:
        return self.inner.arrays()

    def rebased(self, current: dict[int, Traced]) -> GraphSequence:
        return Enumerate(self.inner.rebased(current), self.start)


class Zip(GraphSequence):
    """zip(*sequences): as long as the shortest."""

    def __init__(self, parts: list[GraphSequence]) -> None:
        self.parts = parts

    def length(self) -> Any:
        lengths = [p.length() for p in self.parts]
        out = lengths[0]
        for n in lengths[1:]:
            out = call(min, out, n)
        return out

    def item(self, index: Any) -> Any:
        return tuple(p.item(index) for p in self.parts)

    def arrays(self) -> list[Traced]:
        return [a for p in self.parts for a in p.arrays()]

    def rebased(self, current: dict[int, Traced]) -> GraphSequence:
        return Zip([p.rebased(current) for p in self.parts])


def as_graph_sequence(value: Any) -> GraphSequence | None:
    """value as a graph sequence, or None if it is a plain Python iterable."""
    if isinstance(value, GraphSequence):
        return value
    if isinstance(value, Traced):
        return ArrayRows(value)
    if isinstance(value, TracedList):
        return ListItems(value)
    return None


def _concrete_sequence(value: Any) -> GraphSequence:
    """A Python range/list/tuple/array inside zip/enumerate with graph parts."""
    sequence = as_graph_sequence(value)
    if sequence is not None:
        return sequence
    if isinstance(value, range):
        return GraphRange(value.start, value.stop, value.step)
    try:
        array = np.asarray(value)
    except Exception:
        array = None
    if array is None or array.dtype == object or array.ndim == 0:
        raise StagingError(
            f"cannot iterate a {type(value).__name__} together with graph values "
            "(zip/enumerate): use arrays, ranges or lists of numbers",
            user_location(),
        )
    return ArrayRows(const(array))


def make_range(*args: Any) -> Any:
    """range(...): a Python range unless a bound is a graph value."""
    if any(is_graph_value(a) for a in args):
        return GraphRange(*args)
    return range(*args)


def make_enumerate(iterable: Any, start: Any = 0) -> Any:
    """enumerate(...): staged when the iterable (or start) is a graph value."""
    sequence = as_graph_sequence(iterable)
    if sequence is None and not is_graph_value(start):
        return enumerate(iterable, start)
    return Enumerate(sequence or _concrete_sequence(iterable), start)


def make_zip(*iterables: Any) -> Any:
    """zip(...): staged when any part is a graph value."""
    if not any(as_graph_sequence(it) is not None for it in iterables):
        return zip(*iterables)
    return Zip([_concrete_sequence(it) for it in iterables])
