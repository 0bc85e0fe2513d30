"""Argument templates: Python call arguments with holes where graph values go.

``split`` pulls the graph values out of nested tuples/lists/dicts/slices and leaves
``Hole`` markers; ``fill`` puts runtime values back.  This lets one CALL node express any
NumPy call (``np.sum(x, axis=(0, 1))``, ``x[1:n:2, None]``) without an op per function.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors.exceptions import StagingError
from ..source.origins import user_location


@dataclass(frozen=True)
class Text:
    """A string whose pieces are formatted at run time (f-strings, str.format, str(), %).

    ``parts`` holds plain strings and ``(value, conversion, format_spec)`` triples; the
    conversion ``"%"`` means ``format_spec % value`` (printf-style formatting).
    """

    parts: tuple

    def __add__(self, other: Any) -> Text:
        if isinstance(other, str):
            return Text((*self.parts, other))
        if isinstance(other, Text):
            return Text((*self.parts, *other.parts))
        return NotImplemented

    def __radd__(self, other: Any) -> Text:
        return Text((other, *self.parts)) if isinstance(other, str) else NotImplemented

    def __len__(self) -> int:
        raise self._unknown("its length")

    def __getitem__(self, index: Any) -> Any:
        raise self._unknown("its characters")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise self._unknown(f"str.{name}()")

    @staticmethod
    def _unknown(what: str) -> Exception:
        return StagingError(
            f"a string made from graph values (str(), an f-string, .format or %) is only "
            f"known when the graph runs, so {what} is not available while tracing; such a "
            "string can be printed, joined with +, or used in assert/raise messages",
            user_location(),
        )

    def __repr__(self) -> str:
        """Like an f-string: ``f'sum {%2:.3f}'`` (what graph listings show)."""
        out = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part.replace("{", "{{").replace("}", "}}"))
                continue
            value, conversion, spec = part
            if conversion == "%":
                out.append(f"{{{value!r}:{spec}}}")
                continue
            out.append(
                f"{{{value!r}{'!' + conversion if conversion else ''}{':' + spec if spec else ''}}}"
            )
        return "f" + repr("".join(out))

    def render(self) -> str:
        out = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            value, conversion, spec = part
            if conversion == "%":
                out.append(spec % value)
                continue
            if conversion == "r":
                value = repr(value)
            elif conversion == "s":
                value = str(value)
            elif conversion == "a":
                value = ascii(value)
            out.append(format(value, spec))
        return "".join(out)


@dataclass(frozen=True)
class Hole:
    """Position ``index`` of the node's graph inputs."""

    index: int

    def __repr__(self) -> str:
        return f"${self.index}"


def split(value: Any, is_leaf: Callable[[Any], bool]) -> tuple[Any, list[Any]]:
    """Replace every leaf inside ``value`` by a Hole; return (template, leaves)."""
    leaves: list[Any] = []

    def walk(v: Any) -> Any:
        if is_leaf(v):
            leaves.append(v)
            return Hole(len(leaves) - 1)
        if type(v) is tuple:
            return tuple(walk(x) for x in v)
        if type(v) is list:
            return [walk(x) for x in v]
        if type(v) is dict:
            return {k: walk(x) for k, x in v.items()}
        if type(v) is slice:
            return slice(walk(v.start), walk(v.stop), walk(v.step))
        if type(v) is Text:
            return Text(tuple(walk(x) for x in v.parts))
        return v

    return walk(value), leaves


def fill(template: Any, values: Any) -> Any:
    """Inverse of split: put ``values[i]`` where ``Hole(i)`` stands."""
    t = type(template)
    if t is Hole:
        return values[template.index]
    if t is tuple:
        return tuple(fill(x, values) for x in template)
    if t is list:
        return [fill(x, values) for x in template]
    if t is dict:
        return {k: fill(x, values) for k, x in template.items()}
    if t is slice:
        return slice(
            fill(template.start, values), fill(template.stop, values), fill(template.step, values)
        )
    if t is Text:
        return Text(tuple(fill(x, values) for x in template.parts))
    return template


def freeze(template: Any) -> Any:
    """A hashable key for a template (slices and lists are unhashable before 3.12)."""
    t = type(template)
    if t in (tuple, list):
        return (t.__name__, *(freeze(x) for x in template))
    if t is dict:
        return ("dict", *sorted((k, freeze(x)) for k, x in template.items()))
    if t is Text:
        return ("text", *(freeze(x) for x in template.parts))
    if t is slice:
        return ("slice", freeze(template.start), freeze(template.stop), freeze(template.step))
    try:
        hash(template)
    except TypeError:
        return ("id", id(template))
    if isinstance(template, (float, complex)):  # repr keeps -0.0 apart from 0.0
        return (type(template).__name__, repr(template))
    if isinstance(template, np.generic):
        return ("np", type(template).__name__, template.dtype.str, repr(template))
    return (type(template).__name__, template)
