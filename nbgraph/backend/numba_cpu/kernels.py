"""Generated kernels: one compiled function per fused elementwise group or reduction.

Each kernel is a module-level function of the generated source, compiled without bounds
checks (its indices are in range by construction) so that LLVM vectorizes its loops.  A
kernel picks its loop at run time:

* **flat**: every array operand is C-contiguous with the result's shape — one loop over
  plain ``x[i]``;
* **in place** (2-d results): C-contiguous operands, any of them broadcast — one loop
  per row reading each operand at its own row offset and column step (0 where it
  broadcasts);
* **general**: any shapes and strides, NumPy's broadcasting rules (ValueError where
  shapes do not broadcast).

Row reductions longer than ``LEAF`` (or of operands with gaps between their rows) take
each row as a 1-d view; a view per row is cheap only for long rows.

Reductions add in NumPy's pairwise order (``pairwise.py``), computing their operand
element by element when it is a fused group, so ``np.sum(x * x, axis=1)`` reads ``x``
once and writes no temporary.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ...graph.ir import Node
from ...graph.types import TensorType
from ..common.fusion import Group
from .array_reductions import CODES, REPLACES
from .pairwise import BUFFER, LEAF
from .reductions import EXTREMES, Reduction


class Lowering(Protocol):
    """What kernels ask of the lowering of the graph around them (``lowering.py``)."""

    parallel: bool  # fused loops over large arrays use prange
    callbacks: list[str]  # module-level functions of the generated source

    def literal(self, value: Any) -> str:
        """A name in the generated module standing for ``value``."""

    def element_expression(self, node: Node, inputs: list[str]) -> str:
        """One element of ``node``'s result from its inputs' elements."""

    def block_loop(self, node: Node) -> bool:
        """Whether ``node`` is computed by NumPy's loop over a block."""

    def block_function(self, node: Node, inputs: list[str]) -> tuple[str, list[str], str]:
        """The function computing a block of ``node``'s elements (``block_loop``), its
        operands, and the arguments it takes after its output."""


HEADER = '@njit(cache=True, boundscheck=False, error_model="numpy")'
Lines = list[str]


def indent(lines: Lines, depth: int = 1) -> Lines:
    return ["    " * depth + line for line in lines]


@dataclass
class Stage:
    """A member NumPy's loop computes by blocks (``Operands.stages``): ``lines`` and
    ``operands`` compute its operands element by element (into buffers ``b{n}_{k}``);
    ``function(operands..., out{after})`` computes the block."""

    member: Node
    n: int
    function: str
    lines: Lines
    operands: list[str]
    after: str


