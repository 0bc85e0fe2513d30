"""Kernels for fused groups with members NumPy's own loops compute (``numpy_loops``):
``exp``, ``tanh``, ``log``, ``power``, float ``//`` and ``%``, ...

NumPy evaluates these with SIMD code that compiled scalar code cannot match, and whose
last bits the C library's functions do not reproduce.  Such a kernel walks its result
a block of ``BLOCK`` elements at a time.  For each of those members in turn it computes
the member's operands element by element into buffers the size of a block (fusing
every other member on the way), runs NumPy's loop over the whole buffer, and leaves
the values there for the members after it; the result is written by a last loop (or
by the last NumPy loop itself).  Buffers stay in cache, so the only large array the
kernel writes is its result, and no block crosses into Python.

The kernel picks its loop nest at run time as ``kernels.KernelWriter.elementwise``
does (flat, rows in place, general); blocks are whole rows (or runs of the first
axis) in the last two, so they also run on all cores with ``parallel``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..common.fusion import Group
from .kernels import Lines, Operands, Stage, indent, loop

if TYPE_CHECKING:
    from .kernels import KernelWriter

BLOCK = 512  # elements per block: its buffers stay in L1 cache, and NumPy's loop over
# it costs a microsecond or more, against tens of nanoseconds per call


def write(writer: KernelWriter, group: Group) -> str:
    """A kernel returning the group's result as a new C-contiguous array, its staged
    members computed by NumPy's loops a block at a time; returns its name."""
    lowering = writer.lowering
    ops = Operands(lowering, group, group.root)
    parallel = lowering.parallel
    shape = "(" + "".join(f"n{j}, " for j in range(ops.ndim)) + ")"
    body = [
        *ops.shape(),
        f"out = helpers.advise_huge(np.empty({shape}, {lowering.literal(group.root.type.dtype)}))",
        "o = out.reshape(out.size)",
        "if o.size == 0:",
        "    return out",
        "inner = o.size // n0",
        f"rows = max(1, {BLOCK} // inner)",
        "blocks = (n0 + rows - 1) // rows",
    ]
    stages = ops.stages(ops.general_access)[0]
    buffers = [
        f"b{s.n}_{k} = np.empty(max(min(o.size, {BLOCK}), rows * inner), "
        f"{lowering.literal(s.member.type.dtype)})"
        for s in stages
        for k in range(len(s.operands))
    ]
    # Each thread has its own buffers with ``parallel``: allocated once per block.
    if not parallel:
        body += buffers
        buffers = []

    def run(
        access: Callable,
        nest: Callable[[Lines], Lines],
        at: str,
        header: Lines,
        direct: Callable[[str], str | None] = lambda operand: None,
    ) -> Lines:
        """The block loop: ``header`` sets the block's element range ``lo:hi`` in the
        result; ``nest(lines)`` runs ``lines`` for each of its elements (``j``: the
        element's place in the block, unsigned in every nest: ``at``: in ``o``).
        ``direct(operand)``: the block of an input NumPy's loop reads in place, where
        an operand is one (None: the operand is computed into a buffer)."""
        stages, lines, expr = ops.stages(access)
        passes = [*header, *buffers]
        for stage in stages:
            blocks = [direct(x) for x in stage.operands]
            copies = [
                f"b{stage.n}_{k}[j] = {x}"
                for k, (x, block) in enumerate(zip(stage.operands, blocks))
                if block is None
            ]
            if copies:
                passes += nest([*stage.lines, *copies])
            passes.append(_call(stage, group, "hi - lo", blocks))
        if expr is not None:
            passes += nest([*lines, f"o[{at}] = {expr}"])
        return [*loop("block", "blocks", parallel), *indent(passes)]

    row_block = [
        "row0 = block * rows",
        "row1 = min(n0, row0 + rows)",
        "lo = row0 * inner",
        "hi = row1 * inner",
    ]
    flat = ops.flat_test()
    if flat is not None:

        def flat_nest(lines: Lines) -> Lines:
            return [
                "for k in range(hi - lo):",
                "    j = np.uint64(k)",
                "    i = np.uint64(lo) + j",
                *indent(lines),
            ]

        # An input of the operand's dtype is read in place, not copied into a buffer.
        in_place = {
            f"{lowering.literal(node.type.dtype)}(f{k}[i])": f"f{k}[lo:hi]"
            for k, node in ops.arrays()
        }
        body += [
            f"if {flat}:",
            *indent(ops.flat_setup()),
            f"    blocks = (o.size + {BLOCK - 1}) // {BLOCK}",
            *indent(
                run(
                    lambda k, node: f"f{k}[i]",
                    flat_nest,
                    "i",
                    [f"lo = block * {BLOCK}", f"hi = min(o.size, lo + {BLOCK})"],
                    in_place.get,
                )
            ),
            "    return out",
        ]
    if ops.ndim == 2:

        def row_nest(lines: Lines) -> Lines:
            return [
                "for i0 in range(row0, row1):",
                *indent(ops.in_place_row("i0")),
                "    base = np.uint64(i0) * np.uint64(n1)",
                "    start = np.uint64(i0 - row0) * np.uint64(n1)",
                "    for i1 in range(n1):",
                "        j = start + np.uint64(i1)",
                *indent(lines, 2),
            ]

        body += [
            f"if {ops.in_place_test()}:",
            *indent(ops.in_place_setup()),
            *indent(run(ops.in_place("i1"), row_nest, "base + np.uint64(i1)", row_block)),
            "    return out",
        ]

    def general_nest(lines: Lines) -> Lines:
        return [
            "j = np.uint64(0)",
            *ops.general_nest([*lines, "j += np.uint64(1)"], first="row0, row1"),
        ]

    body += [
        *ops.general_setup(),
        *run(ops.general_access, general_nest, "np.uint64(lo) + j", row_block),
        "return out",
    ]
    return writer.add_function("staged", ops, body, parallel)


def _call(stage: Stage, group: Group, count: str, blocks: list[str | None]) -> str:
    """The call of a stage's NumPy loop on the block's ``count`` elements: from its
    operand buffers (or the input blocks ``blocks`` names) into its first buffer, or
    into the result if it is the group's."""
    buffers = [f"b{stage.n}_{k}[:{count}]" for k in range(len(stage.operands))]
    operands = [block or buffer for block, buffer in zip(blocks, buffers)]
    target = "o[lo:hi]" if stage.member is group.root else buffers[0]
    return f"{stage.function}({', '.join(operands)}, {target}{stage.after})"
