"""Elementwise kernels: a fused group of elementwise operations as one CUDA kernel.

Each thread computes whole elements (a grid-stride loop over the output's flat index):
it reads one element of every input array, broadcasting by NumPy's rules (a dimension
of size 1 is read at index 0), computes the group's members in registers and writes
the root's element.  No temporaries, one pass over memory.  Host scalars are kernel
arguments; 0-d device values (a reduction's result) are read once per thread.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ...graph.ir import Node
from ..generated import load_source
from .device import block_size, blocks_for, cuda, empty
from .launch import configured
from .scalar_ops import element

# Grid-stride loops need no more blocks than keep the GPU busy.
_MAX_BLOCKS = 1 << 16
KERNEL = "kernel"


class Elementwise:
    """One fused group: ``members`` in schedule order, the last being the root; each
    ``inputs`` entry is a device array (``on_device``) or a host scalar."""

    def __init__(
        self,
        members: list[Node],
        inputs: list[Node],
        on_device: list[bool],
        number: Callable[[Node], int],
    ) -> None:
        self.root = members[-1]
        self.inputs = inputs
        self.ndim = self.root.type.ndim
        self.dtype = self.root.type.dtype
        ranges: list[tuple[str, np.dtype]] = []
        self.source = _source(members, inputs, on_device, self.ndim, number, ranges)
        params = {f"a{k}": k for k in range(len(inputs))}
        # Python ints (arguments or constants) checked before the launch, as NumPy does.
        self.ranges = [(params.get(text, text), dtype) for text, dtype in ranges]
        self.on_device = on_device
        self.may_fail = "err," in self.source.split("):", 1)[1]  # can record an error
        if not self.may_fail:  # one argument fewer to pass at each launch
            self.source = self.source.replace(f"def {KERNEL}(err, out", f"def {KERNEL}(out", 1)

    def __call__(self, err: Any, values: list[Any], out: Any = None) -> Any:
        """The group's result for these input values (written into ``out`` if given)."""
        shapes = [v.shape for v, device in zip(values, self.on_device) if device]
        if out is None:
            out = empty(_broadcast(shapes), self.dtype)
        else:
            if _broadcast([out.shape, *shapes]) != tuple(out.shape):
                raise ValueError(
                    f"could not broadcast input array from shape "
                    f"{shapes[0]} into shape {tuple(out.shape)}"
                )
        for where, dtype in self.ranges:
            value = values[where] if isinstance(where, int) else int(where)
            info = np.iinfo(dtype)
            if not info.min <= value <= info.max:
                raise OverflowError(f"Python integer {value} out of bounds for {dtype}")
        n = out.size
        if n == 0:
            return out
        threads = min(block_size(), n)
        blocks = min(blocks_for(n, threads), _MAX_BLOCKS)
        # Python ints travel as int64, as the GPU takes them: a cast in the kernel then
        # wraps on the simulator too (NumPy would raise there, hiding a missing check).
        values = [np.int64(v) if type(v) is int else v for v in values]
        launch = configured(kernel(self.source), blocks, threads)
        if self.may_fail:
            launch(err, out, *values)
        else:
            launch(out, *values)
        return out

    def signature(self) -> tuple:
        """The kernel's argument types (what a launch specialises it for)."""
        from numba import from_dtype, types

        def array(t: Any) -> Any:
            return types.Array(from_dtype(t.dtype), t.ndim, "A")

        inputs = [
            array(i.type) if device else from_dtype(i.type.dtype)
            for i, device in zip(self.inputs, self.on_device)
        ]
        errors = (types.Array(types.int64, 1, "C"),) if self.may_fail else ()
        return (*errors, array(self.root.type), *inputs)

    def ptx(self, cc: tuple[int, int]) -> str:
        """The kernel in PTX for compute capability ``cc``; no GPU needed."""
        text, _ = cuda().compile_ptx(python_function(self.source), self.signature(), cc=cc)
        return text


def _broadcast(shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    """NumPy's broadcast shape (at once where every shape is the same, the usual case)."""
    if not shapes:
        return ()
    first = shapes[0]
    if all(shape == first for shape in shapes):
        return tuple(first)
    return np.broadcast_shapes(*shapes)


@functools.cache
def python_function(source: str) -> Callable:
    """The kernel's Python function (its module holds what the source names)."""
    from . import device_functions  # defines device functions: CUDA (or its simulator) needed

    objects = {"cuda": cuda(), "df": device_functions}
    return getattr(load_source(source, objects, prefix="cuda"), KERNEL)


@functools.cache
def kernel(source: str) -> Any:
    """The compiled kernel for this source (one per distinct group, shared by graphs)."""
    return cuda().jit(cache=True)(python_function(source))


def _source(
    members: list[Node],
    inputs: list[Node],
    on_device: list[bool],
    ndim: int,
    number: Callable[[Node], int],
    ranges: list[tuple[str, np.dtype]],
) -> str:
    params = [f"a{k}" for k in range(len(inputs))]
    lines = [
        "import math",
        "import numpy as np",
        "",
        "",
        f"def {KERNEL}(err, out, {', '.join(params)}):",
    ]
    body: list[str] = []
    names: dict[Node, str] = {}
    hoisted: list[str] = []
    loaded: list[str] = []
    index = [f"i{d}" for d in range(ndim)]
    for k, (node, device) in enumerate(zip(inputs, on_device)):
        if not device:
            names[node] = params[k]
            continue
        names[node] = f"e{k}"
        rank = node.type.ndim
        if rank == 0:
            hoisted.append(f"e{k} = a{k}[()]")
            continue
        offset = ndim - rank
        steps = []
        for j in range(rank):
            hoisted.append(f"s{k}_{j} = 0 if a{k}.shape[{j}] == 1 else 1")
            steps.append(f"{index[offset + j]} * s{k}_{j}")
        loaded.append(f"e{k} = a{k}[{', '.join(steps)}]")
    for j, member in enumerate(members):
        expr = element(member, [names[i] for i in member.inputs], number(member), ranges)
        names[member] = f"m{j}"
        body.append(f"m{j} = {expr}")
    target = f"out[{', '.join(index)}]" if ndim else "out[()]"
    body.append(f"{target} = m{len(members) - 1}")
    lines += [f"    {line}" for line in hoisted]
    if ndim == 0:
        lines += ["    if cuda.grid(1) == 0:", *(f"        {line}" for line in body)]
        return "\n".join(lines) + "\n"
    lines.append("    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):")
    unravel = ["r = i"]
    for d in range(ndim - 1, 0, -1):
        unravel += [f"i{d} = r % out.shape[{d}]", f"r = r // out.shape[{d}]"]
    unravel.append("i0 = r")
    lines += [f"        {line}" for line in (unravel if ndim > 1 else ["i0 = i"])]
    lines += [f"        {line}" for line in loaded + body]
    return "\n".join(lines) + "\n"
