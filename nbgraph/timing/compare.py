"""``nbgraph.compare``: time a call eagerly and in graph mode, check the results agree.

The graph's first call is measured on a fresh graph function (conversion, tracing,
compilation and the first run, separately); steady-state times interleave eager and
graph rounds.  Output the function prints is silenced while timing.
"""

from __future__ import annotations

import contextlib
import io
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..convert.conversion import forget
from ..distributed.inputs import holds_dask_array
from .agreement import Agreement, agreement
from .measure import Timing, time_interleaved

if TYPE_CHECKING:
    from ..distributed.timing import DistributedTiming


@dataclass
class Comparison:
    """Eager vs graph timings of one call, with the check that the results agree."""

    label: str
    backend: str
    eager: Timing
    graph: Timing
    first_call: dict[str, float]  # convert, trace, compile, first_run (seconds)
    agreement: Agreement
    warnings: list[str] = field(default_factory=list)
    distributed: DistributedTiming | None = None  # the call on Dask arguments, if any

    @property
    def first_call_total(self) -> float:
        return sum(self.first_call.values())

    @property
    def speedup(self) -> float | None:
        """Eager median / graph median; None when the results disagree."""
        if not self.agreement.agree:
            return None
        return self.eager.median / self.graph.median

    @property
    def break_even_calls(self) -> int | None:
        """Calls after which graph mode, its first call included, has saved time; None
        when it never does (not faster, or the results disagree)."""
        saved = self.eager.median - self.graph.median
        if self.speedup is None or saved <= 0:
            return None
        return max(1, int(-(-(self.first_call_total - self.graph.median) // saved)))

    def as_dict(self) -> dict:
        """The raw numbers (seconds), as ``to_json`` writes them."""
        return {"call": self.label, "backend": self.backend,
                "eager": self.eager.as_dict(), "graph": self.graph.as_dict(),
                "graph_first_call_s": {**self.first_call, "total": self.first_call_total},
                "speedup": self.speedup, "break_even_calls": self.break_even_calls,
                "agreement": self.agreement.as_dict(), "warnings": self.warnings,
                "distributed": self.distributed.as_dict() if self.distributed else None}

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.as_dict(), **kwargs)

    def __str__(self) -> str:
        from .report import text_report

        return text_report(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))

    def _repr_html_(self) -> str:
        from .report import html_report

        return html_report(self)


def compare(fn: Callable, /, *args: Any, rounds: int = 7, rtol: float = 1e-7,
            **kwargs: Any) -> Comparison:
    """Time ``fn(*args, **kwargs)`` eagerly and as a graph (``fn`` a graph function or a
    plain function, which then runs on the CPU backend); ``compare_call`` takes the
    call's arguments as a tuple and a dict (for a function with its own ``rounds``)."""
    __tracebackhide__ = True
    return compare_call(fn, args, kwargs, rounds=rounds, rtol=rtol)


def compare_call(fn: Callable, args: tuple, kwargs: dict, *, rounds: int = 7,
                 rtol: float = 1e-7, label: str | None = None) -> Comparison:
    """``compare`` with the call's arguments given as they are; ``label`` names the call
    in the report."""
    __tracebackhide__ = True  # IPython shows the user's frames, not these
    from ..api import GraphFunction

    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    if not isinstance(fn, GraphFunction):
        if not callable(fn):
            raise TypeError(f"compare needs a function, got {type(fn).__name__}")
        fn = GraphFunction(fn)
    python = fn.python_function
    label = label or f"{python.__name__}(...)"
    fresh = GraphFunction(python, backend=fn.backend, static_argnames=fn.static_argnames,
                          parallel=fn.parallel)
    forget(python)  # so the fresh first call converts, as a new function's would
    on_dask = holds_dask_array(args, kwargs)
    if on_dask:  # eager and graph run on one machine, on the computed arrays
        from ..distributed.timing import local_arguments, time_distributed

        dask_args, dask_kwargs = args, kwargs
        args, kwargs = local_arguments(args, kwargs)
    with _silenced():
        eager_result = python(*args, **kwargs)
        start = time.perf_counter()
        graph_result = fresh(*args, **kwargs)
        total = time.perf_counter() - start
        first = dict(fresh.last_build or {"first_run": total})
        eager, graph = time_interleaved(
            [lambda: python(*args, **kwargs), lambda: fresh(*args, **kwargs)], rounds)
    result = Comparison(label, fn.backend, eager, graph, first,
                        agreement(eager_result, graph_result, rtol))
    if not result.agreement.agree:
        result.warnings.append(
            f"the results disagree ({result.agreement.reason}): no speedup is reported")
    if on_dask:
        with _silenced():
            result.distributed = time_distributed(fresh, dask_args, dask_kwargs,
                                                  graph_result, rounds, rtol)
        if not result.distributed.agreement.agree:
            result.warnings.append("the distributed result disagrees with the graph's "
                                   f"({result.distributed.agreement.reason})")
    for name, timing in (("eager", eager), ("graph", graph)):
        if timing.unstable:
            result.warnings.append(
                f"{name} timings are unstable (IQR {timing.iqr / timing.median:.0%} of the "
                "median): the machine may be busy; run again")
    return result


@contextlib.contextmanager
def _silenced():
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        yield
