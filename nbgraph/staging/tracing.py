"""Tracing: the stack of regions being built and the one way nodes are created.

While a converted function runs on ``Traced`` values, every NumPy operation lands in
``call``, which infers the result type, tags the node with the user's line and appends
it to the innermost region.  Control-flow staging (control_flow.py) opens nested
regions with ``region``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors.exceptions import GraphModeError, StagingError
from ..graph.ir import Node, Op, Region
from ..graph.passes.dce import first_observable, never_raises
from ..graph.types import TOKEN, GraphType
from ..source.locations import Loc
from ..source.origins import user_location


class RegionBuilder:
    """A region under construction, with the current effect token."""

    def __init__(self, parent: RegionBuilder | None, description: str = "") -> None:
        self.parent = parent
        self.region = Region()
        self.defined: set[int] = set()
        self.token: Node | None = None
        self.description = description  # e.g. "the staged if at line 4", for errors
        self.diverged = False  # a raise was staged unconditionally in this region

    def add(self, node: Node) -> Node:
        self.region.nodes.append(node)
        self.defined.add(id(node))
        return node

    def add_param(self, type: GraphType) -> Node:
        node = Node(Op.PARAM, (), len(self.region.params), type, user_location())
        self.region.params.append(node)
        self.defined.add(id(node))
        return node

    def owner_of(self, node: Node) -> RegionBuilder | None:
        builder: RegionBuilder | None = self
        while builder is not None:
            if id(node) in builder.defined:
                return builder
            builder = builder.parent
        return None


@dataclasses.dataclass(eq=False)
class _FinallyTry:
    """A try statement with a finally clause (and no except clause) being traced."""

    key: str  # names it in its function
    builder: RegionBuilder | None  # the region it is in
    exits: bool  # its finally clause may return, break or continue
    number: int  # names it in the process (``Loc.trying``, ``Loc.finally_of``)


_TRY_NUMBERS = itertools.count(1)


class _State(threading.local):
    def __init__(self) -> None:
        self.builder: RegionBuilder | None = None
        # the try statements (with except clauses) and the with statements of managers
        # that may swallow an exception being traced: how the refusal names each
        self.catching_blocks: list[str] = []
        self.try_regions: list[RegionBuilder | None] = []  # the region each try is in
        # each try statement with a finally clause whose body is being traced
        self.finally_blocks: list[_FinallyTry] = []
        self.left: frozenset[int] = frozenset()  # those a staged raise has left
        self.finally_of: int | None = None  # the one whose finally clause is traced
        self.ended: dict[str, int] = {}  # key -> number of the body traced last
        self.unrolled: list[tuple[int, int]] = []  # (line, iteration) of unrolled loops
        self.location: Loc | None = None  # where new nodes come from, if not the caller
        # The lists, dicts and sets the traced function was given, and copies of them on
        # traced paths: id -> (which argument, the object, kept alive so ids stay unique)
        self.arguments: dict[int, tuple[str, Any]] = {}
        self.calls: list[tuple[tuple[Loc | None, tuple], tuple]] | None = None  # (Graph.calls)


_state = _State()


def note_call(arguments: Sequence[tuple[str, Any]]) -> None:
    """A user's helper was called (while tracing) with ``arguments``, by parameter name,
    and returned (``"return"``): graph nodes, or values known while tracing. Kept with
    the call site and the unrolled iterations around it (``Graph.calls``), to show the
    helper's frame."""
    if _state.calls is not None:
        site = (user_location(), tuple(_state.unrolled))
        _state.calls.append((site, tuple(arguments)))


def traced_calls() -> tuple:
    """The calls noted in the graph being traced, in order (see ``note_call``)."""
    return tuple(_state.calls or ())


def current() -> RegionBuilder:
    """The innermost region being traced."""
    if _state.builder is None:
        raise RuntimeError("no graph is being traced")
    return _state.builder


def is_tracing() -> bool:
    """Whether a trace is running on this thread (none stays open after an error)."""
    return _state.builder is not None


def is_staged() -> bool:
    """Whether tracing is inside a graph branch or loop (not the function's top level)."""
    return _state.builder is not None and _state.builder.parent is not None


@contextlib.contextmanager
def region(description: str = "") -> Iterator[RegionBuilder]:
    """Open a nested region (a branch or loop body) for the duration of the block."""
    builder = RegionBuilder(_state.builder, description)
    if builder.parent is not None:
        builder.token = builder.parent.token
    _state.builder = builder
    try:
        yield builder
    finally:
        _state.builder = builder.parent


@contextlib.contextmanager
def top_region() -> Iterator[RegionBuilder]:
    """Open the top region of a new graph (nested traces are isolated)."""
    saved, saved_calls = _state.builder, _state.calls
    _state.builder, _state.calls = None, []
    try:
        with region() as builder:
            builder.token = builder.add(Node(Op.CONST, (), None, TOKEN))
            yield builder
    finally:
        _state.builder, _state.calls = saved, saved_calls


