"""``nbgraph.compare`` with Dask arguments: the distributed run beside the local one.

The local columns (eager, graph) run on the computed NumPy arrays; the distributed row
times ``fn(*dask_args).compute()`` on the arguments persisted first, so it measures the
graph on the blocks where they live, the scheduling and the gathering of the result,
not reading or generating the input.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..distributed.inputs import is_dask_array
from .agreement import Agreement, agreement
from .measure import Timing, time_interleaved


@dataclass
class DistributedTiming:
    """The graph function on the Dask arguments: per-call times and where it ran."""

    where: str  # "dask.distributed, 2 workers (4 blocks)"
    timing: Timing
    agreement: Agreement  # with the single-machine graph result

    def as_dict(self) -> dict:
        return {"where": self.where, **self.timing.as_dict(), "agreement": self.agreement.as_dict()}


def local_arguments(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The arguments with each Dask array computed to NumPy (one compute for all)."""
    import dask

    found: list[Any] = []

    def collect(v: Any) -> Any:
        if is_dask_array(v):
            found.append(v)
        elif type(v) in (tuple, list):
            for x in v:
                collect(x)
        elif type(v) is dict:
            for x in v.values():
                collect(x)

    collect((args, kwargs))
    computed = dict(zip(map(id, found), dask.compute(*found)))

    def swap(v: Any) -> Any:
        if is_dask_array(v):
            return computed[id(v)]
        if type(v) in (tuple, list):
            return type(v)(swap(x) for x in v)
        return {k: swap(x) for k, x in v.items()} if type(v) is dict else v

    return swap(args), swap(kwargs)


def time_distributed(
    fn: Callable, args: tuple, kwargs: dict, local_result: Any, rounds: int, rtol: float
) -> DistributedTiming:
    """Time ``fn(*args, **kwargs).compute()`` (first call excluded) on persisted Dask
    arguments, and check its result against the single-machine one."""
    import dask

    flat = list(args) + list(kwargs.values())
    persisted = iter(dask.persist(*[a for a in flat if is_dask_array(a)]))
    flat = [next(persisted) if is_dask_array(a) else a for a in flat]
    args, kwargs = tuple(flat[: len(args)]), dict(zip(kwargs, flat[len(args) :]))

    def run() -> Any:
        return fn(*args, **kwargs).compute()

    result = run()  # workers unpickle and compile: the graph's "first call"
    (timing,) = time_interleaved([run], rounds)
    blocks = max(a.npartitions for a in flat if is_dask_array(a))
    return DistributedTiming(
        f"{_scheduler()} ({blocks} blocks)", timing, agreement(local_result, result, rtol)
    )


def _scheduler() -> str:
    """The scheduler ``compute()`` uses now, as people name it."""
    try:
        from distributed import default_client

        client = default_client()
    except (ImportError, ValueError):
        import dask

        return f"dask, {dask.config.get('scheduler', None) or 'threads'} scheduler"
    workers = client.scheduler_info().get("workers", {})
    threads = sum(w.get("nthreads", 0) for w in workers.values())
    return f"dask.distributed, {len(workers)} workers, {threads} threads"
