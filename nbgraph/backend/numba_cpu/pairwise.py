"""NumPy's summation order, compiled: what makes graph sums equal eager sums bit for bit.

NumPy adds the elements of a contiguous run pairwise: below 8 elements one after the
other; up to 128 in eight interleaved accumulators combined as
``((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))`` plus the remainder; above that it splits at half
the length rounded down to a multiple of 8 and adds the two halves' sums.  A reduction
that also converts its input (an int array summed in float64) goes through NumPy's
8192-element buffer: each buffer is summed pairwise and the buffers one after the other.
Generated reduction kernels (``kernels.py``) follow the same tree, so their results do
not depend on how the work is split.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types, uint64
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic, overload
from numba.np.arrayobj import populate_array

BUFFER = 8192  # NumPy's iterator buffer: the run length of a converting reduction
LEAF = 4096  # generated kernels compute runs up to this long into a buffer, then add them here


@njit(cache=True, boundscheck=False, inline="always")
def block_sum(a, start, n, zero):
    """Sum of a run of at most 128 elements: NumPy's leaf (eight accumulators).  Indices
    are unsigned, which spares every load Numba's negative-index check."""
    s = uint64(start)
    if n < 8:
        res = zero
        for i in range(n):
            res += a[s + uint64(i)]
        return res
    end = s + uint64(n - n % 8)
    res = _eight_lanes(a, s, end, zero)
    i = end
    while i < s + uint64(n):
        res += a[i]
        i += uint64(1)
    return res


def _eight_lanes(a, start, end, zero):
    """``((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))`` of the eight accumulators NumPy keeps over
    ``a[start:end]`` (a multiple of 8 elements, at least 8): ``r_k`` adds the elements
    ``k``, ``k + 8``, ... in turn."""


@overload(_eight_lanes, jit_options={"boundscheck": False})
def _eight_lanes_impl(a, start, end, zero):
    if isinstance(a.dtype, types.Float) and a.dtype == zero and a.layout == "C":
        # One vector add per eight elements: lane k is accumulator k, with the same
        # roundings as NumPy's scalar adds.  LLVM keeps scalar adds scalar here.
        def vector(a, start, end, zero):
            r0, r1, r2, r3, r4, r5, r6, r7 = _lane_sums(a, start, (end - start) // uint64(8))
            return ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))

        return vector

    def scalar(a, start, end, zero):
        s = start
        r0 = zero + a[s]
        r1 = zero + a[s + uint64(1)]
        r2 = zero + a[s + uint64(2)]
        r3 = zero + a[s + uint64(3)]
        r4 = zero + a[s + uint64(4)]
        r5 = zero + a[s + uint64(5)]
        r6 = zero + a[s + uint64(6)]
        r7 = zero + a[s + uint64(7)]
        i = s + uint64(8)
        while i < end:
            r0 += a[i]
            r1 += a[i + uint64(1)]
            r2 += a[i + uint64(2)]
            r3 += a[i + uint64(3)]
            r4 += a[i + uint64(4)]
            r5 += a[i + uint64(5)]
            r6 += a[i + uint64(6)]
            r7 += a[i + uint64(7)]
            i += uint64(8)
        return ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))

    return scalar


@intrinsic
def _lane_sums(typingctx, a, start, blocks):
    """The eight accumulators over ``blocks`` blocks of eight elements of the C-contiguous
    float array ``a`` from ``start``, as a tuple: an eight-lane vector added block by
    block."""
    lanes = types.UniTuple(a.dtype, 8)

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        vector = ir.VectorType(context.get_value_type(a.dtype), 8)
        first = builder.bitcast(builder.gep(array.data, [args[1]]), vector.as_pointer())
        total = cgutils.alloca_once(builder, vector)
        builder.store(builder.load(first, align=1), total)
        one = ir.Constant(args[2].type, 1)
        with cgutils.for_range_slice(builder, one, args[2], one) as (block, _):
            block_vector = builder.load(builder.gep(first, [block]), align=1)
            builder.store(builder.fadd(builder.load(total), block_vector), total)
        result = builder.load(total)
        return context.make_tuple(
            builder,
            lanes,
            [builder.extract_element(result, ir.Constant(ir.IntType(32), k)) for k in range(8)],
        )

    return lanes(a, start, blocks), codegen


@njit(cache=True)
def workspace(zero):
    """Stacks for walking a pairwise tree without recursion (Numba's disk cache cannot
    hold recursive functions): pending right halves (start, length, visited) and the
    left halves' sums, for an outer walk and an inner one."""
    return (
        np.zeros((64, 3), np.int64),
        np.full(64, zero),
        np.zeros((64, 3), np.int64),
        np.full(64, zero),
    )


@njit(cache=True, boundscheck=False)
def pairwise_sum(a, start, n, zero, frames, partial):
    """Sum of ``a[start:start + n]`` in NumPy's pairwise order; ``zero`` sets the
    accumulator's type; ``frames`` and ``partial`` are one of ``workspace``'s stacks."""
    depth = 0
    begin, size = start, n
    while True:
        while size > 128:
            half = size // 2
            half -= half % 8
            frames[depth, 0] = begin + half
            frames[depth, 1] = size - half
            frames[depth, 2] = 0
            depth += 1
            size = half
        value = block_sum(a, begin, size, zero)
        finished = True
        while depth > 0:
            d = depth - 1
            if frames[d, 2] == 0:  # a left half is done: its right half is next
                partial[d] = value
                frames[d, 2] = 1
                begin, size = frames[d, 0], frames[d, 1]
                finished = False
                break
            value = partial[d] + value
            depth -= 1
        if finished:
            return value