def check_visible(builder: RegionBuilder, node: Node, loc: Loc | None = None) -> None:
    """Raise if ``node`` was computed in a region that ``builder`` cannot see."""
    if builder.owner_of(node) is None:
        raise GraphModeError(
            "a value computed inside a staged branch or loop is used outside it without "
            "being assigned to a variable there (e.g. stored in a container or attribute); "
            "assign it to a local variable instead",
            loc,
        )


def add_node(op: Op, inputs: tuple[Node, ...], arg: Any, type: GraphType) -> Node:
    """Append a node to the current region after checking its inputs are in scope."""
    builder = current()
    loc = _state.location or user_location()
    if _state.catching_blocks and op is not Op.CONST:
        raise StagingError(
            f"a graph operation inside {_state.catching_blocks[-1]}: its errors happen when the "
            "graph runs, after that block is gone. Move it out of the block, check the "
            "condition explicitly (if ...: raise ...), or call the function's .eager(...) "
            "to run it as plain Python",
            loc,
        )
    for node in inputs:
        check_visible(builder, node, loc)
    if loc is not None:
        loc = _with_context(loc)
    return builder.add(Node(op, inputs, arg, type, loc))


def _with_context(loc: Loc) -> Loc:
    """``loc`` with the unrolled loop iterations and the try statements around it."""
    trying = tuple(b.number for b in _state.finally_blocks if b.number not in _state.left)
    if not (_state.unrolled or trying or _state.finally_of is not None):
        return loc
    return dataclasses.replace(
        loc, unrolled=tuple(_state.unrolled), trying=trying, finally_of=_state.finally_of
    )


@contextlib.contextmanager
def try_block(line: int) -> Iterator[None]:
    """Trace the body of a try statement with except clauses (graph operations are
    refused there)."""
    with _catching(f"the try block at line {line}, whose except clauses would catch them"):
        yield


@contextlib.contextmanager
def _catching(where: str) -> Iterator[None]:
    """Trace a block whose exceptions are caught (``where`` names it): exceptions of
    graph operations happen when the graph runs, so graph operations are refused."""
    _state.catching_blocks.append(where)
    _state.try_regions.append(_state.builder)
    try:
        yield
    finally:
        _state.catching_blocks.pop()
        _state.try_regions.pop()


# Context managers that may swallow an exception of their with block.
_SWALLOWING = (contextlib.suppress,)


class _Managed:
    """The context manager of a user's with statement, entered while tracing.  One that
    may swallow an exception (``contextlib.suppress``) is traced like a try statement
    with except clauses; and no manager swallows a refusal of graph mode, which would
    make the graph silently skip the rest of the block."""

    def __init__(self, manager: Any, line: int) -> None:
        kind = type(manager)
        if not (hasattr(kind, "__enter__") and hasattr(kind, "__exit__")):
            raise TypeError(
                f"{kind.__name__!r} object does not support the context manager protocol"
            )
        self.manager = manager
        self.catching = (
            _catching(f"the with block at line {line}, whose {_name(kind)} would swallow them")
            if isinstance(manager, _SWALLOWING)
            else contextlib.nullcontext()
        )

    def __enter__(self) -> Any:
        entered = type(self.manager).__enter__(self.manager)
        self.catching.__enter__()
        return entered

    def __exit__(self, kind: Any, error: Any, tb: Any) -> bool:
        self.catching.__exit__(None, None, None)
        if isinstance(error, GraphModeError):
            type(self.manager).__exit__(self.manager, None, None, None)
            return False
        return bool(type(self.manager).__exit__(self.manager, kind, error, tb))


def _name(kind: type) -> str:
    return f"{kind.__module__}.{kind.__qualname__}"


def managed(manager: Any, line: int) -> _Managed:
    """``manager`` of the with statement at ``line``, as graph mode enters it."""
    return _Managed(manager, line)


def refusal_caught() -> None:
    """Run first in each except clause of converted code: a refusal of graph mode
    (``GraphModeError``, e.g. a graph operation in the try body, or ``int()`` of a
    graph value) is no error of the user's code for its handler to take, which would
    make the graph silently take the except path eager code never takes."""
    error = sys.exc_info()[1]
    if isinstance(error, GraphModeError):
        raise error


@contextlib.contextmanager
def finally_block(key: str, exits: bool) -> Iterator[None]:
    """Trace the body of a try statement with a finally clause and no except clause
    (``key`` names it in its function; ``exits``: the finally clause may return, break or
    continue): a raise there is raised while tracing, so that the finally clause's
    statements are traced before it (see ``statements.raise_stmt``), unless it is staged
    in a graph branch or loop (see ``stages_raise``)."""
    builder = _state.builder
    start = len(builder.region.nodes) if builder else 0
    number = next(_TRY_NUMBERS)
    _state.try_regions.append(builder)
    _state.finally_blocks.append(_FinallyTry(key, builder, exits, number))
    try:
        yield
    finally:
        _state.try_regions.pop()
        _state.finally_blocks.pop()
        if not exits:  # (only such a finally clause is traced as one: see try_blocks.py)
            _state.ended[key] = number
    if exits and builder:
        _refuse_dropped_failure(builder.region.nodes[start:])


