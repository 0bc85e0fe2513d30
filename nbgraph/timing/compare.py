"""``nbgraph.compare``: time a call eagerly and in graph mode, check the results agree.

The graph's first call is measured on a fresh graph function (conversion, tracing,
compilation and the first run, separately), and again in new processes with an empty
disk cache and with a filled one (``cold.py``); steady-state times interleave eager and
graph rounds.  Output the function prints is silenced while timing.
"""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Callable
from typing import Any

from ..api import GraphFunction
from ..backend import wait
from ..convert.conversion import forget
from ..distributed.inputs import holds_dask_array
from .agreement import agreement
from .cold import cold_starts
from .comparison import Comparison
from .distributed import local_arguments, time_distributed
from .measure import time_interleaved


def compare(
    fn: Callable,
    /,
    *args: Any,
    rounds: int = 7,
    rtol: float = 1e-7,
    cold: bool = True,
    **kwargs: Any,
) -> Comparison:
    """Time ``fn(*args, **kwargs)`` eagerly and as a graph (``fn`` a graph function or a
    plain function, which then runs on the CPU backend); ``cold=False`` skips timing the
    first call in new processes.  ``compare_call`` takes the call's arguments as a tuple
    and a dict (for a function with its own ``rounds`` or ``cold``)."""
    __tracebackhide__ = True
    return compare_call(fn, args, kwargs, rounds=rounds, rtol=rtol, cold=cold)


def compare_call(
    fn: Callable,
    args: tuple,
    kwargs: dict,
    *,
    rounds: int = 7,
    rtol: float = 1e-7,
    label: str | None = None,
    cold: bool = True,
) -> Comparison:
    """``compare`` with the call's arguments given as they are; ``label`` names the call
    in the report."""
    __tracebackhide__ = True  # IPython shows the user's frames, not these
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    if not isinstance(fn, GraphFunction):
        if not callable(fn):
            raise TypeError(f"compare needs a function, got {type(fn).__name__}")
        fn = GraphFunction(fn)
    python = fn.python_function
    label = label or f"{python.__name__}(...)"
    fresh = GraphFunction(
        python, backend=fn.backend, static_argnames=fn.static_argnames, parallel=fn.parallel
    )
    forget(python)  # so the fresh first call converts, as a new function's would
    on_dask = holds_dask_array(args, kwargs)
    if on_dask:  # eager and graph run on one machine, on the computed arrays
        dask_args, dask_kwargs = args, kwargs
        args, kwargs = local_arguments(args, kwargs)
    with _silenced():
        eager_result = python(*args, **kwargs)

        def graph_call() -> Any:
            result = fresh(*args, **kwargs)
            wait(fn.backend)  # a GPU's kernels included
            return result

        start = time.perf_counter()
        first_result = graph_call()
        total = time.perf_counter() - start
        first = dict(fresh.last_build or {"first_run": total})
        # The code timed below: the first call may have run on the interpreter while the
        # CPU backend compiled after it (backend/numba_cpu/tiers.py); both must agree.
        graph_result = graph_call()
        agrees = agreement(eager_result, first_result, rtol)
        if agrees.agree:
            agrees = agreement(eager_result, graph_result, rtol)
        eager, graph = time_interleaved([lambda: python(*args, **kwargs), graph_call], rounds)
    result = Comparison(label, fn.backend, eager, graph, first, agrees)
    if cold and not on_dask:
        staged = first.get("convert", 0.0) + first.get("trace", 0.0)
        with _silenced():
            result.cold = cold_starts(fresh, args, kwargs, staged)
    if not result.agreement.agree:
        result.warnings.append(
            f"the results disagree ({result.agreement.reason}): no speedup is reported"
        )
    if on_dask:
        with _silenced():
            result.distributed = time_distributed(
                fresh, dask_args, dask_kwargs, graph_result, rounds, rtol
            )
        if not result.distributed.agreement.agree:
            result.warnings.append(
                "the distributed result disagrees with the graph's "
                f"({result.distributed.agreement.reason})"
            )
    for name, timing in (("eager", eager), ("graph", graph)):
        if timing.unstable:
            result.warnings.append(
                f"{name} timings are unstable (IQR {timing.iqr / timing.median:.0%} of the "
                "median): the machine may be busy; run again"
            )
    return result


@contextlib.contextmanager
def _silenced():
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        yield