@njit(cache=True)
def tree_plan(n):
    """``pairwise_sum``'s tree for runs of ``n`` elements as a postfix program, for
    summing many runs of one length (the rows of an array) without walking the tree per
    run: a row (start, size) sums a leaf, a row (0, -1) adds the two sums on top."""
    plan = np.empty((2 * (n // 32 + 1), 2), np.int64)  # leaves hold over 32 elements
    pending = np.empty((64, 3), np.int64)  # (start, size, children done)
    k, depth = 0, 1
    pending[0, 0], pending[0, 1], pending[0, 2] = 0, n, 0
    while depth:
        start, size, done = pending[depth - 1, 0], pending[depth - 1, 1], pending[depth - 1, 2]
        if size <= 128 or done == 2:
            plan[k, 0], plan[k, 1] = (start, size) if size <= 128 else (0, -1)
            k += 1
            depth -= 1
            continue
        half = size // 2
        half -= half % 8
        pending[depth - 1, 2] = done + 1
        pending[depth, 0] = start + (half if done else 0)
        pending[depth, 1] = size - half if done else half
        pending[depth, 2] = 0
        depth += 1
    return plan[:k]


@njit(cache=True, boundscheck=False, inline="always")
def planned_sum(a, start, plan, zero, stack):
    """``pairwise_sum(a, start, n, ...)`` by ``tree_plan(n)``; ``stack`` holds at least
    64 sums of ``zero``'s type."""
    top = 0
    for k in range(plan.shape[0]):
        size = plan[k, 1]
        if size < 0:
            top -= 1
            stack[top - 1] = stack[top - 1] + stack[top]
        else:
            stack[top] = block_sum(a, start + plan[k, 0], size, zero)
            top += 1
    return stack[0]


@njit(cache=True, boundscheck=False)
def flat_sum(a, start, n, zero, converts, frames, partial, buf):
    """``np.sum`` of ``a[start:start + n]`` into ``zero``'s type; ``converts``: the
    elements change type on the way (NumPy then sums buffer by buffer, in ``buf``, of
    ``BUFFER`` elements or the array's size)."""
    if not converts:
        return zero + pairwise_sum(a, start, n, zero, frames, partial)
    total = zero
    for begin in range(0, n, BUFFER):
        m = min(BUFFER, n - begin)
        for i in range(m):
            buf[i] = a[start + begin + i]
        total += pairwise_sum(buf, 0, m, zero, frames, partial)
    return total


@njit(cache=True)
def is_c(a):
    """Whether ``a`` is C-contiguous (its elements in row-major order, no gaps) as NumPy
    decides it: an axis of length 1 has any stride.  Numba's own flag asks for the
    stride a C array would have there too, so views with a new axis (``p[:, None, :]``,
    the operands of a broadcast) failed it and took the slow general loops."""
    step = a.itemsize
    for k in range(a.ndim - 1, -1, -1):
        if a.shape[k] != 1:
            if a.strides[k] != step:
                return False
            step *= a.shape[k]
    return True


@njit(cache=True)
def is_f(a):
    """Whether ``a`` is Fortran-contiguous (column-major order, no gaps), as NumPy
    decides it (see ``is_c``)."""
    step = a.itemsize
    for k in range(a.ndim):
        if a.shape[k] != 1:
            if a.strides[k] != step:
                return False
            step *= a.shape[k]
    return True


def flat(a):
    """``a``'s elements in C order as a 1-d array typed as contiguous (loops over it
    vectorize): a view of a C-contiguous array (``is_c``), else a copy."""


@overload(flat, jit_options={"boundscheck": False}, inline="always")
def _flat_impl(a):
    if a.layout == "C":
        return lambda a: a.reshape(a.size)

    def view_or_copy(a):
        if is_c(a):
            return _c_view(a)
        return np.ascontiguousarray(a).reshape(a.size)

    return view_or_copy


@intrinsic
def _c_view(typingctx, a):
    """The 1-d view of the C-contiguous (``is_c``) array ``a``'s memory, typed as
    contiguous, sharing its owner: what ``a.reshape(a.size)`` is, which Numba
    supports only for arrays typed contiguous."""
    view = a.copy(ndim=1, layout="C")

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        out = context.make_array(view)(context, builder)
        populate_array(
            out,
            data=array.data,
            shape=cgutils.pack_array(builder, [array.nitems]),
            strides=cgutils.pack_array(builder, [array.itemsize]),
            itemsize=array.itemsize,
            meminfo=array.meminfo,
            parent=array.parent,
        )
        return impl_ret_borrowed(context, builder, view, out._getvalue())

    return view(a), codegen


@njit(cache=True)
def rows_contiguous(a):
    """Whether each run along ``a``'s last axis is contiguous or a single element."""
    return a.shape[-1] == 1 or a.strides[-1] == a.itemsize
