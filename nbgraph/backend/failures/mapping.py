"""Turn whatever a graph function raised into the error a user should see.

* Errors while converting or tracing already pass through the user's converted code:
  their traceback only loses the internal frames.
* Errors while the graph runs carry no user frame at all, and compiled code says little
  (Numba's IndexError names no index).  They are located by running the same graph on
  the same inputs with the interpret backend, which raises NumPy's own exception (the
  one eager code raises) tagged with the failing node; its traceback becomes made-up
  frames at the node's line and the lines of the user functions that called it.  The
  compiled path pays nothing for this: the re-run happens only after a failure.

``NBGRAPH_TRACEBACK=full`` keeps every frame: the located error (NumPy's, as eager raises
it) with its whole traceback, and the compiled backend's own exception as its context.
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ...errors.exceptions import GraphModeError
from ...errors.frames import show_full_traceback, user_frames, user_traceback
from ...graph.ir import Graph, Node
from ...graph.types import host_value
from ..interpret import Interpreter
from .notes import HIDDEN_FRAMES, site_notes
from .sites import FailureSite, site_of

_RUN = "__nbgraph_run__"
LOCATE_SECONDS = 10.0  # how long the interpret backend may take to find the failing node


def mark_run(
    exc: BaseException,
    graph: Graph,
    leaves: Sequence[Any],
    located: bool,
    failed: Callable[[Node | None], None],
) -> None:
    """Record that ``exc`` came from running ``graph`` on ``leaves``; ``located``: the
    backend tags exceptions with their complete failure site itself; ``failed`` is told
    the failing node once it is known (the graph itself is never changed)."""
    setattr(exc, _RUN, (graph, leaves, located, failed))


def user_error(exc: BaseException) -> BaseException:
    """The exception to raise in place of ``exc``, with the user's traceback and notes.

    ``exc.__traceback__`` starts at the frame that caught it (the graph function's entry
    point), which is not part of what is shown below it."""
    full = show_full_traceback()
    run = getattr(exc, _RUN, None)
    if run is None:
        if not full and exc.__traceback__ is not None:
            loc = exc.loc if isinstance(exc, GraphModeError) else None
            exc.__traceback__ = user_traceback(exc.__traceback__.tb_next, loc)
            if isinstance(exc, Exception):
                exc.add_note(HIDDEN_FRAMES)
        return _chained(exc, None, full)
    delattr(exc, _RUN)
    graph, leaves, located, failed = run
    error, site = exc, site_of(exc)
    if not located:
        rerun = locate(graph, leaves, finally_output=True)
        if rerun is not None and site_of(rerun) is not None:
            error, site = rerun, site_of(rerun)
    failed(site.node if site is not None else None)
    notes = _notes(graph, site)
    if not full:
        stack = site.node.loc.stack() if site is not None and site.node.loc else []
        error.__traceback__ = user_frames(stack)
        notes.append(HIDDEN_FRAMES)
    for note in notes:
        error.add_note(note)
    return _chained(error, exc if error is not exc else None, full)


def _chained(error: BaseException, compiled: BaseException | None, full: bool) -> BaseException:
    """``error`` with no exception chain shown, or (``full``) with the compiled backend's
    own exception as its context."""
    if full:
        if compiled is not None:
            error.__context__ = compiled
        return error
    error.__cause__ = None
    error.__suppress_context__ = True
    return error


def _notes(graph: Graph, site: FailureSite | None) -> list[str]:
    if site is not None:
        return site_notes(site, graph)
    return [
        f"(raised while running the compiled graph '{graph.name}'; the interpret "
        "backend could not reproduce the error on the same inputs to locate it, "
        "e.g. because the graph changed an input array in place before failing)"
    ]


def locate(
    graph: Graph,
    leaves: Sequence[Any],
    interpreter: type[Interpreter] = Interpreter,
    finally_output: bool = False,
) -> BaseException | None:
    """The exception the interpret backend (or ``interpreter``, a checking subclass)
    raises on the same inputs (output silenced), or None when it does not fail within
    ``LOCATE_SECONDS``.  ``finally_output``: what the finally clauses print after the
    failure is shown (the failed run printed what came before)."""
    output = (sys.stdout, sys.stderr) if finally_output else None
    run = interpreter(graph, deadline=time.monotonic() + LOCATE_SECONDS, finally_output=output)
    leaves = [host_value(leaf) for leaf in leaves]  # the CUDA backend's device arrays
    sink = io.StringIO()
    try:
        with (
            contextlib.redirect_stdout(sink),
            contextlib.redirect_stderr(sink),
            warnings.catch_warnings(),
        ):
            warnings.simplefilter("ignore")
            run.run(leaves)
    except TimeoutError:
        return None
    except Exception as exc:
        return exc
    except KeyboardInterrupt:
        return None
    return None