class Operands:
    """A group's inputs inside a kernel, with the code computing one element from them."""

    def __init__(self, lowering: Lowering, group: Group, source: Node) -> None:
        self.lowering = lowering
        self.group = group
        self.inputs = list(group.inputs)
        self.result = group.root
        self.params = [f"a{k}" for k in range(len(self.inputs))]

    @property
    def ndim(self) -> int:
        return self.result.type.ndim

    def arrays(self) -> list[tuple[int, Node]]:
        return [(k, i) for k, i in enumerate(self.inputs) if _rank(i) > 0]

    def element(self, access: Callable[[int, Node], str]) -> tuple[Lines, str]:
        """Lines computing the element whose operand elements ``access`` gives, and the
        expression of the result."""
        element = {
            node: access(k, node) if _rank(node) else self.params[k]
            for k, node in enumerate(self.inputs)
        }
        lines: Lines = []
        for n, member in enumerate(self.group.members):
            args = [element[i] for i in member.inputs]
            expr = self.lowering.element_expression(member, args)
            if member is self.group.root:
                return lines, expr
            element[member] = f"e{n}"
            lines.append(f"e{n} = {expr}")
        raise AssertionError("a group's root is its last member")

    def stages(self, access: Callable[[int, Node], str]) -> tuple[list[Stage], Lines, str | None]:
        """The group split at the members NumPy's loops compute (``numpy_loops``): a
        ``Stage`` for each such member, in order, then the lines and expression of the
        result (None: the last stage's loop writes it).  A stage's members read earlier
        stages' values from their buffers (``b{n}_0[j]``)."""
        members = self.group.members
        staged = {m for m in members if self.lowering.block_loop(m)}
        consumer = {i: m for m in members for i in m.inputs}

        def owner(member: Node) -> Node | None:
            """The staged member whose operands use ``member`` (None: the result)."""
            user = consumer.get(member)
            while user is not None and user not in staged:
                user = consumer.get(user)
            return user

        element = {
            node: access(k, node) if _rank(node) else self.params[k]
            for k, node in enumerate(self.inputs)
        }
        lines: dict[Node | None, Lines] = {m: [] for m in staged}
        lines[None] = []
        stages = []
        for n, member in enumerate(members):
            args = [element[i] for i in member.inputs]
            if member in staged:
                function, operands, after = self.lowering.block_function(member, args)
                stages.append(Stage(member, n, function, lines[member], operands, after))
                element[member] = f"b{n}_0[j]"
                if member is self.result:
                    return stages, [], None
                continue
            expr = self.lowering.element_expression(member, args)
            if member is self.result:
                return stages, lines[None], expr
            element[member] = f"e{n}"
            lines[owner(member)].append(f"e{n} = {expr}")
        raise AssertionError("a group's root is its last member")

    def shape(self) -> Lines:
        """Lines setting n0, n1, ... to the broadcast shape of the operands."""
        lines = [f"n{j} = 1" for j in range(self.ndim)]
        for k, node in self.arrays():
            offset = self.ndim - node.type.ndim
            lines += [
                f"n{offset + j} = helpers.broadcast_dim(n{offset + j}, a{k}.shape[{j}])"
                for j in range(node.type.ndim)
            ]
        return lines

    def flat_test(self, order: str = "c") -> str | None:
        """The run-time test for the flat loop over the operands' memory in C (or
        Fortran) order (None: never, an operand broadcasts)."""
        arrays = self.arrays()
        if any(i.type.ndim != self.ndim for _, i in arrays):
            return None
        shape = "(" + "".join(f"n{j}, " for j in range(self.ndim)) + ")"
        return (
            " and ".join(f"pairwise.is_{order}(a{k}) and a{k}.shape == {shape}" for k, _ in arrays)
            or "True"
        )

    def flat_setup(self, order: str = "c") -> Lines:
        transpose = ".T" if order == "f" else ""
        return [f"f{k} = pairwise.flat(a{k}{transpose})" for k, _ in self.arrays()]

    def rows_test(self) -> str:
        return " and ".join(f"pairwise.rows_contiguous(a{k})" for k, _ in self.arrays()) or "True"

    def in_place_test(self) -> str:
        """The run-time test for reading 2-d results' elements in place (``in_place``):
        every array operand C-contiguous."""
        return " and ".join(f"pairwise.is_c(a{k})" for k, _ in self.arrays()) or "True"

    def in_place_setup(self) -> Lines:
        """Before a loop over rows: each operand's memory ``f{k}``, its step ``r{k}_{j}``
        along each axis ``j`` but the last of the result and ``t{k}`` along the last (0
        along an axis it broadcasts along or lacks)."""
        lines = []
        for k, node in self.arrays():
            lines.append(f"f{k} = pairwise.flat(a{k})")
            offset = self.ndim - node.type.ndim
            for j in range(self.ndim - 1):
                axis = j - offset
                later = " * ".join(f"a{k}.shape[{m}]" for m in range(axis + 1, node.type.ndim))
                step = f"{later} if a{k}.shape[{axis}] != 1 else 0" if axis >= 0 else "0"
                lines.append(f"r{k}_{j} = np.uint64({step})")
            lines.append(f"t{k} = np.uint64(1 if a{k}.shape[-1] != 1 else 0)")
        return lines

    def in_place_row(self, *indices: str) -> Lines:
        """In the loops over rows: ``o{k}``, where operand k's row at ``indices`` (one per
        axis of the result but the last) starts."""
        return [
            f"o{k} = " + " + ".join(f"np.uint64({i}) * r{k}_{j}" for j, i in enumerate(indices))
            for k, _ in self.arrays()
        ]

    def in_place(self, index: str) -> Callable[[int, Node], str]:
        """Operand elements at column ``index`` of the current row, read in place: no
        view per row, whose reference counting costs more than a short row's work
        (unsigned indices: no negative-index checks, and LLVM vectorizes the loop for
        the step 1 it tests for at run time)."""
        return lambda k, node: f"f{k}[o{k} + np.uint64({index}) * t{k}]"

    def rows_setup(self) -> Lines:
        """Before the loop over rows: 1-d operands as rows, row buffers for 2-d operands
        broadcast along their rows."""
        lines = []
        for k, node in self.arrays():
            if node.type.ndim == 1:
                lines += [
                    f"if a{k}.shape[0] == 1 and n1 != 1:",
                    f"    r{k} = np.full(n1, a{k}[0])",
                    "else:",
                    f"    r{k} = pairwise.flat(a{k})",
                ]
            else:
                lines.append(f"b{k} = np.empty(n1 if a{k}.shape[1] == 1 else 0, a{k}.dtype)")
        return lines

    def row(self, index: str) -> Lines:
        """In the loop over rows: ``r{k}`` is operand k's row ``index`` as a 1-d array (a
        row broadcast along itself spread into its row buffer)."""
        lines = []
        for k, node in self.arrays():
            if node.type.ndim != 2:
                continue
            lines += [
                f"q{k} = {index} if a{k}.shape[0] != 1 else 0",
                f"if a{k}.shape[1] == 1 and n1 != 1:",
                f"    b{k}[:] = a{k}[q{k}, 0]",
                f"    r{k} = b{k}",
                "else:",
                f"    r{k} = pairwise.flat(a{k}[q{k}])",
            ]
        return lines

    def general_loops(
        self, body: Callable[[Callable[[int, Node], str]], Lines], parallel: bool = False
    ) -> Lines:
        """A loop nest over the broadcast shape; ``body`` gets each operand's element;
        ``parallel``: the outermost loop runs on all cores."""
        return [*self.general_setup(), *self.general_nest(body(self.general_access), parallel)]

    def general_setup(self) -> Lines:
        """Before ``general_nest``: ``s{k}_{j}``, 0 where operand k broadcasts along its
        axis j, else 1."""
        return [
            f"s{k}_{j} = 0 if a{k}.shape[{j}] == 1 else 1"
            for k, node in self.arrays()
            for j in range(node.type.ndim)
        ]

    def general_access(self, k: int, node: Node) -> str:
        """Operand k's element at ``i0, i1, ...`` of the broadcast shape."""
        offset = self.ndim - node.type.ndim
        index = ", ".join(f"i{offset + j} * s{k}_{j}" for j in range(node.type.ndim))
        return f"a{k}[{index}]"

    def general_nest(self, body: Lines, parallel: bool = False, first: str = "n0") -> Lines:
        """``body`` in a loop nest over the broadcast shape (the first axis over
        ``range(first)``)."""
        lines = loop("i0", first, parallel)
        for j in range(1, self.ndim):
            lines += indent(loop(f"i{j}", f"n{j}", False), j)
        return lines + indent(body, self.ndim)


