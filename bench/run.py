"""Benchmark nbgraph's graph mode against eager Python/NumPy, hand-written Numba and JAX.

    python bench/run.py [--only NAME ...] [--threads pinned|default|both] [--budget SECONDS]
                        [--out PATH]

Every table is measured in a fresh process started with its thread settings: ``pinned``
(every library on one thread) and ``default`` (each library at its own default).  For
every workload row: first calls in fresh subprocesses (graph with an empty cache, graph
again with the populated cache, hand-written njit, jax.jit; each with and without the
process's start-up), then in the table's process a check of every variant's result
against eager (dtype, shape, values; tuples element by element), a warm-up, and
interleaved timing (round-robin eager, graph, njit, jax and the row's other baselines).
A full run writes bench/results.json (with the commit and the machine); ``--only``
prints without writing unless ``--out`` is given.  ``bench/report.py`` turns
results.json into the README's Performance tables.  The targets printed beside the
ratios are informational; nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from measure import (
    BENCH_DIR,
    MIN_SAMPLE_S,
    THREAD_MODES,
    CpuMeter,
    Progress,
    machine_info,
    mismatch,
    ratio,
    run_resumable,
    short_error,
    summary,
    thread_env,
    threads_in_effect,
    timed,
)
from report import render
from workloads import ROWS, Row, _jax, row

VARIANTS = ("eager", "graph", "njit", "jax")

MIN_SAMPLES = 3
MAX_SAMPLES = 15
SLOW_CALL_S = 1.0  # variants slower than this per call get fewer samples (at least 2)
CHILD_TIMEOUT_S = 90.0  # a graph first call that takes longer is not timed in-process
NOT_TIMED_ABOVE_S = 15.0  # nor is a graph whose steady call takes longer than this
TABLE_TIMEOUT_S = 1800.0

# The rules every table follows, printed in its header.
FAIRNESS = [
    "same algorithm in every variant (JAX Collatz: one start after another, each a "
    "while_loop; the vmap version, a different algorithm, is listed apart)",
    "njit baselines allocate outputs and call math functions as graph mode does (huge "
    "pages on large outputs; NumPy's SIMD tanh/exp by blocks in tanh_exp and softmax); "
    "the other choices are listed under 'Other baselines'",
    "every result checked against eager before timing: dtype, shape and values (rtol "
    "1e-9 float64, 2e-5 float32; tuples element by element); a variant that differs is "
    "not timed",
    "JAX inputs put on the device before timing; every JAX call ends in block_until_ready",
    "warm-up first; medians of interleaved rounds (every variant sampled in turn), in one process",
]

# Informational targets: (what, metric key in the row's ratios/values, comparison, bound).
SPEED_TARGETS: dict[str, tuple[str, str, str, float]] = {
    "collatz": ("graph <= 1.05x njit", "graph_vs_njit", "<=", 1.05),
    "early_exit": ("graph <= 1.05x njit", "graph_vs_njit", "<=", 1.05),
    "pairwise": ("graph <= 1.05x njit", "graph_vs_njit", "<=", 1.05),
    "fused": ("graph >= 3x faster than eager", "eager_vs_graph", ">=", 3.0),
    "tanh_exp": ("graph not slower than eager", "eager_vs_graph", ">=", 1.0),
    "softmax": ("graph not slower than eager", "eager_vs_graph", ">=", 1.0),
    "gradient_descent": ("graph not slower than eager", "eager_vs_graph", ">=", 1.0),
    "kmeans": ("graph not slower than eager", "eager_vs_graph", ">=", 1.0),
    "fixed_point": ("graph not slower than eager", "eager_vs_graph", ">=", 1.0),
    "overhead_scalar": ("graph call <= 2 us", "graph_median_s", "<=", 2e-6),
    "overhead_array1": ("graph call <= 2 us", "graph_median_s", "<=", 2e-6),
}
FIRST_CALL_TARGET = ("graph first call <= 1.0x njit compile", "first_call_graph_vs_njit", "<=", 1.0)
# Fresh processes that load from the populated cache; the fastest first call counts.
CACHED_RUNS = 3
CACHED_LOAD_TARGET = ("cached load < 50 ms", "cached_load_s", "<", 0.05)


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


# --------------------------------------------------------------------------- subprocesses


def cache_snapshot(path: Path) -> dict[str, float]:
    return {str(p.relative_to(path)): p.stat().st_mtime for p in path.rglob("*") if p.is_file()}


def run_child(mode: str, name: str, cache: Path) -> dict[str, Any]:
    """One first call in a fresh process (bench/child.py), with this table's threads."""
    env = dict(os.environ)  # thread settings, OPENBLAS_* and the rest pass on unchanged
    env["NBGRAPH_CACHE_DIR"] = str(cache)
    command = [sys.executable, str(BENCH_DIR / "child.py"), mode, name]
    start = time.perf_counter()
    env["NBGRAPH_BENCH_SPAWNED_AT"] = repr(time.time())
    try:
        proc = subprocess.run(
            command, env=env, text=True, capture_output=True, timeout=CHILD_TIMEOUT_S, cwd=BENCH_DIR
        )
    except subprocess.TimeoutExpired:
        return {
            "error": f"timed out after {CHILD_TIMEOUT_S:.0f} s (fresh process, "
            f"first call not finished)",
            "timed_out": True,
        }
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


