"""Benchmark nbgraph's graph mode against eager Python/NumPy, hand-written Numba and JAX.

    python bench/run.py [--only NAME ...] [--budget SECONDS] [--out PATH]

For every workload row: first-call measurements in fresh subprocesses (graph with an empty
cache, graph again with the populated cache, hand-written njit), then in this process a
correctness check of every variant against eager, a warm-up, and interleaved timing
(round-robin eager, graph, njit, jax). Prints two tables and writes bench/results.json.
The targets printed beside the ratios are informational; nothing here asserts.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numpy as np
from workloads import ROWS, Row, _jax

import nbgraph as ng

BENCH_DIR = Path(__file__).resolve().parent
VARIANTS = ("eager", "graph", "njit", "jax")

MIN_SAMPLE_S = 0.02  # a timed sample loops over calls until it lasts about this long
MIN_SAMPLES = 3
MAX_SAMPLES = 15
SLOW_CALL_S = 1.0  # variants slower than this per call get fewer samples (at least 2)
CHILD_TIMEOUT_S = 30.0  # a graph first call that takes longer is not timed in-process
NOT_TIMED_ABOVE_S = 15.0  # nor is a graph whose steady call takes longer than this
OPENBLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS",
                 "OMP_NUM_THREADS", "NUMBA_CACHE_DIR", "NUMBA_NUM_THREADS")

# Informational targets: (what, metric key in the row's ratios/values, comparison, bound).
SPEED_TARGETS: dict[str, tuple[str, str, str, float]] = {
    "collatz": ("graph <= 1.2x njit", "graph_vs_njit", "<=", 1.2),
    "early_exit": ("graph <= 1.2x njit", "graph_vs_njit", "<=", 1.2),
    "pairwise": ("graph <= 1.2x njit", "graph_vs_njit", "<=", 1.2),
    "fused": ("graph >= 3x faster than eager", "eager_vs_graph", ">=", 3.0),
    "tanh_exp": ("graph not slower than eager", "eager_vs_graph", ">=", 1.0),
    "softmax": ("graph not slower than eager", "eager_vs_graph", ">=", 1.0),
    "gradient_descent": ("graph not slower than eager", "eager_vs_graph", ">=", 1.0),
    "overhead_scalar": ("graph call <= 2 us", "graph_median_s", "<=", 2e-6),
    "overhead_array1": ("graph call <= 2 us", "graph_median_s", "<=", 2e-6),
}
FIRST_CALL_TARGET = ("graph first call <= 1.5x njit compile", "first_call_graph_vs_njit",
                     "<=", 1.5)
CACHED_LOAD_TARGET = ("cached load < 50 ms", "cached_load_s", "<", 0.05)


# --------------------------------------------------------------------------- helpers


def fmt_time(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "-"
    magnitude = abs(seconds)
    if magnitude < 1e-3:
        return f"{seconds * 1e6:.2f} us"
    if magnitude < 1.0:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.3f} s"


def fmt_ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0:
        return None
    return a / b


def judge(target: tuple[str, str, str, float], values: dict[str, Any]) -> dict[str, Any]:
    label, key, op, bound = target
    value = values.get(key)
    if value is None:
        passed = None
    elif op == "<=":
        passed = value <= bound
    elif op == "<":
        passed = value < bound
    else:
        passed = value >= bound
    return {"target": label, "metric": key, "bound": bound, "value": value, "passed": passed}


def mark(verdict: dict[str, Any]) -> str:
    return {True: "PASS", False: "FAIL", None: "n/a"}[verdict["passed"]]


def short_error(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]


def same_result(reference: Any, value: Any) -> bool:
    ref = np.asarray(reference)
    got = np.asarray(value)
    return ref.shape == got.shape and bool(np.allclose(got, ref, rtol=1e-7, atol=1e-12))


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "numba": numba.__version__,
        "nbgraph": getattr(ng, "__version__", None),
        "jax": None,
        "jaxlib": None,
        "environment": {name: os.environ.get(name) for name in OPENBLAS_VARS},
        "openblas_env_set": {name: name in os.environ
                             for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")},
    }
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["processor"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=BENCH_DIR, text=True,
                                capture_output=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "nbgraph"],
                               cwd=BENCH_DIR.parent, text=True, capture_output=True,
                               timeout=10).stdout.strip()
        info["git_commit"] = commit or None
        info["nbgraph_uncommitted_changes"] = bool(dirty)
    except (OSError, subprocess.SubprocessError):
        info["git_commit"] = None
    return info


class CpuMeter:
    """CPU time used by *other* processes (not this one or its children) over an interval.

    Timings on a machine that is busy with something else are noisy; this records how busy.
    """

    def __init__(self) -> None:
        self.start = self._read()

    @staticmethod
    def _read() -> tuple[float, float, float] | None:
        try:
            with open("/proc/stat") as f:
                fields = [int(v) for v in f.readline().split()[1:9]]
        except (OSError, ValueError):
            return None
        user, nice, system, _idle, _iowait, irq, softirq, steal = fields
        busy = (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
        t = os.times()
        return time.perf_counter(), busy, t.user + t.system + t.children_user + t.children_system

    def other_cores(self) -> float | None:
        """Average number of cores that other processes kept busy since construction."""
        end = self._read()
        if self.start is None or end is None or end[0] <= self.start[0]:
            return None
        other = (end[1] - self.start[1]) - (end[2] - self.start[2])
        return max(other, 0.0) / (end[0] - self.start[0])


# --------------------------------------------------------------------------- subprocesses


def cache_snapshot(path: Path) -> dict[str, float]:
    return {str(p.relative_to(path)): p.stat().st_mtime
            for p in path.rglob("*") if p.is_file()}


def run_child(mode: str, name: str, cache: Path) -> dict[str, Any]:
    env = dict(os.environ)  # OPENBLAS_* and the rest are passed on unchanged
    env["NBGRAPH_CACHE_DIR"] = str(cache)
    command = [sys.executable, str(BENCH_DIR / "child.py"), mode, name]
    start = time.perf_counter()
    try:
        proc = subprocess.run(command, env=env, text=True, capture_output=True,
                              timeout=CHILD_TIMEOUT_S, cwd=BENCH_DIR.parent)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {CHILD_TIMEOUT_S:.0f} s (fresh process, "
                         f"first call not finished)", "timed_out": True}
    wall = time.perf_counter() - start
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"error": f"subprocess exited with {proc.returncode}: {' | '.join(tail)}"[:500]}
    result = json.loads(lines[-1])
    result["process_wall_s"] = wall
    return result


def one_off(child: dict[str, Any], steady_fallback: float | None) -> float | None:
    """First call minus the steady-state call time (the trace/compile/load cost).

    The steady-state time is the fastest follow-up call in the same process (noise only
    ever adds time), or the in-process median when the child made no follow-up call. A
    negative difference (the one-off cost is below the noise) is reported as 0.
    """
    first = child.get("first_call_s")
    if first is None:
        return None
    steady = child.get("steady_min_s")
    if steady is None:
        steady = steady_fallback
    return max(first - steady, 0.0) if steady is not None else first


# --------------------------------------------------------------------------- timing


def sample_plan(call_s: float, budget_s: float) -> tuple[int, int]:
    """(calls per sample, number of samples) for a variant whose call takes call_s."""
    call_s = max(call_s, 1e-8)
    inner = max(1, round(MIN_SAMPLE_S / call_s))
    per_sample = inner * call_s
    floor = 2 if call_s > SLOW_CALL_S else MIN_SAMPLES
    samples = int(min(MAX_SAMPLES, max(floor, budget_s // per_sample)))
    return inner, samples


def timed(fn: Callable[..., Any], args: tuple, inner: int) -> float:
    """Seconds per call, from one loop of ``inner`` calls."""
    if inner == 1:
        t0 = time.perf_counter()
        fn(*args)
        return time.perf_counter() - t0
    loop = range(inner)
    t0 = time.perf_counter()
    for _ in loop:
        fn(*args)
    return (time.perf_counter() - t0) / inner


def interleaved(callables: dict[str, tuple[Callable, tuple]], estimates: dict[str, float],
                budget_s: float) -> dict[str, dict[str, Any]]:
    """Round-robin timing: each round calls every variant (that samples in that round)."""
    plans = {v: sample_plan(estimates[v], budget_s) for v in callables}
    rounds = max(samples for _, samples in plans.values())
    schedule = {v: {round(i * rounds / samples) for i in range(samples)}
                for v, (_, samples) in plans.items()}
    times: dict[str, list[float]] = {v: [] for v in callables}
    for r in range(rounds):
        for v, (fn, args) in callables.items():
            if r in schedule[v]:
                times[v].append(timed(fn, args, plans[v][0]))
    stats = {}
    for v, ts in times.items():
        q25, q75 = np.percentile(ts, [25, 75])
        stats[v] = {"median_s": statistics.median(ts), "iqr_s": float(q75 - q25),
                    "samples": len(ts), "calls_per_sample": plans[v][0],
                    "min_s": min(ts), "max_s": max(ts)}
    return stats


# --------------------------------------------------------------------------- one row


def load_jax() -> tuple[Any, str | None]:
    try:
        jax, _, _ = _jax.load()
        return jax, None
    except Exception as exc:  # JAX is optional
        return None, short_error(exc)


def jax_inputs(jax: Any, args: tuple) -> tuple:
    """Arrays go to the device once, outside the timing; Python scalars stay as they are."""
    return tuple(jax.device_put(a) if isinstance(a, np.ndarray) else a for a in args)


def bench_row(spec: Row, cache_root: Path, jax: Any, jax_error: str | None,
              budget_s: float) -> dict[str, Any]:
    print(f"\n== {spec.name}: {spec.description}", flush=True)
    meter = CpuMeter()
    module = spec.module
    cache = cache_root / spec.name
    cache.mkdir(parents=True, exist_ok=True)
    out: dict[str, Any] = {"description": spec.description, "variants": {}, "errors": {},
                           "warnings": {}, "first_call": {}, "cached_load": {}}

    # 1. First calls in fresh processes: graph with an empty cache, then with the populated
    #    cache (the cached load), then the hand-written njit.
    t0 = time.perf_counter()
    graph_first = run_child("graph", spec.name, cache)
    before = cache_snapshot(cache)
    graph_cached = run_child("graph", spec.name, cache) if "first_call_s" in graph_first else {
        "error": "skipped: the uncached first call did not finish"}
    recompiled = bool(graph_cached.get("first_call_s")) and cache_snapshot(cache) != before
    njit_first = run_child("njit", spec.name, cache_root / "_unused")
    print(f"   first calls in fresh processes measured ({time.perf_counter() - t0:.1f} s)",
          flush=True)

    # 2. Build the in-process variants and check them against eager.
    args = spec.make_inputs()
    os.environ["NBGRAPH_CACHE_DIR"] = str(cache)  # reuse what the subprocesses compiled
    callables: dict[str, tuple[Callable, tuple]] = {"eager": (module.eager, args)}
    if graph_first.get("timed_out"):
        out["errors"]["graph"] = graph_first["error"]
    elif (graph_first.get("first_call_s") or 0.0) > NOT_TIMED_ABOVE_S:
        out["errors"]["graph"] = (f"not timed: the first call in a fresh process took "
                                  f"{graph_first['first_call_s']:.1f} s")
    else:
        callables["graph"] = (ng.function(module.eager), args)
    callables["njit"] = (module.njit, args)
    if jax is None:
        out["errors"]["jax"] = f"JAX unavailable ({jax_error})"
    else:
        try:
            jitted = module.make_jax()
            callables["jax"] = (lambda *a, f=jitted: jax.block_until_ready(f(*a)),
                                jax_inputs(jax, args))
        except Exception as exc:
            out["errors"]["jax"] = short_error(exc)

    reference = None
    estimates: dict[str, float] = {}
    for v in list(callables):
        fn, a = callables[v]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                t = time.perf_counter()
                value = fn(*a)
                first = time.perf_counter() - t
            except Exception as exc:
                out["errors"][v] = short_error(exc)
                del callables[v]
                continue
        messages = sorted({f"{w.category.__name__}: {str(w.message).splitlines()[0]}"
                           for w in caught if str(w.message)})
        if messages and v == "graph":
            out["warnings"][v] = messages
        if v == "eager":
            reference = value
        elif not same_result(reference, value):
            out["errors"][v] = "result differs from eager (np.allclose failed); not timed"
            del callables[v]
            continue
        if v == "graph" and first > NOT_TIMED_ABOVE_S:
            out["errors"][v] = f"not timed: one call takes {first:.1f} s"
            del callables[v]
            continue
        # Warm-up (a second call, after any compilation); a slow eager call is its own.
        if v == "eager" and first > SLOW_CALL_S:
            estimates[v] = first
        else:
            estimates[v] = min(first, timed(fn, a, 1))
            if estimates[v] < MIN_SAMPLE_S:
                estimates[v] = timed(fn, a, max(1, round(MIN_SAMPLE_S / max(estimates[v],
                                                                            1e-8))))
    print(f"   checked {', '.join(callables)} against eager; timing ...", flush=True)

    # 3. Interleaved steady-state timing.
    t0 = time.perf_counter()
    out["variants"] = interleaved(callables, estimates, budget_s)
    print(f"   timed ({time.perf_counter() - t0:.1f} s)", flush=True)

    median = {v: s["median_s"] for v, s in out["variants"].items()}
    for label, child in (("graph", graph_first), ("njit", njit_first)):
        entry = {k: child.get(k) for k in ("first_call_s", "steady_s", "steady_min_s",
                                           "numba_start_up_s", "trace_count", "error",
                                           "warnings")}
        entry["one_off_s"] = one_off(child, median.get(label))
        out["first_call"][label] = entry
        if child.get("error") and label not in out["errors"]:
            out["errors"][f"{label}_first_call"] = child["error"]
    cached_total = graph_cached.get("first_call_s")
    out["cached_load"] = {
        "first_call_s": cached_total,
        "steady_s": graph_cached.get("steady_s"),
        "steady_min_s": graph_cached.get("steady_min_s"),
        "load_s": one_off(graph_cached, median.get("graph")),
        "recompiled": recompiled,
        "error": graph_cached.get("error"),
    }

    ratios = {
        "graph_vs_njit": ratio(median.get("graph"), median.get("njit")),
        "eager_vs_graph": ratio(median.get("eager"), median.get("graph")),
        "graph_vs_jax": ratio(median.get("graph"), median.get("jax")),
        "first_call_graph_vs_njit": ratio(out["first_call"]["graph"]["one_off_s"],
                                          out["first_call"]["njit"]["one_off_s"]),
    }
    out["ratios"] = ratios
    values = {**ratios, "graph_median_s": median.get("graph"),
              "cached_load_s": out["cached_load"]["load_s"]}
    out["targets"] = [judge(SPEED_TARGETS[spec.name], values),
                      judge(FIRST_CALL_TARGET, values), judge(CACHED_LOAD_TARGET, values)]
    out["background_cpu_cores"] = meter.other_cores()
    return out


# --------------------------------------------------------------------------- report


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()
    rule = "  ".join("-" * w for w in widths)
    body = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join([line, rule, *body])


def report(results: dict[str, Any]) -> str:
    steady_rows, first_rows, notes = [], [], []
    graph_rows = {name: r for name, r in results["workloads"].items() if "table" not in r}
    own_tables = [r["table"] for r in results["workloads"].values() if "table" in r]
    for name, r in graph_rows.items():
        med = {v: r["variants"].get(v, {}).get("median_s") for v in VARIANTS}
        cells = {v: "ERROR" if med[v] is None and v in r["errors"] else fmt_time(med[v])
                 for v in VARIANTS}
        if r["warnings"].get("graph"):
            cells["graph"] += " *"
        speed = r["targets"][0]
        steady_rows.append([
            name, *(cells[v] for v in VARIANTS),
            fmt_ratio(r["ratios"]["graph_vs_njit"]), fmt_ratio(r["ratios"]["eager_vs_graph"]),
            f"{mark(speed)}  {speed['target']}",
        ])
        fc, cl = r["first_call"], r["cached_load"]
        first_rows.append([
            name, fmt_time(fc["graph"]["first_call_s"]), fmt_time(fc["njit"]["first_call_s"]),
            fmt_time(fc["graph"]["one_off_s"]), fmt_time(fc["njit"]["one_off_s"]),
            fmt_ratio(r["ratios"]["first_call_graph_vs_njit"]), mark(r["targets"][1]),
            fmt_time(cl["load_s"]) + (" (recompiled)" if cl["recompiled"] else ""),
            mark(r["targets"][2]),
        ])
        for key, message in r["errors"].items():
            notes.append(f"{name} [{key}]: {message}")
        for key, messages in r["warnings"].items():
            notes.extend(f"{name} [{key} warning]: {m}" for m in messages)
        if cl.get("error") and "graph" not in r["errors"]:
            notes.append(f"{name} [cached load]: {cl['error']}")
    m = results["machine"]
    background = results.get("background_cpu_cores")
    if background is not None and background > 0.1:
        notes.append(f"other processes kept {background:.2f} of {m['cpu_count']} cores busy "
                     "during the run on average; timings are noisier than usual "
                     "(background_cpu_cores per workload in results.json)")
    lines = [
        f"nbgraph benchmark  {m['date']}  {m['cpu_count']} CPUs ({m['processor']})",
        f"numpy {m['numpy']}  numba {m['numba']}  jax {m['jax'] or 'unavailable'}  "
        f"python {m['python']}",
    ]
    if graph_rows:
        lines += [
            "",
            "Steady state, median time per call (interleaved rounds)",
            table(["workload", "eager", "graph", "njit", "jax", "graph/njit",
                   "eager/graph", "target"], steady_rows),
            *(["  * the graph variant emitted warnings (see the notes below)"]
              if any(r["warnings"].get("graph") for r in graph_rows.values()) else []),
            "",
            "First call in a fresh process (imports and Numba start-up excluded)",
            table(["workload", "graph 1st", "njit 1st", "graph compile", "njit compile",
                   "ratio", "<=1.5x", "cached load", "<50ms"], first_rows),
        ]
    for own in own_tables:
        lines += ["", own["title"], table(own["headers"], own["rows"])]
    if notes:
        lines += ["", "Errors and notes", *(f"  {n}" for n in notes)]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help="run only these rows: " + ", ".join(r.name for r in ROWS))
    parser.add_argument("--budget", type=float, default=1.5,
                        help="target seconds of timed calls per variant and row (default 1.5)")
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results.json")
    options = parser.parse_args()
    rows = [r for r in ROWS if not options.only or r.name in options.only]
    if options.only and len(rows) != len(options.only):
        parser.error(f"unknown row name in {options.only}")

    started = time.perf_counter()
    meter = CpuMeter()
    jax, jax_error = load_jax()
    machine = machine_info()
    if jax is not None:
        import jaxlib

        machine["jax"] = jax.__version__
        machine["jaxlib"] = getattr(jaxlib, "__version__", None)
    else:
        machine["jax_error"] = jax_error
    results: dict[str, Any] = {
        "machine": machine,
        "settings": {"budget_per_variant_s": options.budget, "min_sample_s": MIN_SAMPLE_S,
                     "samples": [MIN_SAMPLES, MAX_SAMPLES],
                     "child_timeout_s": CHILD_TIMEOUT_S},
        "workloads": {},
    }
    with tempfile.TemporaryDirectory(prefix="nbgraph-bench-") as tmp:
        for spec in rows:
            if spec.measure is not None:
                print(f"\n== {spec.name}: {spec.description}", flush=True)
                results["workloads"][spec.name] = spec.measure()
            else:
                results["workloads"][spec.name] = bench_row(spec, Path(tmp), jax,
                                                            jax_error, options.budget)
    results["total_s"] = time.perf_counter() - started
    results["background_cpu_cores"] = meter.other_cores()
    options.out.write_text(json.dumps(results, indent=2) + "\n")
    print("\n" + report(results))
    print(f"\nwrote {options.out}  ({results['total_s']:.0f} s in all)")


if __name__ == "__main__":
    main()
