"""What the key of an indexing node (``x[key]``, ``x[key] = v``) holds, read from the
graph's types: the backends ask before choosing how to index."""

from __future__ import annotations

import numpy as np

from ...graph.ir import Node
from ...graph.template import fill
from ...graph.types import TensorType


def key_items(node: Node) -> tuple:
    """The items of a getitem or setitem node's key: constants as they are, computed
    values as their graph types."""
    key = fill(node.arg.args[1], [i.type for i in node.inputs])
    return key if isinstance(key, tuple) else (key,)


def has_boolean_scalar(node: Node) -> bool:
    """Whether the key holds a boolean scalar (``x[s > 0]``, ``x[True]``): NumPy reads it
    as a new axis of length 1 or 0, an advanced index that copies."""
    return any(
        isinstance(item, bool)
        or (isinstance(item, TensorType) and item.ndim == 0 and item.dtype.kind == "b")
        for item in key_items(node)
    )


def basic_rank(node: Node) -> int | None:
    """The rank of ``x[key]`` where the key is basic (integers, slices, ``None``,
    ``...``): a view of ``x``; None for any other key (arrays, lists, booleans)."""
    array = fill(node.arg.args[0], [i.type for i in node.inputs])
    if not isinstance(array, TensorType):
        return None
    rank = array.ndim
    for item in key_items(node):
        if item is None:
            rank += 1
        elif isinstance(item, bool) or (
            isinstance(item, TensorType) and (item.ndim or item.dtype.kind not in "iu")
        ):
            return None
        elif isinstance(item, (int, np.integer, TensorType)):
            rank -= 1
        elif not isinstance(item, slice) and item is not Ellipsis:
            return None
    return rank if rank >= 0 else None