@contextlib.contextmanager
def finally_clause(key: str) -> Iterator[None]:
    """Trace the finally clause of the try statement ``key`` (its body was traced just
    before): its nodes are marked as that clause's, so that a run failing in the body
    runs them (see ``backend.interpret``), as eager code runs the clause then."""
    with _setting("finally_of", _state.ended.pop(key, None)):
        yield


@contextlib.contextmanager
def leaving(key: str) -> Iterator[None]:
    """Trace a staged raise in the body of the try statement ``key`` (the outermost it
    leaves), and the copies of the finally clauses traced before it: those clauses
    already ran when it raises."""
    with _setting("left", _state.left | {b.number for b in _left_finally_blocks(key)}):
        yield


def _refuse_dropped_failure(body: list[Node]) -> None:
    """A return, break or continue in the finally clause drops an error of the try
    body, but an operation failing when the graph runs ends the run: refuse one (a raise
    staged there is refused by ``statements.raise_stmt``)."""
    failing = first_observable(body, never_raises)
    if failing is not None:
        raise StagingError(
            f"this operation ({failing.label()}) may fail when the graph runs, inside a "
            "try statement whose finally clause may return, break or continue, which "
            "would drop the error; graph mode cannot drop an error. Move the operation "
            "out of the try body, or that return, break or continue out of the finally "
            "clause (after the try statement), or call the function's .eager(...)",
            failing.loc,
        )


def _left_finally_blocks(key: str) -> list[_FinallyTry]:
    """The try statements with a finally clause being traced, from the innermost to the
    one named ``key``."""
    blocks = _state.finally_blocks
    last = max(i for i, block in enumerate(blocks) if block.key == key)
    return blocks[last:][::-1]


def stages_raise(key: str) -> bool:
    """Whether a raise here, in the body of the try statement ``key`` (the innermost
    being traced), is staged in a graph branch or loop of that body: the graph then
    raises it when it runs, so the finally clauses it leaves are traced before it, in
    the branch (the converter puts copies of them there), rather than after it."""
    return _left_finally_blocks(key)[-1].builder is not _state.builder


def raise_leaves_exiting_finally(key: str) -> bool:
    """Whether a raise here leaves a finally clause (up to the try statement ``key``)
    that may return, break or continue, and so drop the exception."""
    return any(block.exits for block in _left_finally_blocks(key))


def in_try_here() -> bool:
    """Whether tracing is in the body of a try statement, in the region the try is in
    (so an exception raised now is one its except or finally clauses see on this
    path)."""
    return bool(_state.try_regions) and _state.try_regions[-1] is _state.builder


@contextlib.contextmanager
def unrolled_iteration(line: int, iteration: int) -> Iterator[None]:
    """Trace iteration ``iteration`` (from 1) of a loop at ``line`` that runs while
    tracing: the nodes it makes remember it, for error notes."""
    _state.unrolled.append((line, iteration))
    try:
        yield
    finally:
        _state.unrolled.pop()


@contextlib.contextmanager
def located(loc: Loc | None) -> Iterator[None]:
    """Nodes made in the block come from ``loc`` rather than the line running (a graph
    transformation's nodes point at the user's line they derive from)."""
    with _setting("location", loc):
        yield


@contextlib.contextmanager
def _setting(name: str, value: Any) -> Iterator[None]:
    """The tracing state's ``name`` is ``value`` for the block."""
    saved = getattr(_state, name)
    setattr(_state, name, value)
    try:
        yield
    finally:
        setattr(_state, name, saved)


@contextlib.contextmanager
def reenter(builder: RegionBuilder) -> Iterator[RegionBuilder]:
    """Make a closed region current again (to add casts or placeholders to a branch)."""
    saved = _state.builder
    _state.builder = builder
    try:
        yield builder
    finally:
        _state.builder = saved


@contextlib.contextmanager
def argument_containers(containers: list[tuple[str, Any]]) -> Iterator[None]:
    """Trace with ``containers`` (which argument, the container) known as the function's
    arguments (see ``given_argument``)."""
    saved = _state.arguments
    _state.arguments = {id(c): (where, c) for where, c in containers}
    try:
        yield
    finally:
        _state.arguments = saved


def given_argument(container: Any) -> str | None:
    """Which argument of the traced function ``container`` is (a list, dict or set it
    was given), if it is one."""
    entry = _state.arguments.get(id(container))
    return entry[0] if entry is not None else None


def copied_argument(original: Any, copy: Any) -> None:
    """``copy`` stands for ``original`` on one traced path: if that is an argument
    container, so is the copy."""
    entry = _state.arguments.get(id(original))
    if entry is not None:
        _state.arguments[id(copy)] = (entry[0], copy)


def changed_argument(name: str, where: str, container: Any) -> str:
    """The refusal of a change in place of a container the function was given."""
    what = type(container).__name__
    return (
        f"{name} changes the {what} it is given as {where} in place (append, item "
        f"assignment, pop...): a graph function works on a copy of a {what} argument, "
        f"so the caller's {what} would not change as it does eagerly. Copy it first "
        f"(e.g. items = list(items)) and return it, or call {name}.eager(...) to run it "
        "as plain Python"
    )
