"""One first-call measurement in a fresh process; run by bench/run.py, prints one JSON line.

    python bench/child.py MODE ROW

MODE is ``graph`` (construct ``nbgraph.function(eager)`` and call it; run with an empty
``NBGRAPH_CACHE_DIR`` this is trace + compile, with a populated one it is the cached
load), ``njit`` (first call of the hand-written ``@numba.njit``, i.e. its compilation) or
``jax`` (first call of the ``jax.jit`` version: tracing and XLA compilation, inputs put
on the device first).

Two numbers per first call:

* ``first_call_s`` excludes imports, input creation and the library's one-time start-up
  (for Numba a trivial ``@njit`` compiled before the clock starts; for JAX its import
  and backend initialisation).
* ``first_call_with_start_up_s`` is what a user waits for in a fresh process: from the
  moment the parent started this process (``NBGRAPH_BENCH_SPAWNED_AT``, wall clock) to
  the end of the first call, minus the time spent creating the inputs.  It includes the
  interpreter's start, every import and the library's start-up.

The second call is timed on its own (``second_call_s``): where a graph's first call ran
on the interpreter while its compile waited (``backend/numba_cpu/tiers.py``), the second
waits for that compile.  Then up to three more calls give the steady-state time of this
same process (median and minimum), so ``first - steady`` is the one-off cost.
"""

from __future__ import annotations

import importlib
import json
import os
import statistics
import sys
import time
import warnings

FOLLOW_UP_BUDGET_S = 3.0


def _numba_start_up() -> float:
    import numba

    @numba.njit
    def trivial(x):
        return x + 1

    t0 = time.perf_counter()
    trivial(1)
    return time.perf_counter() - t0


def _jax_start_up() -> float:
    t0 = time.perf_counter()
    from workloads import _jax

    jax, jnp, _ = _jax.load()
    jax.block_until_ready(jnp.zeros(1) + 1)
    return time.perf_counter() - t0


def main() -> None:
    mode, name = sys.argv[1], sys.argv[2]
    spawned_at = float(os.environ.get("NBGRAPH_BENCH_SPAWNED_AT", "nan"))
    from workloads import row

    spec = row(name)
    module = spec.module
    t0 = time.perf_counter()
    args = spec.make_inputs()
    inputs_s = time.perf_counter() - t0
    result: dict = {"mode": mode, "row": name, "error": None, "warnings": [], "inputs_s": inputs_s}
    # Imports and the library's start-up happen before the clock starts. The njit and
    # jax measurements do not import nbgraph at all.
    if mode == "graph":
        importlib.import_module("nbgraph")
        for sub in ("nbgraph.backend", "nbgraph.backend.numba_cpu"):
            importlib.import_module(sub)
    if mode == "jax":
        result["jax_start_up_s"] = _jax_start_up()
    else:
        result["numba_start_up_s"] = _numba_start_up()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            t0 = time.perf_counter()
            if mode == "graph":
                fn = sys.modules["nbgraph"].function(module.eager)
                call_args = args
            elif mode == "jax":
                import jax
                import numpy as np

                jitted = module.make_jax()
                call_args = tuple(
                    jax.device_put(a) if isinstance(a, np.ndarray) else a for a in args
                )

                def fn(*a):
                    return jax.block_until_ready(jitted(*a))
            else:
                fn = module.njit
                call_args = args
            fn(*call_args)
            first = time.perf_counter() - t0
            done_at = time.time()
        except Exception as exc:
            result["error"] = f"{type(exc).__name__}: {exc}"[:500]
            first = None
        if first is not None:
            result["first_call_s"] = first
            result["first_call_with_start_up_s"] = done_at - spawned_at - inputs_s
            # A graph's first call may run on the interpreter and compile after it: the
            # second call then waits for that compile.
            t0 = time.perf_counter()
            fn(*call_args)
            result["second_call_s"] = time.perf_counter() - t0
            follow = []
            spent = 0.0
            while (
                len(follow) < 3 and spent + (follow[-1] if follow else first) < FOLLOW_UP_BUDGET_S
            ):
                t0 = time.perf_counter()
                fn(*call_args)
                follow.append(time.perf_counter() - t0)
                spent += follow[-1]
            result["steady_s"] = statistics.median(follow) if follow else None
            result["steady_min_s"] = min(follow) if follow else None
            result["trace_count"] = getattr(fn, "trace_count", None)
    seen = []
    for w in caught:
        text = f"{w.category.__name__}: {str(w.message).splitlines()[0] if str(w.message) else ''}"
        if text not in seen:
            seen.append(text)
    result["warnings"] = seen
    print(json.dumps(result))


if __name__ == "__main__":
    main()
