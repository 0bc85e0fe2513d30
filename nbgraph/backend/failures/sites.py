"""Where in a graph a run failed: the node, its operand values, the loop iterations.

Backends that know the failing node tag the exception with a ``FailureSite`` as it
propagates (the interpret backend always does; compiled backends do for their Python
callbacks); ``failures.mapping`` turns the site into the user's traceback and notes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...graph.ir import Node

_ATTRIBUTE = "__nbgraph_site__"


@dataclass
class LoopStep:
    """The failing iteration of one loop: how many iterations completed before it, and
    the user's loop variables when it began."""

    node: Node
    completed: int
    state: dict[str, Any]


@dataclass
class FailureSite:
    """The node whose operation raised, with the values it was applied to."""

    node: Node
    operands: list[Any]
    loops: list[LoopStep] = field(default_factory=list)  # outermost first


def tag(exc: BaseException, node: Node, operands: list[Any]) -> None:
    """Record ``node`` as the failing node of ``exc`` unless an inner one already is."""
    if getattr(exc, _ATTRIBUTE, None) is None:
        setattr(exc, _ATTRIBUTE, FailureSite(node, list(operands)))


def tag_loop(
    exc: BaseException, node: Node, completed: int, names: tuple, state: list[Any]
) -> None:
    """Record that ``exc`` escaped iteration ``completed + 1`` of the loop ``node``."""
    site = site_of(exc)
    if site is not None:
        named = {n: v for n, v in zip(names, state) if n is not None}
        site.loops.insert(0, LoopStep(node, completed, named))


def share_site(exc: BaseException, other: BaseException) -> None:
    """Give ``other``, raised in place of ``exc``, the failure site of ``exc`` (the
    same object: loops around it are recorded for both as the error goes on)."""
    setattr(other, _ATTRIBUTE, site_of(exc))


def site_of(exc: BaseException) -> FailureSite | None:
    """The failing node recorded on ``exc``, if any."""
    return getattr(exc, _ATTRIBUTE, None)


def interrupted_in(loop: Node, completed: int) -> KeyboardInterrupt:
    """The KeyboardInterrupt for Ctrl-C seen while the graph loop ``loop`` ran, after
    ``completed`` iterations: shown at the loop's line, with the iteration it reached."""
    exc = KeyboardInterrupt()
    tag(exc, loop, [])
    tag_loop(exc, loop, completed, (), [])
    return exc