def loop(index: str, extent: str, parallel: bool) -> Lines:
    """A loop header over ``range(extent)``; with ``parallel`` a ``prange`` (all cores)
    whose index, unsigned there, is made signed again: mixed with signed values it would
    turn into a float."""
    if not parallel:
        return [f"for {index} in range({extent}):"]
    return [f"for {index}_ in prange({extent}):", f"    {index} = np.int64({index}_)"]


def row_loops(rows: list[str], parallel: bool = False) -> Lines:
    """Nested loop headers over the leading axes of a result, ``rows[j]`` over ``n{j}``,
    each under the one before (a body goes ``len(rows)`` levels in); ``parallel``: the
    outermost on all cores."""
    nest: Lines = []
    for depth, index in enumerate(rows):
        nest += indent(loop(index, f"n{depth}", parallel and depth == 0), depth)
    return nest


def _mean(dtype: str, total: str, size: str) -> str:
    """NumPy's mean of ``size`` elements adding up to ``total``, in the result's type."""
    return f"{dtype}(np.float64({total}) / np.float64({size}))"


def _spread(red: Reduction, dtype: str, squares: str, size: str, result: str) -> Lines:
    """Lines setting ``result`` to the var (or std) of ``size`` elements whose squared
    deviations add up to ``squares``, as NumPy divides them."""
    return [
        f"v = {dtype}(np.float64({squares}) / np.float64(max({size} - {red.ddof}, 0)))",
        f"{result} = {'np.sqrt(v)' if red.method == 'std' else 'v'}",
    ]


