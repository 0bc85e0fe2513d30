"""Finally clauses after a failure: when an operation in the body of a try statement
fails as the graph runs, eager code runs the statement's finally clause before the
error goes on, and so does a graph run.

The tracer marks every node made in such a body with the try statements around it
(``Loc.trying``) and the nodes of each finally clause with its statement
(``Loc.finally_of``): on the normal path the clause's nodes run after the body, as
traced.  When a node fails, the region that holds it runs the clauses of the statements
the node is in whose nodes are in that region, innermost first, with the values the run
has made so far (what eager code's variables hold at that point), then the error goes
on; an outer region runs the clauses of the statements around it.  A staged ``raise``
whose finally clauses were traced before it (see ``convert/converters/try_blocks.py``)
leaves those statements out of its ``trying``.

A clause that needs a value the body makes only after the failing operation cannot be
run as eager code runs it (eager code's variable still holds an older value, or none):
that failure is refused with an error naming both lines.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from ...errors.exceptions import StagingError
from ...graph.ir import Node, Region
from ...graph.types import TOKEN
from .sites import share_site, site_of

_RAN = "__nbgraph_finally_ran__"  # on an exception: the statements whose clause ran


def run_finally_clauses(
    region: Region,
    node: Node,
    env: dict[Node, Any],
    exc: Exception,
    evaluate: Callable[[Node, dict[Node, Any]], Any],
    output: tuple[TextIO, TextIO] | None = None,
) -> None:
    """``node`` of ``region`` raised ``exc``: run (with ``evaluate``, into ``env``) the
    finally clauses in ``region`` of the try statements ``node`` is in, innermost first;
    ``output``: the streams their prints go to, where the run's own are silenced.  An
    error of a clause replaces ``exc``, as it does eagerly."""
    site = site_of(exc)
    if node.loc is None or not node.loc.trying or site is None or site.node.loc is None:
        return
    failing = site.node.loc.trying  # (a staged raise leaves out the clauses it ran)
    ran: set[int] = getattr(exc, _RAN, set())
    setattr(exc, _RAN, ran)
    for number in reversed(node.loc.trying):
        clause = [n for n in region.nodes if n.loc is not None and n.loc.finally_of == number]
        if number not in failing or number in ran or not clause:
            continue
        ran.add(number)
        _check_computed(clause, env, exc, site.node)
        with _streams(output):
            for done in clause:
                try:
                    env[done] = evaluate(done, env)
                except Exception as error:  # (its __context__ is exc, as eagerly)
                    run_finally_clauses(region, done, env, error, evaluate, output)
                    raise


def _check_computed(clause: list[Node], env: dict[Node, Any], exc: Exception, failed: Node) -> None:
    """Refuse to run ``clause`` after ``exc`` (of the node ``failed``) when it reads a
    value the run has not made (a token stands for the order of effects: the clause's
    come next)."""
    made = {n for done in clause for n in _made_within(done)}
    for done in clause:
        for used in done.reads():
            if used in env or used in made:
                continue
            if used.type == TOKEN:
                env[used] = None
                continue
            error = StagingError(
                f"an operation at line {_line(failed)} failed when the graph ran, inside a "
                f"try statement whose finally clause (line {_line(done)}) eager code runs "
                "then; but that clause uses a value the try body makes after the failing "
                f"operation (line {_line(used)}), which eager code would not have yet. "
                "Make that value before the operation that may fail, or after the try "
                "statement, or call the function's .eager(...) to run it as plain Python",
                done.loc,
            )
            share_site(exc, error)  # (shown where the operation failed)
            raise error


def _line(node: Node) -> str:
    return str(node.loc.lineno) if node.loc is not None else "?"


def _made_within(node: Node) -> list[Node]:
    """``node`` and every node and parameter of its nested regions."""
    out = [node]
    for region in node.regions():
        for inner in region.walk():
            out += inner.params
            out += inner.nodes
    return out


@contextlib.contextmanager
def _streams(output: tuple[TextIO, TextIO] | None) -> Iterator[None]:
    if output is None:
        yield
        return
    with contextlib.redirect_stdout(output[0]), contextlib.redirect_stderr(output[1]):
        yield
