"""One first-call measurement in a fresh process; run by bench/run.py, prints one JSON line.

    python bench/child.py MODE ROW

MODE is ``graph`` (construct ``nbgraph.function(eager)`` and call it; run with an empty
``NBGRAPH_CACHE_DIR`` this is trace + compile, with a populated one it is the cached load)
or ``njit`` (first call of the hand-written ``@numba.njit``, i.e. its compilation).

Imports, input creation and Numba's one-time start-up (a trivial ``@njit`` compiled before
the clock starts) are excluded. After the first call, up to three more calls give the
steady-state time of this same process (median and minimum), so ``first - steady`` is the
one-off cost.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import statistics
import sys
import time
import warnings

import numba
import numpy as np
from workloads import row

FOLLOW_UP_BUDGET_S = 3.0


def _numba_start_up() -> float:
    @numba.njit
    def trivial(x):
        return x + 1

    t0 = time.perf_counter()
    trivial(1)
    return time.perf_counter() - t0


def main() -> None:
    mode, name = sys.argv[1], sys.argv[2]
    spec = row(name)
    args = spec.make_inputs()
    # Imports are not part of the measurement (nbgraph imports its backend lazily). The
    # njit measurement does not import nbgraph at all.
    ng = importlib.import_module("nbgraph") if mode == "graph" else None
    for module in ("nbgraph.backend", "nbgraph.backend.numba_cpu") if ng else ():
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    numba_start_up = _numba_start_up()
    result: dict = {"mode": mode, "row": name, "numba_start_up_s": numba_start_up,
                    "error": None, "warnings": []}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            t0 = time.perf_counter()
            if mode == "graph":
                fn = ng.function(spec.module.eager)
                out = fn(*args)
            else:
                fn = spec.module.njit
                out = fn(*args)
            first = time.perf_counter() - t0
        except Exception as exc:
            result["error"] = f"{type(exc).__name__}: {exc}"
            first = None
        if first is not None:
            result["first_call_s"] = first
            result["checksum"] = float(np.sum(np.asarray(out, dtype=np.float64)))
            follow = []
            spent = 0.0
            while len(follow) < 3 and spent + (follow[-1] if follow else first) < \
                    FOLLOW_UP_BUDGET_S:
                t0 = time.perf_counter()
                fn(*args)
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