def _row_sum(element: Callable[[str], tuple[Lines, str]], size: str) -> Lines:
    """Lines setting ``s`` to the pairwise sum of a row of ``size`` elements, the element
    at an index being ``element(index)`` (lines, expression).  Rows up to 128 long
    (NumPy's leaf: one by one under 8, else eight accumulators) are added as they are
    computed; a buffer written and read back at once stalls on every load, which made
    the L1 distances of 16 coordinates slower than with a stored temporary.  Longer rows
    go through ``buf``, summed by ``plan``."""

    def add(target: str, index: str, first: bool = False) -> Lines:
        lines, expr = element(index)
        return [*lines, f"{target} = zero + {expr}" if first else f"{target} += {expr}"]

    lanes = [line for k in range(8) for line in add(f"r{k}", f"i + {k}")]
    firsts = [line for k in range(8) for line in add(f"r{k}", f"{k}", first=True)]
    lines, expr = element("i")
    return [
        f"if {size} < 8:",
        "    s = zero",
        f"    for i in range({size}):",
        *indent(add("s", "i"), 2),
        f"elif {size} <= 128:",
        *indent(firsts),
        f"    m = {size} - {size} % 8",
        "    for i in range(8, m, 8):",
        *indent(lanes, 2),
        "    s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))",
        f"    for i in range(m, {size}):",
        *indent(add("s", "i"), 2),
        "    s = zero + s",
        "else:",
        f"    for i in range({size}):",
        *indent(lines, 2),
        f"        buf[i] = {expr}",
        "    s = zero + pairwise.planned_sum(buf, 0, plan, zero, ws[3])",
    ]


def _rank(node: Node) -> int:
    t = node.type
    return t.ndim if isinstance(t, TensorType) and t.flavor == "array" else 0


