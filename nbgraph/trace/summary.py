"""Value summaries: what a recording keeps of a variable's value at one step.

A recording never copies a large array. It keeps its shape, dtype, size in bytes, the
first and last few elements and its min/max/mean and NaN/Inf counts, computed from an
evenly spaced sample above ``STATS_FULL_MAX`` elements (and labelled as such). Any other
object is kept as a bounded ``repr``. Numbers also keep their value as a float, for
plotting a variable across steps.
"""

from __future__ import annotations

import reprlib
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

STATS_FULL_MAX = 100_000  # more elements than this: statistics from a sample of ...
STATS_SAMPLE = 10_000  # ... about this many evenly spaced elements
EDGE_ITEMS = 5  # elements shown from each end of an array
FINGERPRINT_FULL_MAX = 64 * 1024  # bytes of an array checksummed whole to see mutations
FINGERPRINT_SAMPLE = 4096  # elements checksummed of a larger array
REPR_MAX = 200  # characters of any other value's repr


@dataclass(frozen=True)
class ArraySummary:
    """A NumPy array as recorded: never a copy of its data."""

    shape: tuple[int, ...]
    dtype: str
    nbytes: int
    head: tuple[str, ...]  # the first elements in flat (C) order, as text
    tail: tuple[str, ...]  # the last elements; empty when ``head`` holds them all
    min: float | None  # statistics of the finite numbers; None if there are none
    max: float | None
    mean: float | None
    nan_count: int
    inf_count: int
    sampled: int | None  # elements the statistics come from, when that is a sample

    @property
    def type(self) -> str:
        return "ndarray"

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def text(self) -> str:
        """``float64[2, 3] [0.0, 1.0, ..., 5.0]``"""
        items = [*self.head, "...", *self.tail] if self.tail else list(self.head)
        return f"{self.dtype}[{', '.join(map(str, self.shape))}] [{', '.join(items)}]"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "array",
            "type": "ndarray",
            "shape": list(self.shape),
            "dtype": self.dtype,
            "nbytes": self.nbytes,
            "head": list(self.head),
            "tail": list(self.tail),
            "min": self.min,
            "max": self.max,
            "mean": self.mean,
            "nan": self.nan_count,
            "inf": self.inf_count,
            "sampled": self.sampled,
            "text": self.text,
        }


@dataclass(frozen=True)
class ObjectSummary:
    """Any value that is not an array: its type and bounded repr."""

    type: str
    text: str
    number: float | None = None  # ints, floats, bools and NumPy scalars
    length: int | None = None  # containers: the repr shows only their first items

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "object",
            "type": self.type,
            "text": self.text,
            "number": self.number,
            "length": self.length,
        }


Summary = ArraySummary | ObjectSummary

_repr = reprlib.Repr()
_repr.maxstring = REPR_MAX
_repr.maxother = REPR_MAX
_repr.maxlist = _repr.maxtuple = _repr.maxset = _repr.maxdict = 12
_repr.maxlevel = 3

# Types whose values cannot change in place: a recording may keep such a value itself
# and summarize it only if its step is kept.
IMMUTABLE = frozenset({int, float, bool, complex, str, bytes, type(None), range})


def is_immutable(value: Any) -> bool:
    return type(value) in IMMUTABLE or isinstance(value, np.generic)


def shares(value: Any, targets: list[Any]) -> bool:
    """Whether ``value`` is one of ``targets`` or an array that may share memory with
    one (changing a target in place may change it)."""
    for target in targets:
        if value is target or (
            isinstance(value, np.ndarray)
            and isinstance(target, np.ndarray)
            and np.may_share_memory(value, target)
        ):
            return True
    return False


def summarize(value: Any) -> Summary:
    """The summary of ``value`` as it is now."""
    if isinstance(value, np.ndarray):
        return _array_summary(value)
    number = _number(value)
    try:
        text = str(value) if isinstance(value, np.generic) else _repr.repr(value)
    except Exception as exc:  # a user's __repr__ may fail
        text = f"<{type(value).__name__}: repr failed: {type(exc).__name__}>"
    if len(text) > REPR_MAX:
        text = text[: REPR_MAX - 3] + "..."
    name = str(value.dtype) if isinstance(value, np.generic) else type(value).__name__
    length = (
        len(value)
        if isinstance(value, list | tuple | dict | set | frozenset | str | bytes | bytearray)
        else None
    )
    return ObjectSummary(name, text, number, length)


def fingerprint(value: Any) -> Any:
    """Something that differs when a mutable value changes in place and is equal when
    it did not: for an array its shape, dtype and a checksum of its data (or of a
    sample of it), for anything else its summary."""
    if isinstance(value, np.ndarray):
        return (value.shape, value.dtype.str, zlib.crc32(_checksummed(value)))
    return summarize(value)


def _checksummed(array: np.ndarray) -> np.ndarray:
    """The bytes whose checksum stands for the array's content: all of them for a small
    array, a sample's for a large one; an object array's items by identity."""
    if array.nbytes > FINGERPRINT_FULL_MAX:
        array = _sample(array, FINGERPRINT_SAMPLE)
    if array.dtype.hasobject:
        return np.fromiter(map(id, array.flat), np.uint64, array.size)
    return np.ascontiguousarray(array)


def _number(value: Any) -> float | None:
    if isinstance(value, bool | int | float | np.integer | np.floating | np.bool_):
        try:
            return float(value)
        except OverflowError:
            return None
    return None


def _sample(array: np.ndarray, count: int) -> np.ndarray:
    """About ``count`` evenly spaced elements of ``array`` in flat order, without
    copying it (a flat view when it is contiguous)."""
    step = max(1, array.size // count)
    if array.flags.c_contiguous:
        return array.reshape(-1)[::step]
    return array.flat[np.arange(0, array.size, step)]


def _flat_edges(array: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if array.size <= 2 * EDGE_ITEMS:
        return array.flat[:], array.flat[:0]
    return array.flat[:EDGE_ITEMS], array.flat[array.size - EDGE_ITEMS :]


def _item_text(item: Any) -> str:
    if isinstance(item, np.floating | float):
        text = repr(float(item))  # the shortest text that reads back, if short
        return text.removesuffix(".0") if len(text) <= 10 else f"{item:.6g}"
    text = repr(item.item() if isinstance(item, np.generic) else item)
    return text if len(text) <= 40 else text[:37] + "..."


def _array_summary(array: np.ndarray) -> ArraySummary:
    head, tail = _flat_edges(array)
    stats: tuple[float | None, float | None, float | None, int, int] = (None, None, None, 0, 0)
    sampled = None
    if array.size and array.dtype.kind in "biuf":
        data = array
        if array.size > STATS_FULL_MAX:
            data = _sample(array, STATS_SAMPLE)
            sampled = int(data.size)
        stats = _statistics(data)
    return ArraySummary(
        tuple(array.shape),
        str(array.dtype),
        int(array.nbytes),
        tuple(map(_item_text, head)),
        tuple(map(_item_text, tail)),
        *stats,
        sampled,
    )


def _statistics(data: np.ndarray) -> tuple[float | None, float | None, float | None, int, int]:
    """(min, max, mean) of the finite numbers, and the NaN and Inf counts."""
    nan = inf = 0
    if data.dtype.kind == "f":
        finite = np.isfinite(data)
        if not finite.all():
            nan = int(np.count_nonzero(np.isnan(data)))
            inf = data.size - nan - int(np.count_nonzero(finite))
            data = data[finite]
    if data.size == 0:
        return None, None, None, nan, inf
    return (float(data.min()), float(data.max()), float(data.mean(dtype=np.float64)), nan, inf)