def _fastest(children: list[dict[str, Any]]) -> dict[str, Any]:
    """The child whose first call took least (noise, such as the kernel compacting memory
    for the first huge pages a process touches, only ever adds time); an error if every
    child failed."""
    timed = [c for c in children if "first_call_s" in c]
    return min(timed, key=lambda c: c["first_call_s"]) if timed else children[0]


def first_calls(spec: Row, cache: Path, scratch: Path, with_jax: bool) -> dict[str, Any]:
    """Graph (empty cache, then the populated one), njit and jax first calls."""
    t0 = time.perf_counter()
    found = {"graph": run_child("graph", spec.name, cache)}
    before = cache_snapshot(cache)
    found["cached"] = (
        _fastest([run_child("graph", spec.name, cache) for _ in range(CACHED_RUNS)])
        if "first_call_s" in found["graph"]
        else {"error": "skipped: the uncached first call did not finish"}
    )
    found["recompiled"] = (
        bool(found["cached"].get("first_call_s")) and cache_snapshot(cache) != before
    )
    found["njit"] = run_child("njit", spec.name, scratch)
    if with_jax:
        found["jax"] = run_child("jax", spec.name, scratch)
    print(
        f"   first calls in fresh processes measured ({time.perf_counter() - t0:.1f} s)", flush=True
    )
    return found


# --------------------------------------------------------------------------- timing


