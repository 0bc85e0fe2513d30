"""Argument writes: the caller's arrays end up as eager code leaves them.

A graph is functional: an argument the function writes into (``x[i] = v``, ``x += 1``,
through an alias or a basic-slice view) comes back as one more result, its final value
(``Graph.writes``).  The caller's array then receives that value, unless the backend
already wrote into it in place (same memory), so a call with no argument writes pays
nothing and one whose writes ran in place pays a pointer comparison.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors.exceptions import ArgumentAliasError
from .graph.ir import Graph
from .graph.types import is_device_array


class ArgumentWrites:
    """How one compiled graph's written arguments get back to the caller."""

    def __init__(self, graph: Graph, names: Sequence[str]) -> None:
        self.writes = graph.writes
        results = graph.body.results[:-1]
        self.count = len(results) - len(self.writes)  # the function's own results
        params = graph.body.params
        finals = dict(zip(results[self.count :], self.writes))
        # A result that is an argument (written or not) is the caller's object, as eagerly.
        self.same: list[tuple[int, int]] = []
        for i, node in enumerate(results[: self.count]):
            k = finals.get(node, params.index(node) if node in params else None)
            if k is not None:
                self.same.append((i, k))
        self.names = names

    def check(self, leaves: Sequence[Any]) -> None:
        """Refuse, before running, writes eager NumPy refuses or graph mode cannot
        reproduce: a read-only argument, or an argument that shares memory with another
        one (graph values are separate arrays)."""
        for k in self.writes:
            leaf = leaves[k]
            if type(leaf) is not np.ndarray:
                continue
            if not leaf.flags.writeable:
                raise ValueError("assignment destination is read-only")
            for j, other in enumerate(leaves):
                if j != k and type(other) is np.ndarray and np.may_share_memory(leaf, other):
                    raise ArgumentAliasError(
                        f"the function writes into argument {self._name(k)}, and argument "
                        f"{self._name(j)} shares memory with it; graph mode treats arguments "
                        "as separate arrays, so a write through one would not be seen "
                        "through the other. Pass a copy (e.g. f(a, a.copy())) or call "
                        ".eager(...) to run the function as written"
                    )

    def _name(self, k: int) -> str:
        return f"'{self.names[k]}'" if k < len(self.names) else f"{k + 1}"

    def finish(self, leaves: Sequence[Any], outputs: Sequence[Any]) -> list[Any]:
        """Put the final values into the caller's arrays; the function's own results."""
        for k, final in zip(self.writes, outputs[self.count :]):
            copy_into(leaves[k], final)
        out = list(outputs[: self.count])
        for i, k in self.same:
            if _is_array(leaves[k]):
                out[i] = leaves[k]
        return out


def _is_array(value: Any) -> bool:
    return isinstance(value, np.ndarray) or is_device_array(value)


def _address(value: Any) -> int:
    if isinstance(value, np.ndarray):
        return value.__array_interface__["data"][0]
    return value.__cuda_array_interface__["data"][0]


def copy_into(target: Any, value: Any) -> None:
    """Write ``value`` into the caller's array ``target`` (a NumPy or device array),
    unless it already is that memory."""
    if target is value or (
        _is_array(value)
        and type(value) is type(target)
        and _address(value) == _address(target)
        and value.shape == target.shape
    ):
        return
    if isinstance(target, np.ndarray):
        np.copyto(
            target,
            value
            if isinstance(value, np.ndarray) or not is_device_array(value)
            else value.copy_to_host(),
        )
    else:
        target.copy_to_device(value)
