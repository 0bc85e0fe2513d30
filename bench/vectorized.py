"""The vectorized section: NumPy kernels timed eagerly, in graph mode, under ``@numba.njit``
and as ``jax.jit`` twins.

    python bench/vectorized.py [--threads pinned|default|both] [--rounds N] [--kernels NAME ...]

Alone it prints the tables and writes nothing; ``bench/run.py`` runs the same measurement
as its ``vectorized`` row (``bench/run.py --only vectorized``) and stores it in
``results.json``.  Each table runs with its thread settings (``--threads``): ``pinned``
puts every library on one thread, ``default`` leaves each at its own default.  All
kernels of a table are measured in one child process (a new one takes over after a
kernel whose process dies, which is reported as CRASHED).  Per kernel: every variant's
result is checked against eager (dtype, shape, values; tuples element by element) before
anything is timed, a variant that differs is reported as WRONG and not timed; then the
variants are warmed up and timed in interleaved rounds.  Ratios are times over graph
mode's time (above 1: graph mode is faster).
"""

from __future__ import annotations

import argparse
import json
import os
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
    THREAD_MODES,
    THREAD_RULES,
    CpuMeter,
    Progress,
    calls_per_sample,
    fmt_ratio,
    fmt_time,
    format_titled,
    geomean,
    interleaved_rounds,
    mismatch,
    paired_ratio,
    run_resumable,
    short_error,
    thread_env,
    thread_mode,
    threads_in_effect,
)
from workloads import vectorized as kernels

VARIANTS = ("eager", "graph", "njit", "jax")
RATIOS = (("eager_vs_graph", "eager"), ("jax_vs_graph", "jax"), ("njit_vs_graph", "njit"))
ROUNDS = 7
CHILD_TIMEOUT_S = 900
RULES = [
    "same source: graph = nbgraph.function(f) (cpu backend), njit = numba.njit(f) of the "
    "same f (n/a where Numba cannot compile it), jax = jax.jit of a jax.numpy twin "
    "(float64 enabled)",
    "every result checked against eager before timing: dtype, shape and values (rtol 1e-9 "
    "float64, 2e-5 float32; tuples element by element); a mismatch is WRONG, not timed",
    "JAX inputs put on the device before timing; every JAX call ends in block_until_ready",
    "warm-up first (compilation excluded); medians of interleaved rounds, one process",
]


def _jax_setup() -> tuple[Any, dict[str, Callable] | None, str | None]:
    try:
        functions = kernels.jax_functions()
        import jax
    except Exception as exc:  # JAX is optional
        return None, None, short_error(exc)
    return jax, functions, None


def _variants(
    k: kernels.Kernel, args: tuple, jax: Any, jax_functions: dict[str, Callable] | None
) -> dict[str, tuple[Callable, tuple]]:
    import numba

    import nbgraph as ng

    out: dict[str, tuple[Callable, tuple]] = {
        "eager": (k.eager, args),
        "graph": (ng.function(k.eager), args),
        "njit": (numba.njit(k.eager), args),
    }
    if jax_functions is not None:
        device = tuple(jax.device_put(a) if isinstance(a, np.ndarray) else a for a in args)
        jax.block_until_ready(device)
        out["jax"] = (lambda *a, f=jax_functions[k.name]: jax.block_until_ready(f(*a)), device)
    return out


def measure_kernel(
    k: kernels.Kernel,
    rounds: int,
    jax: Any,
    jax_functions: dict[str, Callable] | None,
    jax_error: str | None,
) -> dict[str, Any]:
    """Check every variant against eager, then time the ones that agree."""
    args = k.make_inputs(1.0)
    callables = _variants(k, args, jax, jax_functions)
    errors: dict[str, str] = {}
    wrong: dict[str, str] = {}
    warned: list[str] = []
    if jax_functions is None:
        errors["jax"] = f"JAX unavailable ({jax_error})"
    reference = None
    inner: dict[str, int] = {}
    for v in list(callables):
        fn, a = callables[v]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                value = fn(*a)
            except Exception as exc:
                prefix = "n/a (Numba cannot compile it): " if v == "njit" else ""
                errors[v] = prefix + short_error(exc)
                del callables[v]
                continue
        if v == "graph":
            warned = sorted(
                {
                    f"{w.category.__name__}: {str(w.message).splitlines()[0]}"
                    for w in caught
                    if str(w.message)
                }
            )
        if v == "eager":
            reference = value
            found = None
        else:
            found = mismatch(reference, value)
        if found is not None:
            wrong[v] = found
            print(
                f"   !! {k.name}: {v} DIFFERS FROM EAGER, not timed: {found}",
                file=sys.stderr,
                flush=True,
            )
            del callables[v]
            continue
        inner[v] = calls_per_sample(fn, a)[0]
    stats = interleaved_rounds(callables, inner, rounds)
    return {
        "what": k.what,
        "variants": stats,
        "errors": errors,
        "wrong": wrong,
        "graph_warnings": warned,
        "ratios": {key: paired_ratio(stats, v, "graph") for key, v in RATIOS},
    }


