"""Where a graph's operations are in the user's source, for stepping through a run:
which operations make steps, in which call of which user function; the graph's
``nbgraph.breakpoint()``; the calls a line assigns; a loop's target each iteration."""

from __future__ import annotations

import linecache
import operator
import types
from collections.abc import Collection, Sequence
from typing import Any

from ..graph import runtime
from ..graph.calls import CallSites
from ..graph.ir import Graph, Node, Op, Region
from ..graph.variables import assigned_span
from ..source.locations import Loc
from ..source.origins import function_code
from .source_facts import source_facts

_STEPPING = (Op.CALL, Op.COND, Op.WHILE)  # (constants and projections make no step)


def places(graph: Graph) -> dict[Node, tuple[tuple, Loc]]:
    """Each operation that starts or continues a step: the calls of the user's
    functions it is inside (each a call site and the iterations of the loops unrolled
    around it when the call was made, which tell a line's calls in different unrolled
    iterations apart: ``Graph.calls``) and its location. Constants, projections,
    gradient operations and the bookkeeping on the line of a branch or loop (after
    it, at the end of a loop's body, and the guards of the rest of a loop unrolled
    while tracing) make no steps: eager code does not come back to that line there."""
    calls = CallSites(graph)
    found = {
        node: (tuple(calls.around(node.loc)), node.loc)
        for node in graph.all_nodes()
        if node.op in _STEPPING and node.loc is not None and not node.loc.gradient
    }
    # On a loop's line, only a graph loop and its test make steps: not the guards a
    # loop run while tracing puts before its later iterations (after a break).
    tests = {n for w in graph.find(Op.WHILE) for r in w.arg[0].walk() for n in r.nodes}
    for node in list(found):
        if (
            node.op is not Op.WHILE
            and node not in tests
            and node.loc.lineno in source_facts(code_of(node.loc)).loops
        ):
            del found[node]

    def drop(nodes: Sequence[Node], loc: Loc) -> None:
        """The leading ``nodes`` on ``loc``'s line, and the leading ones of the
        branches of those that are branches: no steps."""
        for node in nodes:
            if node.loc is None or not _same_line(node.loc, loc):
                return
            found.pop(node, None)
            if node.op is Op.COND:
                for branch in node.arg:
                    drop(branch.nodes, loc)

    flags = _flags(graph)
    for region in graph.body.walk():
        for k, node in enumerate(region.nodes):
            if node.op in (Op.COND, Op.WHILE):  # (flags after it: no step back to it)
                drop(region.nodes[k + 1 :], node.loc)
            if _guard(node, flags):  # (the rest after a break, continue or return)
                found.pop(node, None)
                found.pop(node.inputs[0], None)
                for branch in node.arg:
                    drop(branch.nodes, node.loc)
            if node.op is Op.WHILE:  # (its counter and flags: the test's step comes next)
                for last in reversed(node.arg[1].nodes):
                    if last.loc is None or not _same_line(last.loc, node.loc):
                        break
                    found.pop(last, None)
    return found


def _flags(graph: Graph) -> set[Node]:
    """The loop variables conversion added (a break's, a return's flag): no name."""
    found = set()
    for loop in graph.find(Op.WHILE):
        test, body = loop.arg
        unnamed = [k for k, name in enumerate(body.names) if name is None]
        found |= {region.params[k] for region in (test, body) for k in unnamed}
        found |= {n for n in graph.find(Op.PROJ) if n.inputs[0] is loop and n.arg in unnamed}
    return found


def _guard(node: Node, flags: set[Node]) -> bool:
    """Whether ``node`` is the branch conversion puts around the statements after a
    ``break``, ``continue`` or ``return`` (``if not flag: ...``): no step of its own."""
    if node.op is not Op.COND or node.inputs[0].op is not Op.CALL:
        return False
    test = node.inputs[0]
    if test.arg.fn is not operator.not_ or not test.inputs:
        return False
    flag = test.inputs[0]
    merged = flag.op is Op.PROJ and flag.inputs[0].op is Op.COND  # (set in a branch here)
    return flag in flags or (merged and _same_line(flag.inputs[0].loc, node.loc))


def _same_line(a: Loc, b: Loc | None) -> bool:
    return b is not None and (a.filename, a.lineno, a.caller) == (b.filename, b.lineno, b.caller)


def code_of(loc: Loc) -> Any:
    """The code object of the user's function ``loc`` is in (or one naming it)."""
    code = function_code(loc)
    if code is not None:
        return code
    return types.SimpleNamespace(
        co_filename=loc.filename, co_qualname=loc.function, co_name=loc.function, co_code=b""
    )


def assigned_calls(graph: Graph) -> dict[tuple[str, int, int, int | None], str]:
    """The helper calls a line assigns to a name as they are (``y = helper(x)``), by
    the call's file, line and columns, with the name."""
    found = {}
    for (site, _), _ in graph.calls:
        if site is None:
            continue
        span = assigned_span(linecache.getline(site.filename, site.lineno))
        if span is not None and span[1:] == (site.col, site.end_col):
            found[(site.filename, site.lineno, site.col, site.end_col)] = span[0]
    return found


def line_of(node: Node, depth: int) -> tuple[str, int] | None:
    """The file and line of ``node``'s location at ``depth`` of its call stack."""
    stack = node.loc.stack() if node.loc is not None else []
    return (stack[depth].filename, stack[depth].lineno) if depth < len(stack) else None


def stops(node: Node) -> bool:
    """Whether ``node`` is an ``nbgraph.breakpoint()``."""
    return node.op is Op.CALL and node.arg.fn is runtime.breakpoint_effect


def iteration_values(body: Region, header: int, targets: Collection[str]) -> list[Node]:
    """What each variable of a loop body holds as an iteration starts: the param carrying
    it in, but for a ``for`` loop's target (``targets``) the item the loop's line reads
    (the index itself, or a node on that line computed from it)."""
    entering = []
    for name, param, result in zip(body.names, body.params, body.results):
        read = result in body.params or (
            result.op is Op.CALL and result.loc is not None and result.loc.lineno == header
        )
        entering.append(result if name in targets and result is not param and read else param)
    return entering