def sample_plan(call_s: float, budget_s: float) -> tuple[int, int]:
    """(calls per sample, number of samples) for a variant whose call takes call_s."""
    call_s = max(call_s, 1e-8)
    inner = max(1, round(MIN_SAMPLE_S / call_s))
    per_sample = inner * call_s
    floor = 2 if call_s > SLOW_CALL_S else MIN_SAMPLES
    samples = int(min(MAX_SAMPLES, max(floor, budget_s // per_sample)))
    return inner, samples


def interleaved(
    callables: dict[str, tuple[Callable, tuple]], estimates: dict[str, float], budget_s: float
) -> dict[str, dict[str, Any]]:
    """Round-robin timing: each round calls every variant (that samples in that round)."""
    plans = {v: sample_plan(estimates[v], budget_s) for v in callables}
    rounds = max(samples for _, samples in plans.values())
    schedule = {
        v: {round(i * rounds / samples) for i in range(samples)}
        for v, (_, samples) in plans.items()
    }
    times: dict[str, list[float]] = {v: [] for v in callables}
    for r in range(rounds):
        for v, (fn, args) in callables.items():
            if r in schedule[v]:
                times[v].append(timed(fn, args, plans[v][0]))
    return {v: summary(ts, plans[v][0]) for v, ts in times.items()}


# --------------------------------------------------------------------------- one row


def load_jax() -> tuple[Any, str | None]:
    try:
        jax, _, _ = _jax.load()
        return jax, None
    except Exception as exc:  # JAX is optional
        return None, short_error(exc)


def jax_inputs(jax: Any, args: tuple) -> tuple:
    """Arrays go to the device once, outside the timing; Python scalars stay as they are."""
    device = tuple(jax.device_put(a) if isinstance(a, np.ndarray) else a for a in args)
    return jax.block_until_ready(device)


def build_variants(
    spec: Row, args: tuple, jax: Any, out: dict[str, Any], graph_first: dict[str, Any] | None
) -> dict[str, tuple[Callable, tuple]]:
    """Every variant of the row, and its other baselines (keyed ``other:LABEL``)."""
    import nbgraph as ng

    module = spec.module
    callables: dict[str, tuple[Callable, tuple]] = {"eager": (module.eager, args)}
    graph_first = graph_first or {}
    if graph_first.get("timed_out"):
        out["errors"]["graph"] = graph_first["error"]
    elif (graph_first.get("first_call_s") or 0.0) > NOT_TIMED_ABOVE_S:
        out["errors"]["graph"] = (
            f"not timed: the first call in a fresh process took {graph_first['first_call_s']:.1f} s"
        )
    else:
        callables["graph"] = (ng.function(module.eager), args)
    callables["njit"] = (module.njit, args)
    if jax is None:
        out["errors"]["jax"] = "JAX unavailable"
    else:
        try:
            jitted = module.make_jax()
            callables["jax"] = (
                lambda *a, f=jitted: jax.block_until_ready(f(*a)),
                jax_inputs(jax, args),
            )
        except Exception as exc:
            out["errors"]["jax"] = short_error(exc)
    others = getattr(module, "other_baselines", None)
    if others is not None:
        try:
            for label, fn in others().items():
                callables[f"other:{label}"] = (fn, args)
        except Exception as exc:  # an optional library missing
            out["errors"]["other baselines"] = short_error(exc)
    return callables


def check_and_warm(
    callables: dict[str, tuple[Callable, tuple]], out: dict[str, Any]
) -> dict[str, float]:
    """Calls every variant once, drops (and reports) those that raise or differ from
    eager, and returns an estimate of each remaining variant's call time."""
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
        messages = sorted(
            {
                f"{w.category.__name__}: {str(w.message).splitlines()[0]}"
                for w in caught
                if str(w.message)
            }
        )
        if messages and v == "graph":
            out["warnings"][v] = messages
        if v == "eager":
            reference = value
        else:
            found = mismatch(reference, value)
            if found is not None:
                out["errors"][v] = f"WRONG RESULT, not timed: {found}"
                print(
                    f"   !! {v} DIFFERS FROM EAGER, not timed: {found}", file=sys.stderr, flush=True
                )
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
                estimates[v] = timed(fn, a, max(1, round(MIN_SAMPLE_S / max(estimates[v], 1e-8))))
    return estimates


def first_call_entry(child: dict[str, Any], steady: float | None) -> dict[str, Any]:
    entry = {
        k: child.get(k)
        for k in (
            "first_call_s",
            "first_call_with_start_up_s",
            "second_call_s",
            "steady_s",
            "steady_min_s",
            "numba_start_up_s",
            "jax_start_up_s",
            "inputs_s",
            "trace_count",
            "error",
            "warnings",
        )
    }
    entry["one_off_s"] = one_off(child, steady)
    return entry


def bench_row(
    spec: Row, cache_root: Path, jax: Any, budget_s: float, measure_first_calls: bool
) -> dict[str, Any]:
    print(f"\n== {spec.name}: {spec.description}", flush=True)
    meter = CpuMeter()
    cache = cache_root / spec.name
    cache.mkdir(parents=True, exist_ok=True)
    out: dict[str, Any] = {
        "description": spec.description,
        "variants": {},
        "errors": {},
        "warnings": {},
        "other_baselines": {},
    }
    found = (
        first_calls(spec, cache, cache_root / "_unused", jax is not None)
        if measure_first_calls
        else None
    )

    args = spec.make_inputs()
    os.environ["NBGRAPH_CACHE_DIR"] = str(cache)  # reuse what the subprocesses compiled
    callables = build_variants(spec, args, jax, out, found and found["graph"])
    estimates = check_and_warm(callables, out)
    print(f"   checked {', '.join(callables)} against eager; timing ...", flush=True)
    t0 = time.perf_counter()
    timing = interleaved(callables, estimates, budget_s)
    print(f"   timed ({time.perf_counter() - t0:.1f} s)", flush=True)

    out["variants"] = {v: s for v, s in timing.items() if not v.startswith("other:")}
    median = {v: s["median_s"] for v, s in timing.items()}
    for v in [v for v in out["errors"] if v.startswith("other:")]:
        out["other_baselines"][v[6:]] = {"error": out["errors"].pop(v)}
    for v, s in timing.items():
        if v.startswith("other:"):
            out["other_baselines"][v[6:]] = {
                **s,
                "graph_vs_this": ratio(median.get("graph"), s["median_s"]),
            }
    ratios = {
        "graph_vs_njit": ratio(median.get("graph"), median.get("njit")),
        "eager_vs_graph": ratio(median.get("eager"), median.get("graph")),
        "graph_vs_jax": ratio(median.get("graph"), median.get("jax")),
    }
    if found is not None:
        out["first_call"] = {
            label: first_call_entry(found[label], median.get(label))
            for label in ("graph", "njit", "jax")
            if label in found
        }
        for label, child in found.items():
            if isinstance(child, dict) and child.get("error") and label not in out["errors"]:
                out["errors"][f"{label}_first_call"] = child["error"]
        cached = found["cached"]
        out["cached_load"] = {
            "first_call_s": cached.get("first_call_s"),
            "first_call_with_start_up_s": cached.get("first_call_with_start_up_s"),
            "steady_s": cached.get("steady_s"),
            "steady_min_s": cached.get("steady_min_s"),
            "load_s": one_off(cached, median.get("graph")),
            "recompiled": found["recompiled"],
            "error": cached.get("error"),
        }
        ratios["first_call_graph_vs_njit"] = ratio(
            out["first_call"]["graph"]["one_off_s"], out["first_call"]["njit"]["one_off_s"]
        )
    out["ratios"] = ratios
    values = {
        **ratios,
        "graph_median_s": median.get("graph"),
        "cached_load_s": out.get("cached_load", {}).get("load_s"),
    }
    out["targets"] = [judge(SPEED_TARGETS[spec.name], values)]
    if found is not None:
        out["targets"] += [judge(FIRST_CALL_TARGET, values), judge(CACHED_LOAD_TARGET, values)]
    out["background_cpu_cores"] = meter.other_cores()
    return out


# --------------------------------------------------------------------------- tables


def measure_table(
    rows: list[Row],
    cache_root: Path,
    budget_s: float,
    measure_first_calls: bool,
    progress: Progress,
) -> None:
    """Every row of one table, in this process (started with the table's threads)."""
    meter = CpuMeter()
    jax, jax_error = load_jax()
    progress.extra(threads=threads_in_effect(), jax_error=jax_error)
    for spec in rows:
        progress.start(spec.name)
        if spec.measure is not None:
            print(f"\n== {spec.name}: {spec.description}", flush=True)
            os.environ["NBGRAPH_CACHE_DIR"] = str(cache_root / spec.name)
            progress.finish(spec.name, spec.measure())
        else:
            progress.finish(
                spec.name, bench_row(spec, cache_root, jax, budget_s, measure_first_calls)
            )
    progress.extra(background_cpu_cores=meter.other_cores())


def run_table(
    mode: str,
    names: list[str],
    options: argparse.Namespace,
    cache_root: Path,
    measure_first_calls: bool,
) -> dict[str, Any]:
    """One table, measured by this script in a fresh process with ``mode``'s threads; a
    row whose process dies is reported as crashed and the table goes on without it."""
    started = time.perf_counter()

    def command(remaining: list[str], path: Path) -> list[str]:
        return [
            sys.executable,
            str(BENCH_DIR / "run.py"),
            "--child",
            mode,
            "--only",
            *remaining,
            "--budget",
            str(options.budget),
            "--json",
            str(path),
            "--cache",
            str(cache_root),
            *([] if measure_first_calls else ["--no-first-calls"]),
        ]

    done, crashed, extra = run_resumable(command, names, thread_env(mode), TABLE_TIMEOUT_S)
    workloads = {
        name: done.get(name) or {"description": row(name).description, "crashed": crashed[name]}
        for name in names
    }
    return {**extra, "workloads": workloads, "seconds": time.perf_counter() - started}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="NAME",
        help="run only these rows: " + ", ".join(r.name for r in ROWS),
    )
    parser.add_argument(
        "--threads",
        choices=(*THREAD_MODES, "both"),
        default="both",
        help="which tables: every library on one thread (pinned), each "
        "at its default, or both (default)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=1.5,
        help="target seconds of timed calls per variant and row (default 1.5)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="where to write the results (default: bench/results.json for "
        "a full run; nothing with --only)",
    )
    parser.add_argument("--child", choices=THREAD_MODES, help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--cache", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--no-first-calls", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    rows = [r for r in ROWS if not options.only or r.name in options.only]
    if options.only and len(rows) != len(set(options.only)):
        parser.error(f"unknown row name in {options.only}")

    if options.child:
        measure_table(
            rows, options.cache, options.budget, not options.no_first_calls, Progress(options.json)
        )
        return

    started = time.perf_counter()
    meter = CpuMeter()
    modes = THREAD_MODES if options.threads == "both" else (options.threads,)
    results: dict[str, Any] = {
        "machine": machine_info(),
        "settings": {
            "budget_per_variant_s": options.budget,
            "min_sample_s": MIN_SAMPLE_S,
            "samples": [MIN_SAMPLES, MAX_SAMPLES],
            "child_timeout_s": CHILD_TIMEOUT_S,
            "only": options.only,
        },
        "fairness": FAIRNESS,
        "tables": {},
    }
    with tempfile.TemporaryDirectory(prefix="nbgraph-bench-") as tmp:
        for i, mode in enumerate(modes):
            names = [r.name for r in rows if mode in r.thread_modes]
            if not names:
                continue
            print(f"\n#### table: {mode} threads", flush=True)
            # First calls are measured once, with the first table's threads.
            results["tables"][mode] = run_table(
                mode, names, options, Path(tmp), measure_first_calls=i == 0
            )
    results["total_s"] = time.perf_counter() - started
    results["background_cpu_cores"] = meter.other_cores()
    out = options.out or (None if options.only else BENCH_DIR / "results.json")
    print("\n" + render(results))
    if out is not None:
        out.write_text(json.dumps(results, indent=2) + "\n")
        print(f"\nwrote {out}  ({results['total_s']:.0f} s in all)")
    else:
        print(f"\n({results['total_s']:.0f} s in all; nothing written: --only without --out)")


if __name__ == "__main__":
    main()