def measure_here(rounds: int, names: list[str], progress: Progress) -> None:
    """Measures the named kernels in this process, recording each as it finishes."""
    meter = CpuMeter()
    jax, functions, jax_error = _jax_setup()
    for k in kernels.KERNELS:
        if k.name not in names:
            continue
        progress.start(k.name)
        t0 = time.perf_counter()
        progress.finish(k.name, measure_kernel(k, rounds, jax, functions, jax_error))
        print(f"   {k.name}: {time.perf_counter() - t0:.1f} s", flush=True)
    progress.extra(threads=threads_in_effect(), background_cpu_cores=meter.other_cores())


def crashed_kernel(k: kernels.Kernel, message: str) -> dict[str, Any]:
    return {
        "what": k.what,
        "variants": {},
        "errors": {},
        "wrong": {},
        "graph_warnings": [],
        "crashed": message,
        "ratios": {key: None for key, _ in RATIOS},
    }


def measure(
    rounds: int = ROUNDS, names: list[str] | None = None, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """The section, measured in child processes started with ``env`` (by default this
    process's environment, so its thread settings); a kernel whose process dies (a
    compiler abort) is reported as crashed and the others are still measured."""
    started = time.perf_counter()
    chosen = [k.name for k in kernels.KERNELS if not names or k.name in names]

    def command(remaining: list[str], path: Path) -> list[str]:
        return [
            sys.executable,
            str(BENCH_DIR / "vectorized.py"),
            "--child",
            "--rounds",
            str(rounds),
            "--json",
            str(path),
            "--kernels",
            *remaining,
        ]

    done, crashed, extra = run_resumable(
        command, chosen, dict(os.environ if env is None else env), CHILD_TIMEOUT_S
    )
    results = {
        name: done[name] if name in done else crashed_kernel(kernels.kernel(name), crashed[name])
        for name in chosen
    }
    geomeans = {key: geomean([r["ratios"][key] for r in results.values()]) for key, _ in RATIOS}
    counted = {
        key: sum(r["ratios"][key] is not None for r in results.values()) for key, _ in RATIOS
    }
    worst = min(
        (
            (r["ratios"]["eager_vs_graph"], name)
            for name, r in results.items()
            if r["ratios"]["eager_vs_graph"] is not None
        ),
        default=(None, None),
    )
    return {
        "description": kernels.DESCRIPTION,
        "rounds": rounds,
        "kernels": results,
        "geomean": geomeans,
        "geomean_kernels": counted,
        "worst_eager_vs_graph": {"kernel": worst[1], "ratio": worst[0]},
        "threads": extra.get("threads"),
        "seconds": time.perf_counter() - started,
        "background_cpu_cores": extra.get("background_cpu_cores"),
    }


# Targets for graph mode on this section (informational; nothing asserts them).
TARGETS = (
    ("worst eager/graph", ">=", 0.95),
    ("geometric mean eager/graph", ">=", 2.0),
    ("geometric mean jax/graph", ">=", 1.0),
)


def target_lines(result: dict[str, Any]) -> list[str]:
    worst = result["worst_eager_vs_graph"]
    values = (
        worst["ratio"],
        result["geomean"]["eager_vs_graph"],
        result["geomean"]["jax_vs_graph"],
    )
    lines = []
    for (label, op, bound), value in zip(TARGETS, values):
        where = f" ({worst['kernel']})" if label.startswith("worst") else ""
        verdict = "n/a" if value is None else ("met" if value >= bound else "MISSED")
        lines.append(f"target {label} {op} {bound:g}: {fmt_ratio(value)}{where} {verdict}")
    return lines


def _cell(r: dict[str, Any], v: str) -> str:
    if "crashed" in r:
        return "CRASHED"
    if v in r["wrong"]:
        return "WRONG"
    if v in r["variants"]:
        star = " *" if v == "graph" and r["graph_warnings"] else ""
        return fmt_time(r["variants"][v]["median_s"]) + star
    message = r["errors"].get(v, "")
    return "n/a" if message.startswith("n/a") else "ERROR"


def report_table(
    result: dict[str, Any], mode: str, baseline: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The section's table (title, rules, headers, rows, notes) for one thread mode; with
    a ``baseline`` (an earlier result), its eager/graph ratios in a last column."""
    rows, notes = [], []
    before = {} if baseline is None else baseline["kernels"]
    for name, r in result["kernels"].items():
        rows.append(
            [
                name,
                *(_cell(r, v) for v in VARIANTS),
                *(fmt_ratio(r["ratios"][key]) for key, _ in RATIOS),
            ]
        )
        if baseline is not None:
            rows[-1].append(fmt_ratio(before.get(name, {}).get("ratios", {}).get("eager_vs_graph")))
        if "crashed" in r:
            notes.append(f"{name} CRASHED: {r['crashed']}")
        for v, message in r["wrong"].items():
            notes.append(f"{name} [{v}] WRONG RESULT (not timed): {message}")
        for v, message in r["errors"].items():
            if not message.startswith("n/a") and "unavailable" not in message:
                notes.append(f"{name} [{v}]: {message}")
        notes.extend(f"{name} [graph warning]: {m}" for m in r["graph_warnings"])
    gm, counted = result["geomean"], result["geomean_kernels"]
    rows.append(
        [
            "geometric mean",
            "",
            "",
            "",
            "",
            *(f"{fmt_ratio(gm[key])} ({counted[key]})" for key, _ in RATIOS),
        ]
    )
    if baseline is not None:
        rows[-1].append(
            f"{fmt_ratio(baseline['geomean']['eager_vs_graph'])} "
            f"({baseline['geomean_kernels']['eager_vs_graph']})"
        )
    n_a = [
        name
        for name, r in result["kernels"].items()
        if r["errors"].get("njit", "").startswith("n/a")
    ]
    if n_a:
        notes.append(f"njit n/a (Numba does not compile the same source): {', '.join(n_a)}")
    jax_missing = {r["errors"].get("jax") for r in result["kernels"].values()} - {None}
    notes.extend(sorted(m for m in jax_missing if "unavailable" in m))
    notes.extend(target_lines(result))
    background = result.get("background_cpu_cores")
    if background is not None and background > 0.1:
        notes.append(
            f"other processes kept {background:.2f} cores busy on average during this table"
        )
    return {
        "title": (
            f"Vectorized kernels, {mode} threads: median per call of "
            f"{result['rounds']} interleaved rounds; ratios are the median over rounds "
            "of time / graph time in the same round (above 1: graph mode is faster); "
            "(n) = kernels in the geometric mean"
        ),
        "rules": [f"threads: {THREAD_RULES.get(mode, 'as this process was started')}", *RULES],
        "headers": [
            "kernel",
            *VARIANTS,
            "eager/graph",
            "jax/graph",
            "njit/graph",
            *([] if baseline is None else ["eager/graph before"]),
        ],
        "rows": rows,
        "notes": notes,
    }


def bench() -> dict[str, Any]:
    """The section as a row of ``bench/run.py``, with this process's thread settings and
    the table to print."""
    result = measure()
    result["table"] = report_table(result, thread_mode())
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", choices=(*THREAD_MODES, "both"), default="both")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument(
        "--kernels",
        nargs="+",
        metavar="NAME",
        help="only these: " + ", ".join(k.name for k in kernels.KERNELS),
    )
    parser.add_argument(
        "--save",
        type=Path,
        metavar="PATH",
        help="write the results (by thread setting) to this JSON file",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="PATH",
        help="an earlier --save file, or a results.json of bench/run.py: "
        "its eager/graph ratios are shown beside the new ones",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.kernels:
        unknown = set(options.kernels) - {k.name for k in kernels.KERNELS}
        if unknown:
            parser.error(f"unknown kernel names: {', '.join(sorted(unknown))}")
    if options.child:
        measure_here(options.rounds, options.kernels, Progress(options.json))
        return
    modes = THREAD_MODES if options.threads == "both" else (options.threads,)
    baselines = load_baselines(options.baseline) if options.baseline else {}
    saved = {}
    with tempfile.TemporaryDirectory(prefix="nbgraph-bench-cache-") as cache:
        for mode in modes:
            print(f"\n== vectorized, {mode} threads", flush=True)
            env = {**thread_env(mode), "NBGRAPH_CACHE_DIR": cache}
            saved[mode] = measure(options.rounds, options.kernels, env)
            table = report_table(saved[mode], mode, baselines.get(mode))
            print("\n" + format_titled(table), flush=True)
    if options.save:
        options.save.write_text(json.dumps(saved, indent=1) + "\n")
        print(f"wrote {options.save}")


def load_baselines(path: Path) -> dict[str, Any]:
    """Earlier results by thread setting, from a --save file or bench/run.py's JSON."""
    data = json.loads(path.read_text())
    if "tables" in data:
        return {
            mode: t["workloads"]["vectorized"]
            for mode, t in data["tables"].items()
            if "kernels" in t["workloads"].get("vectorized", {})
        }
    return data


if __name__ == "__main__":
    main()