class KernelWriter:
    """Writes kernels into the lowering's module source; returns the names to call."""

    def __init__(self, lowering: Lowering) -> None:
        self.lowering = lowering
        self._names: dict[str, str] = {}  # a kernel's source -> its name

    def add_function(self, prefix: str, ops: Operands, body: Lines, parallel: bool = False) -> str:
        """Adds a kernel of ``ops``'s parameters running ``body``; returns its name."""
        return self._add(prefix, self._function(ops, body, parallel=parallel))

    def add_lines(self, prefix: str, lines: Lines) -> str:
        """Adds a kernel written elsewhere (named ``KERNEL`` in ``lines``); returns its name."""
        return self._add(prefix, lines)

    def _add(self, prefix: str, lines: Lines) -> str:
        """Adds a kernel, or finds the same one added before: equal groups (the two
        halves of a stencil's double buffer, say) then compile once."""
        source = "\n".join(lines)
        if source in self._names:
            return self._names[source]
        name = f"_{prefix}{len(self.lowering.callbacks)}"
        self._names[source] = name
        lines = [line.replace("KERNEL", name) for line in lines]
        self.lowering.callbacks.append("\n".join(lines))
        return name

    # --- elementwise -------------------------------------------------------------------
    def elementwise(self, group: Group) -> str:
        """A kernel returning the group's result as a new C-contiguous array."""
        ops = Operands(self.lowering, group, group.root)
        parallel = self.lowering.parallel
        dtype = self.lowering.literal(group.root.type.dtype)
        shape = "(" + "".join(f"n{j}, " for j in range(ops.ndim)) + ")"
        body = [*ops.shape(), f"out = helpers.advise_huge(np.empty({shape}, {dtype}))"]
        flat = ops.flat_test()
        if flat is not None:
            lines, expr = ops.element(lambda k, node: f"f{k}[i]")
            body += [
                f"if {flat}:",
                *indent(ops.flat_setup()),
                "    o = out.reshape(out.size)",
                *indent(loop("i", "o.size", parallel)),
                *indent(lines, 2),
                f"        o[i] = {expr}",
                "    return out",
            ]
        if ops.ndim >= 2:
            last = ops.ndim - 1
            rows = [f"i{j}" for j in range(last)]
            lines, expr = ops.element(ops.in_place(f"i{last}"))
            row = "np.uint64(i0)"
            for j in range(1, last):
                row = f"({row} * np.uint64(n{j}) + np.uint64(i{j}))"
            inner = [
                *ops.in_place_row(*rows),
                f"base = {row} * np.uint64(n{last})",
                f"for i{last} in range(n{last}):",
                *indent(lines),
                f"    o[base + np.uint64(i{last})] = {expr}",
            ]
            body += [
                f"if {ops.in_place_test()}:",
                *indent(ops.in_place_setup()),
                "    o = out.reshape(out.size)",
                *indent(row_loops(rows, parallel)),
                *indent(inner, last + 1),
                "    return out",
            ]
            if ops.ndim == 2 and not parallel:  # (the row buffers of rows_setup are shared)
                body += self._rows_of_views(ops)
        target = ", ".join(f"i{j}" for j in range(ops.ndim))

        def store(access: Callable[[int, Node], str]) -> Lines:
            lines, expr = ops.element(access)
            return [*lines, f"out[{target}] = {expr}"]

        body += [*ops.general_loops(store, parallel), "return out"]
        return self._add("kernel", self._function(ops, body, parallel=parallel))

    def _rows_of_views(self, ops: Operands) -> Lines:
        """A 2-d kernel's loop over rows of operands whose rows are contiguous but not
        one after the other (``x[:, 1:]``, the interior of a stencil): each row read as
        a contiguous 1-d array, so the loop along it vectorizes (the general nest
        indexes in two dimensions, and does not)."""
        lines, expr = ops.element(lambda k, node: f"r{k}[i1]")
        return [
            f"if n1 > 8 and {ops.rows_test()}:",
            *indent(ops.rows_setup()),
            "    for i0 in range(n0):",
            *indent(ops.row("i0"), 2),
            "        w = out[i0]",
            "        for i1 in range(n1):",
            *indent(lines, 3),
            f"            w[i1] = {expr}",
            "    return out",
        ]

    def _function(
        self,
        ops: Operands,
        body: Lines,
        extra: str = "",
        parallel: bool = False,
        inline: bool = False,
    ) -> Lines:
        header = HEADER.replace(")", ", parallel=True)") if parallel else HEADER
        if inline:
            header = header.replace(")", ', inline="always")')
        return [header, f"def KERNEL({', '.join(ops.params)}{extra}):", *indent(body)]

    # --- assignment ------------------------------------------------------------------
    def assign(self, rank: int, source_rank: int) -> str:
        """A kernel doing ``out[...] = a0`` as NumPy does: ``a0`` broadcast to ``out``'s
        shape (ValueError where it does not broadcast), copied first where the two may
        share memory.  Numba's own slice assignment compiles a formatted error message:
        seconds of the first compile, in every new process, for each pair of ranks."""
        lead = rank - source_rank
        loops = [f"{'    ' * j}for i{j} in range(out.shape[{j}]):" for j in range(rank)]
        element = ", ".join(f"i{j} * s{j}" for j in range(lead, rank))
        body = [
            "helpers.check_broadcast(a0.shape, out.shape)",
            "a0 = helpers.apart(a0, out)",
            *(f"s{j} = 0 if a0.shape[{j - lead}] == 1 else 1" for j in range(lead, rank)),
        ]
        if rank == 2 and source_rank == 2:
            # Rows of views contiguous along them (a stencil's interior): row by row as
            # contiguous 1-d arrays, which vectorizes.
            body += [
                "if out.shape[1] > 8 and a0.shape[1] == out.shape[1] and "
                "pairwise.rows_contiguous(out) and pairwise.rows_contiguous(a0):",
                "    for i0 in range(out.shape[0]):",
                "        w = pairwise.flat(out[i0])",
                "        r = pairwise.flat(a0[i0 * s0])",
                "        for i1 in range(w.size):",
                "            w[i1] = r[i1]",
                "    return",
            ]
        body += [
            *loops,
            f"{'    ' * rank}out[{', '.join(f'i{j}' for j in range(rank))}] = a0[{element}]",
        ]
        return self._add("assign", [HEADER, "def KERNEL(out, a0):", *indent(body)])

    # --- reductions --------------------------------------------------------------------
    def shared(self, red: Reduction, array: str) -> str:
        """A call of the compiled reduction of an array in memory (``array_reductions``)."""
        where = red.along
        zero = f"{self.lowering.literal(red.accumulator)}(0)"
        return (
            f"array_reductions.{where}({array}, {zero}, {CODES[red.method]}, {red.ddof}, "
            f"{red.converts})"
        )

    def reduce(self, red: Reduction, group: Group) -> str:
        """A kernel computing ``red`` of a fused group, element by element.

        Operands its loops cannot read directly (broadcast or with gaps) are first stored
        in a C-contiguous array by the group's elementwise kernel, then reduced there.
        """
        ops = Operands(self.lowering, group, red.source)
        body = [*ops.shape(), f"zero = {self.lowering.literal(red.accumulator)}(0)"]
        if red.axis is None:
            flat = ops.flat_test()
            test = f"({flat}) or ({ops.flat_test('f')})" if flat else "False"
        elif red.ndim > 2:
            test = f"0 < n{red.axis} <= {LEAF} and {ops.in_place_test()}"
        else:
            test = ops.rows_test() if red.axis == 1 else ops.in_place_test()
        materialize = f"{self.elementwise(group)}({', '.join(ops.params)})"
        body += [f"if not ({test}):", f"    return {self.shared(red, materialize)}"]
        if red.axis is None:
            body += self._reduce_all(red, ops)
        elif red.ndim > 2:
            body += self._reduce_last_axis(red, ops)
        elif red.axis == 1:
            body += self._reduce_rows(red, ops)
        else:
            body += self._reduce_columns(red, ops)
        return self._add("reduce", self._function(ops, body))

    def _runs(self, ops: Operands, squared: bool) -> str:
        """A function summing a run of elements of 1-d operands in NumPy's pairwise
        order (the squared deviations from ``shift`` if ``squared``): runs up to
        ``LEAF`` long are computed into ``buf`` and summed there; longer ones split as
        NumPy splits them, walked with ``workspace``'s outer stack.  Loops read views
        of the run indexed from 0: an index with a signed offset costs a negative-index
        check per element, which keeps LLVM from vectorizing (3.5x slower)."""
        run = [f"w{k} = a{k}[begin:begin + size]" for k, _ in ops.arrays()]
        fill = self._fill(
            ops,
            [f"w{k}" if _rank(i) else f"a{k}" for k, i in enumerate(ops.inputs)],
            "size",
            "shift" if squared else None,
        )
        body = [
            "fo, po, fi, pi = ws",
            "depth = 0",
            "begin, size = start, n",
            "while True:",
            f"    while size > {LEAF}:",
            "        half = size // 2",
            "        half -= half % 8",
            "        fo[depth, 0] = begin + half",
            "        fo[depth, 1] = size - half",
            "        fo[depth, 2] = 0",
            "        depth += 1",
            "        size = half",
            *indent(run),
            *indent(fill),
            "    value = pairwise.pairwise_sum(buf, 0, size, zero, fi, pi)",
            "    finished = True",
            "    while depth > 0:",
            "        d = depth - 1",
            "        if fo[d, 2] == 0:",
            "            po[d] = value",
            "            fo[d, 2] = 1",
            "            begin, size = fo[d, 0], fo[d, 1]",
            "            finished = False",
            "            break",
            "        value = po[d] + value",
            "        depth -= 1",
            "    if finished:",
            "        return value",
        ]
        # Inlined into its caller, which calls it once per row: a call passes its arrays
        # with reference counting (atomic) that costs as much as a short row's sum.
        return self._add(
            "runs", self._function(ops, body, ", start, n, buf, zero, shift, ws", inline=True)
        )

    def _fill(self, ops: Operands, views: list[str], size: str, shift: str | None) -> Lines:
        """A loop storing ``size`` elements of the group (or their squared deviations
        from ``shift``) into ``buf``, reading ``views`` (1-d arrays indexed from 0, and
        scalars)."""
        lines, expr = ops.element(lambda k, node: f"{views[k]}[i]" if _rank(node) else views[k])
        value = [f"d = ({expr}) - {shift}", "buf[i] = d * d"] if shift else [f"buf[i] = {expr}"]
        return [f"for i in range({size}):", *indent(lines), *indent(value)]

    def _total(
        self,
        ops: Operands,
        views: list[str],
        size: str,
        converts: bool,
        shift: str | None,
        planned: bool,
    ) -> Lines:
        """Lines setting ``s`` to the pairwise sum of ``size`` elements (buffer by buffer
        where NumPy converts them); ``planned``: in a row reduction, where rows up to
        ``LEAF`` long are computed into ``buf`` at once and summed by ``plan``, the tree
        all rows share."""
        runs = self._runs(ops, shift is not None)
        args = f"{', '.join(views)}, {{}}, buf, zero, {shift or 'zero'}, ws"
        if not converts:
            lines = [f"s = zero + {runs}({args.format(f'0, {size}')})"]
        else:
            lines = [
                "s = zero",
                f"for c in range(0, {size}, {BUFFER}):",
                f"    s += {runs}({args.format(f'c, min({BUFFER}, {size} - c)')})",
            ]
        if not planned:
            return lines
        return [
            f"if {size} <= {LEAF}:",
            *indent(self._fill(ops, views, size, shift)),
            "    s = zero + pairwise.planned_sum(buf, 0, plan, zero, ws[3])",
            "else:",
            *indent(lines),
        ]

    def _statistic(
        self,
        red: Reduction,
        ops: Operands,
        views: list[str],
        size: str,
        result: str,
        planned: bool = False,
    ) -> Lines:
        """Lines computing ``red`` of ``size`` elements of ``views`` into ``result``:
        NumPy's formulas (the mean in the accumulator's type, the squared deviations
        from it summed pairwise again)."""
        dtype = self.lowering.literal(red.node.type.dtype)
        if red.method in EXTREMES:
            return self._extreme(red, ops, views, size, result)
        lines = self._total(ops, views, size, red.converts, None, planned)
        if red.method == "sum":
            return [*lines, f"{result} = s"]
        mean = _mean(dtype, "s", size)
        if red.method == "mean":
            return [*lines, f"{result} = {mean}"]
        lines += [f"m = {mean}", *self._total(ops, views, size, False, "m", planned)]
        return [*lines, *_spread(red, dtype, "s", size, result)]

    def _extreme(
        self, red: Reduction, ops: Operands, views: list[str], size: str, result: str
    ) -> Lines:
        """Lines setting ``result`` to the max or min of ``size`` elements, computed into
        ``buf`` a run at a time and compared there (``array_reductions.extreme``: NaN if
        any element is NaN, NumPy's ValueError for no elements)."""
        lines, expr = ops.element(lambda k, node: f"w{k}[i]")
        run = [f"w{k} = {views[k]}[c:c + w]" for k, _ in ops.arrays()]
        code = CODES[red.method]
        better = REPLACES[red.method]
        return [
            f"if {size} == 0:",
            f"    array_reductions.extreme(buf, 0, 0, {code})",
            "m = zero",
            f"for c in range(0, {size}, {LEAF}):",
            f"    w = min({LEAF}, {size} - c)",
            *indent(run),
            "    for i in range(w):",
            *indent(lines, 2),
            f"        buf[i] = {expr}",
            f"    v = array_reductions.extreme(buf, 0, w, {code})",
            f"    if c == 0 or v {better} m or v != v:",
            "        m = v",
            "    if m != m:",
            "        break",
            f"{result} = m",
        ]

    def _buffer(self, red: Reduction, size: str) -> Lines:
        acc = self.lowering.literal(red.accumulator)
        return [f"buf = np.empty(min({size}, {LEAF}), {acc})", "ws = pairwise.workspace(zero)"]

    def _reduce_all(self, red: Reduction, ops: Operands) -> Lines:
        size = "(" + " * ".join(f"n{j}" for j in range(ops.ndim)) + ")"
        views = [f"f{k}" if _rank(i) else f"a{k}" for k, i in enumerate(ops.inputs)]
        # Elements in memory order, as NumPy adds them.
        return [
            *self._buffer(red, size),
            f"if {ops.flat_test()}:",
            *indent(ops.flat_setup()),
            "else:",
            *indent(ops.flat_setup("f")),
            *self._statistic(red, ops, views, size, "result"),
            "return result",
        ]

    def _reduce_rows(self, red: Reduction, ops: Operands) -> Lines:
        """Along the last axis of a 2-d operand: each row pairwise."""
        dtype = self.lowering.literal(red.node.type.dtype)
        views = [f"r{k}" if _rank(i) else f"a{k}" for k, i in enumerate(ops.inputs)]
        return [
            f"out = np.empty(n0, {dtype})",
            *self._buffer(red, "n1"),
            f"plan = pairwise.tree_plan(n1 if n1 <= {LEAF} else 0)",
            *self._rows_in_place(red, ops),
            *ops.rows_setup(),
            "for i0 in range(n0):",
            *indent(ops.row("i0")),
            *indent(self._statistic(red, ops, views, "n1", "out[i0]", planned=True)),
            "return out",
        ]

    def _reduce_last_axis(self, red: Reduction, ops: Operands) -> Lines:
        """Along the last axis of an operand above 2-d (``np.sum(d * d, axis=-1)`` of
        ``d = p[:, None, :] - q[None, :, :]``), rows up to ``LEAF`` long of C-contiguous
        operands, read in place (``reduce`` tests for them): no temporary of the
        elementwise result, which NumPy writes and reads back."""
        dtype = self.lowering.literal(red.node.type.dtype)
        lead = range(ops.ndim - 1)
        shape = "(" + "".join(f"n{j}, " for j in lead) + ")"
        return [
            f"out = np.empty({shape}, {dtype})",
            *self._buffer(red, f"n{red.axis}"),
            f"plan = pairwise.tree_plan(n{red.axis})",
            *ops.in_place_setup(),
            *self._row_passes(red, ops, [f"i{j}" for j in lead]),
            "return out",
        ]

    def _rows_in_place(self, red: Reduction, ops: Operands) -> Lines:
        """Rows up to ``LEAF`` long of C-contiguous operands (``Operands.in_place``)."""
        return [
            f"if 0 < n1 <= {LEAF} and {ops.in_place_test()}:",
            *indent(ops.in_place_setup()),
            *indent(self._row_passes(red, ops, ["i0"])),
            "    return out",
        ]

    def _row_passes(self, red: Reduction, ops: Operands, rows: list[str]) -> Lines:
        """Loops over the rows at ``rows`` (indices of the result's axes but the last),
        each row's elements summed in NumPy's pairwise order (``_row_sum``); var and
        std take a second pass over the rows: with two sums per row in one loop, Numba
        keeps the reference counting it otherwise prunes."""
        dtype = self.lowering.literal(red.node.type.dtype)
        size = f"n{len(rows)}"
        target = f"out[{', '.join(rows)}]"

        def element(index: str) -> tuple[Lines, str]:
            return ops.element(ops.in_place(index))

        def deviation(index: str) -> tuple[Lines, str]:
            lines, expr = element(index)
            return [*lines, f"d = ({expr}) - {target}"], "d * d"

        def each_row(body: Lines) -> Lines:
            return row_loops(rows) + indent([*ops.in_place_row(*rows), *body], len(rows))

        if red.method in EXTREMES:
            lines, expr = element("i")
            code = CODES[red.method]
            return each_row(
                [
                    f"for i in range({size}):",
                    *indent(lines),
                    f"    buf[i] = {expr}",
                    f"{target} = array_reductions.nonempty_extreme(buf, 0, {size}, {code})",
                ]
            )
        mean = _mean(dtype, "s", size)
        passes = each_row(
            [*_row_sum(element, size), f"{target} = {'s' if red.method == 'sum' else mean}"]
        )
        if red.method in ("var", "std"):
            spread = _spread(red, dtype, "s", size, target)
            passes += each_row([*_row_sum(deviation, size), *spread])
        return passes

    def _reduce_columns(self, red: Reduction, ops: Operands) -> Lines:
        """Along the first axis of a 2-d result of C-contiguous operands (read in place):
        rows added one after the other (what NumPy does for a C-contiguous array)."""
        dtype = self.lowering.literal(red.node.type.dtype)
        acc = self.lowering.literal(red.accumulator)
        lines, expr = ops.element(ops.in_place("i1"))

        def accumulate(value: Lines, rows: str = "range(n0)") -> Lines:
            return [
                f"for i0 in {rows}:",
                *indent(ops.in_place_row("i0")),
                "    for i1 in range(n1):",
                *indent(lines, 2),
                *indent(value, 2),
            ]

        body = [*ops.in_place_setup(), f"out = np.empty(n1, {dtype})"]
        if red.method in EXTREMES:
            better = REPLACES[red.method]
            return [
                *body,
                "if n0 == 0 and n1 != 0:",  # NumPy's error for an empty reduction
                f"    array_reductions.extreme(out, 0, 0, {CODES[red.method]})",
                *accumulate([f"out[i1] = {expr}"], "range(min(n0, 1))"),
                *accumulate(
                    [f"v = {expr}", f"if v {better} out[i1] or v != v:", "    out[i1] = v"],
                    "range(1, n0)",
                ),
                "return out",
            ]
        body += [f"s = np.zeros(n1, {acc})", *accumulate([f"s[i1] += {expr}"])]
        if red.method == "sum":
            return [*body, "out[:] = s", "return out"]
        mean = _mean(dtype, "s[i1]", "n0")
        if red.method == "mean":
            return [*body, "for i1 in range(n1):", f"    out[i1] = {mean}", "return out"]
        return [
            *body,
            f"m = np.empty(n1, {acc})",
            "for i1 in range(n1):",
            f"    m[i1] = {mean}",
            "s[:] = 0",
            *accumulate([f"d = ({expr}) - m[i1]", "s[i1] += d * d"]),
            "for i1 in range(n1):",
            *indent(_spread(red, dtype, "s[i1]", "n0", "out[i1]")),
            "return out",
        ]
