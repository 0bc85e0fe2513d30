"""A graph function called on Dask arrays: one task per block, a lazy Dask array back.

The call is traced for the blocks' signature (dtype and rank per argument, as for
NumPy arguments), and ``axes.follow_axis`` checks each split axis: the function must
treat it as a batch axis, else a ``BlockwiseError`` names the line that needs the
whole axis.  The tasks run the graph function, pickled as its graphs (see
``shipping.py``), on each block; NumPy arrays and numbers are passed whole to every
block.  Unsplit axes the result keeps get their length from the input; any other
result axis has an unknown length (NaN chunks) until computed.
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..api import GraphFunction
from ..errors.exceptions import GraphModeError
from ..graph.ir import Graph, Node
from ..graph.pytree import LEAF, flatten, unflatten
from ..graph.types import TensorType, type_of
from ..source.locations import Loc
from ..specialization import Bound, rebind
from .axes import follow_axis
from .inputs import is_dask_array
from .shipping import reduce_function, same_leaf

if TYPE_CHECKING:
    import dask.array as da


class BlockwiseError(GraphModeError, ValueError):
    """A graph function called on Dask arrays needs more than one block at a time."""


def call_blockwise(fn: GraphFunction, args: tuple, kwargs: dict) -> da.Array:
    """``fn(*args, **kwargs)`` with Dask arrays among the arguments, block by block."""
    import dask.array as da

    dyn, dyn_kw, statics = fn.bind(args, kwargs)
    leaves, tree = flatten((dyn, dyn_kw), is_leaf=is_leaf)
    metas = [block_meta(leaf) if is_dask_array(leaf) else leaf for leaf in leaves]
    graph = fn.specialize(Bound(*unflatten(tree, metas), statics)).graph
    plan = plan_blocks(graph, leaves, _leaf_names(fn, dyn, dyn_kw))
    pairs: list[Any] = []
    for leaf, index in zip(leaves, plan.in_index):
        pairs += [leaf, index]
    return da.blockwise(
        BlockCall(fn, tree, statics),
        plan.out_index,
        *pairs,
        dtype=plan.dtype,
        meta=np.empty((0,) * len(plan.out_index), plan.dtype),
        new_axes=plan.new_axes,
        concatenate=True,
        align_arrays=True,
        token=f"nbgraph-{fn.__name__}",
    )


BLOCK_NOTE = (
    "(raised by a Dask task running the graph function on one block: loop "
    "iterations and positions above count from the start of that block)"
)


class BlockCall:
    """What a Dask task runs: the graph function on one block of each Dask argument."""

    def __init__(self, fn: GraphFunction, tree: Any, statics: tuple) -> None:
        self.fn, self.tree, self.statics = fn, tree, statics

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, tree=same_leaf(state["tree"]))

    def __call__(self, *leaves: Any) -> Any:
        dyn, dyn_kw = unflatten(self.tree, leaves)
        call = rebind(self.fn.signature, dyn, dyn_kw, dict(self.statics))
        try:
            return self.fn(*call.args, **call.kwargs)
        except Exception as exc:
            exc.add_note(BLOCK_NOTE)
            raise

    def __repr__(self) -> str:  # names the tasks in Dask's dashboard and errors
        return f"nbgraph.function {self.fn.__qualname__} on blocks"

    def __dask_tokenize__(self) -> tuple:
        """Equal for the same graphs and arguments: Dask names the tasks by it."""
        return (reduce_function(self.fn)[1][0], repr(self.tree), repr(self.statics))


@dataclass
class BlockPlan:
    """The ``dask.array.blockwise`` indices of a call (one letter per array axis)."""

    out_index: str
    in_index: list[str | None]  # None: passed whole (not a Dask array)
    new_axes: dict[str, tuple[float, ...]]
    dtype: np.dtype


def plan_blocks(graph: Graph, leaves: list[Any], names: list[str]) -> BlockPlan:
    """Which result axis each input axis becomes, checked for every split axis (a
    ``BlockwiseError`` otherwise); the arrays' axes are matched from the right, as
    NumPy broadcasting and ``dask.array.map_blocks`` do."""
    result = _single_array_result(graph)
    arrays = {i: leaf for i, leaf in enumerate(leaves) if is_dask_array(leaf)}
    width = max((a.ndim for a in arrays.values()), default=0)
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    dims = [next(letters) for _ in range(width)]  # broadcast axes, left to right
    in_index: list[str | None] = [None] * len(leaves)
    out: list[str | None] = [None] * result.ndim
    members: dict[int, dict[int, int]] = {d: {} for d in range(width)}
    for i, a in arrays.items():
        index = []
        for axis in range(a.ndim):
            d = width - a.ndim + axis
            longest = max(
                b.shape[axis - a.ndim + b.ndim] for b in arrays.values() if b.ndim >= a.ndim - axis
            )
            if a.shape[axis] == 1 and longest != 1:  # broadcast: passed whole
                index.append(next(letters))
            else:
                index.append(dims[d])
                members[d][i] = axis
        in_index[i] = "".join(index)
    for d in range(width):
        split = any(arrays[i].numblocks[axis] > 1 for i, axis in members[d].items())
        if not members[d]:
            continue
        value = follow_axis(graph, members[d])[0]
        if value.kind == "aligned" and out[value.pos] is None:
            out[value.pos] = dims[d]
        elif split:
            i, axis = next(
                (i, axis) for i, axis in members[d].items() if arrays[i].numblocks[axis] > 1
            )
            raise _refusal(graph, value, names[i], axis, arrays[i].numblocks[axis])
    new_axes = {}
    for k, letter in enumerate(out):
        if letter is None:
            out[k] = next(letters)
            new_axes[out[k]] = (np.nan,)
    return BlockPlan("".join(out), in_index, new_axes, result.dtype)


def _single_array_result(graph: Graph) -> TensorType:
    results = graph.body.results[:-1]
    rtype = results[0].type if len(results) == 1 else None
    if graph.out_tree is not LEAF or not isinstance(rtype, TensorType) or rtype.ndim == 0:
        raise BlockwiseError(
            f"nbgraph.function {graph.name} returns "
            f"{'a scalar' if isinstance(rtype, TensorType) else 'several values'}: on Dask "
            "arrays a graph function runs block by block and must return one array with "
            "the split axes; for a total over blocks use "
            "nbgraph.distributed.map_reduce(chunk_fn, combine_fn, x)"
        )
    return rtype


def _refusal(graph: Graph, value: Any, name: str, axis: int, blocks: int) -> BlockwiseError:
    cause: Node | None = value.cause if value.kind == "mixed" else None
    if cause is not None and cause.loc is not None:
        why = f"line {cause.loc.lineno} ({_source(cause.loc)}) combines values across that axis"
    elif value.kind == "free":
        why = "its result does not run along that axis"
    else:
        why = "its result does not keep that axis position by position"
    return BlockwiseError(
        f"nbgraph.function {graph.name} needs the whole of axis {axis} of {name!r}, which "
        f"is split into {blocks} chunks: {why}, so running it block by block would give "
        f"a different result.  Rechunk so that axis is one chunk "
        f"({name}.rechunk({{{axis}: -1}})), or compute a total over blocks with "
        "nbgraph.distributed.map_reduce(chunk_fn, combine_fn, ...)",
        cause.loc if cause is not None else None,
    )


def _source(loc: Loc) -> str:
    """The expression at ``loc`` as written (the whole line when columns are unknown)."""
    line = linecache.getline(loc.filename, loc.lineno)
    if loc.end_col is not None and loc.end_col > loc.col:
        line = line.encode()[loc.col : loc.end_col].decode(errors="replace")
    return f"`{line.strip()}`"


def is_leaf(value: Any) -> bool:
    return is_dask_array(value) or type_of(value) is not None


def block_meta(array: Any) -> np.ndarray:
    """An empty NumPy array with a block's signature (what the trace cache keys on)."""
    return np.empty((0,) * array.ndim, dtype=array.dtype)


def _leaf_names(fn: GraphFunction, dyn: tuple, dyn_kw: dict) -> list[str]:
    """A name per leaf for messages: the parameter, with ``[i]`` inside containers."""
    dynamic = [p for p in fn.signature.parameters if p not in fn.static_argnames]
    names: list[str] = []
    named = [
        (dynamic[i] if i < len(dynamic) else f"argument {i + 1}", v) for i, v in enumerate(dyn)
    ] + list(dyn_kw.items())
    for name, value in named:
        count = len(flatten(value, is_leaf=is_leaf)[0])
        names += [name] if count == 1 else [f"{name}[{k}]" for k in range(count)]
    return names
