"""``map_reduce``: totals over blocks, for functions that need more than one block.

A function that reduces over a split axis cannot run block by block; written as a
per-block partial result and a way to combine partials, it can (Dask's own reductions
are built the same way: chunk, combine, aggregate).  ``chunk`` runs on every block,
``combine`` on partials stacked along a new first axis, in a tree ``split_every``
wide, so no task holds more than a few partials.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..api import GraphFunction
from ..graph.pytree import flatten, unflatten
from ..graph.types import TensorType
from ..specialization import Bound
from .blockwise import BlockCall, BlockwiseError, block_meta, is_leaf
from .inputs import is_dask_array

if TYPE_CHECKING:
    import dask.array as da


def map_reduce(
    chunk: Callable, combine: Callable, *args: Any, split_every: int = 8, **kwargs: Any
) -> da.Array:
    """A Dask array (lazy) of ``combine`` over the partials ``chunk`` gives per block.

    ``chunk(*blocks, **kwargs)`` gets one block of each Dask array among ``args``
    (other arguments whole) and returns a partial result: an array or a number;
    ``combine(partials)`` gets partials stacked along a new first axis and returns one
    partial of the same shape.  Both may be graph functions or plain functions (run as
    graph functions on the CPU backend).  E.g. a column sum::

        nbgraph.distributed.map_reduce(lambda b: b.sum(axis=0),
                                       lambda p: p.sum(axis=0), x)
    """
    import dask
    import dask.array as da

    if split_every < 2:
        raise ValueError(f"split_every must be at least 2, got {split_every}")
    chunk_fn, combine_fn = _graph_function(chunk), _graph_function(combine)
    dyn, dyn_kw, statics = chunk_fn.bind(args, kwargs)
    leaves, tree = flatten((dyn, dyn_kw), is_leaf=is_leaf)
    arrays = [leaf for leaf in leaves if is_dask_array(leaf)]
    if not arrays:
        raise TypeError("map_reduce needs at least one Dask array among its arguments")
    arrays = da.core.unify_chunks(*[x for a in arrays for x in (a, _index(a))])[1]
    if len({a.numblocks for a in arrays}) > 1:
        raise BlockwiseError(
            "map_reduce needs Dask arrays with the same number of dimensions and chunks"
        )
    metas = [block_meta(leaf) if is_dask_array(leaf) else leaf for leaf in leaves]
    partial = _result_type(chunk_fn, *unflatten(tree, metas), statics)
    combined = _result_type(
        combine_fn, (np.empty((0,) * (partial.ndim + 1), partial.dtype),), {}, ()
    )
    if (combined.dtype, combined.ndim) != (partial.dtype, partial.ndim):
        raise BlockwiseError(
            f"combine ({combine_fn.__qualname__}) must return what chunk "
            f"({chunk_fn.__qualname__}) does, a {partial.dtype} {partial.ndim}-d value; it "
            f"returns a {combined.dtype} {combined.ndim}-d one"
        )
    blocks = [a.to_delayed().ravel() for a in arrays]
    run_chunk = dask.delayed(BlockCall(chunk_fn, tree, statics))
    run_combine = dask.delayed(_Combine(combine_fn))
    partials = []
    for k in range(len(blocks[0])):
        it = iter(b[k] for b in blocks)
        partials.append(run_chunk(*[next(it) if is_dask_array(leaf) else leaf for leaf in leaves]))
    while len(partials) > 1:
        partials = [
            run_combine(*partials[i : i + split_every])
            if len(partials[i : i + split_every]) > 1
            else partials[i]
            for i in range(0, len(partials), split_every)
        ]
    if len(partials) == 1 and len(blocks[0]) == 1:
        partials = [run_combine(partials[0])]  # one block: combine still runs once
    return da.from_delayed(
        partials[0],
        shape=(np.nan,) * partial.ndim,
        dtype=partial.dtype,
        meta=np.empty((0,) * partial.ndim, partial.dtype),
    )


class _Combine:
    """A combine task: the graph function on partials stacked along a new first axis."""

    def __init__(self, fn: GraphFunction) -> None:
        self.fn = fn

    def __call__(self, *partials: Any) -> Any:
        return self.fn(np.stack([np.asarray(p) for p in partials]))

    def __repr__(self) -> str:
        return f"nbgraph.function {self.fn.__qualname__} combining partials"


def _index(array: Any) -> str:
    return "abcdefghijklmnopqrstuvwxyz"[: array.ndim]


def _result_type(fn: GraphFunction, dyn: tuple, dyn_kw: dict, statics: tuple) -> Any:
    graph = fn.specialize(Bound(dyn, dyn_kw, statics)).graph
    results = graph.own_results()
    if len(results) != 1 or graph.writes or not isinstance(results[0].type, TensorType):
        raise BlockwiseError(
            f"{fn.__qualname__} must return one array or number to be used in map_reduce"
        )
    return results[0].type


def _graph_function(fn: Callable) -> GraphFunction:
    return fn if isinstance(fn, GraphFunction) else GraphFunction(fn)
