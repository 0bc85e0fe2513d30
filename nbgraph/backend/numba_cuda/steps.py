"""What the CUDA backend's plan is made of: steps run by the host on an environment of
node values, and where each value lives (placement: on the device or on the host)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...graph.ir import Node
from ...graph.types import ARRAY, TensorType
from .device import as_device

Env = dict[Node, Any]
Step = Callable[[Env], None]


def merge(a: Any, b: Any) -> Any:
    """Where a value lives that either placement may hold: on the device if either is
    (item by item for tuples)."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        n = len(a) if isinstance(a, tuple) else len(b)
        a = a if isinstance(a, tuple) else (a,) * n
        b = b if isinstance(b, tuple) else (b,) * n
        return tuple(merge(x, y) for x, y in zip(a, b))
    return a is True or b is True


def mover(t: Any, have: Any, want: Any) -> Callable[[Any], Any]:
    """How a value of type ``t`` placed at ``have`` gets to ``want``."""
    if isinstance(want, tuple):
        have = have if isinstance(have, tuple) else (have,) * len(want)
        items = [mover(i, h, w) for i, h, w in zip(t.items, have, want)]
        return lambda v: tuple(move(x) for move, x in zip(items, v))
    if want is True and have is not True:
        return lambda v: as_device(np.asarray(v, dtype=t.dtype))
    return _keep


def _keep(value: Any) -> Any:
    return value


def is_array(node: Node) -> bool:
    return isinstance(node.type, TensorType) and node.type.flavor == ARRAY
