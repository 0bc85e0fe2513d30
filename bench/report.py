"""The benchmark's tables, from its results: printed by ``bench/run.py`` and written into
the README's Performance section.

    python bench/report.py [--results bench/results.json] [--gpu bench/results_gpu.json]
                           [--readme README.md] [--check]

Rewrites the part of the README between ``<!-- bench:begin -->`` and
``<!-- bench:end -->`` from the results files (``make bench`` runs it after the
measurements), so the README's numbers are the last run's.  ``--check`` only says whether
the README is up to date (exit status 1 if not).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from measure import BENCH_DIR, THREAD_RULES, fmt_ratio, fmt_time, format_titled, table

VARIANTS = ("eager", "graph", "njit", "jax")
LOOP_ROWS = ("collatz", "early_exit", "pairwise")
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"


def mark(verdict: dict[str, Any]) -> str:
    return {True: "PASS", False: "FAIL", None: "n/a"}[verdict["passed"]]


def _cell(r: dict[str, Any], v: str) -> str:
    seconds = r["variants"].get(v, {}).get("median_s")
    if seconds is None:
        error = r["errors"].get(v, "")
        return "WRONG" if error.startswith("WRONG") else ("ERROR" if error else "-")
    return fmt_time(seconds) + (" *" if v == "graph" and r["warnings"].get("graph") else "")


def commit_label(m: dict[str, Any]) -> str:
    """The measured commit, and whether the working tree had changes beyond it."""
    commit = (m.get("git_commit") or "unknown")[:12]
    return commit + (" (with uncommitted changes)" if m.get("git_dirty") else "")


def machine_lines(results: dict[str, Any]) -> list[str]:
    m = results["machine"]
    return [
        f"nbgraph benchmark  {m['date']}  commit {commit_label(m)}",
        f"{m['cpu_count']} CPUs ({m['processor']}); python {m['python']}  numpy {m['numpy']}  "
        f"numba {m['numba']}  jax {m.get('jax') or 'unavailable'}",
    ]


def graph_tables(t: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The steady-state, other-baseline and first-call tables of one thread mode, and
    their notes."""
    graph_rows = {n: r for n, r in t["workloads"].items() if "targets" in r}
    crashed = {n: r["crashed"] for n, r in t["workloads"].items() if "crashed" in r}
    if not graph_rows and not crashed:
        return [], []
    steady, others, first, start_up = [], [], [], []
    bounds = next(
        (
            (f"<={r['targets'][1]['bound']:g}x", f"<{r['targets'][2]['bound'] * 1000:g}ms")
            for r in graph_rows.values()
            if r.get("first_call")
        ),
        ("", ""),
    )
    notes = [f"{name}: CRASHED, not measured: {why}" for name, why in crashed.items()]
    steady += [[name, "CRASHED", *([""] * (len(VARIANTS) + 3))] for name in crashed]
    for name, r in graph_rows.items():
        speed = r["targets"][0]
        steady.append(
            [
                name,
                *(_cell(r, v) for v in VARIANTS),
                fmt_ratio(r["ratios"]["graph_vs_njit"]),
                fmt_ratio(r["ratios"]["eager_vs_graph"]),
                fmt_ratio(r["ratios"]["graph_vs_jax"]),
                f"{mark(speed)}  {speed['target']}",
            ]
        )
        for label, s in r.get("other_baselines", {}).items():
            others.append(
                [
                    name,
                    label,
                    "ERROR" if "error" in s else fmt_time(s["median_s"]),
                    "-" if "error" in s else fmt_ratio(s["graph_vs_this"]),
                ]
            )
            if "error" in s:
                notes.append(f"{name} [{label}]: {s['error']}")
        fc, cl = r.get("first_call"), r.get("cached_load")
        if fc:
            jax = fc.get("jax", {})
            first.append(
                [
                    name,
                    fmt_time(fc["graph"]["first_call_s"]),
                    fmt_time(fc["graph"].get("second_call_s")),
                    fmt_time(fc["njit"]["first_call_s"]),
                    fmt_time(jax.get("first_call_s")),
                    fmt_time(fc["graph"]["one_off_s"]),
                    fmt_time(fc["njit"]["one_off_s"]),
                    fmt_ratio(r["ratios"].get("first_call_graph_vs_njit")),
                    mark(r["targets"][1]),
                    fmt_time(cl["load_s"]) + (" (recompiled)" if cl["recompiled"] else ""),
                    mark(r["targets"][2]),
                ]
            )
            start_up.append(
                [
                    name,
                    fmt_time(fc["graph"].get("first_call_with_start_up_s")),
                    fmt_time(cl.get("first_call_with_start_up_s")),
                    fmt_time(fc["njit"].get("first_call_with_start_up_s")),
                    fmt_time(jax.get("first_call_with_start_up_s")),
                ]
            )
        for key, message in r["errors"].items():
            notes.append(f"{name} [{key}]: {message}")
        for key, messages in r["warnings"].items():
            notes.extend(f"{name} [{key} warning]: {m}" for m in messages)
        if cl and cl.get("error") and "graph" not in r["errors"]:
            notes.append(f"{name} [cached load]: {cl['error']}")
    lines = [
        "Steady state, median time per call (interleaved rounds)",
        table(["workload", *VARIANTS, "graph/njit", "eager/graph", "graph/jax", "target"], steady),
    ]
    if any(r["warnings"].get("graph") for r in graph_rows.values()):
        lines.append("  * the graph variant emitted warnings (see the notes)")
    if others:
        lines += [
            "",
            "Other baselines (other allocation, math-library or algorithm "
            "choices), timed in the same rounds",
            table(["workload", "baseline", "time", "graph/this"], others),
        ]
    if first:
        lines += [
            "",
            "First call in a fresh process (imports and Numba/JAX start-up excluded)",
            table(
                [
                    "workload",
                    "graph 1st",
                    "graph 2nd",
                    "njit 1st",
                    "jax 1st",
                    "graph compile",
                    "njit compile",
                    "ratio",
                    bounds[0],
                    "cached load",
                    bounds[1],
                ],
                first,
            ),
            "  * graph 2nd: the second call, which waits for the compile where the first "
            "ran on the interpreter (a graph of array work the disk cache lacks)",
            "",
            "First call in a fresh process, process start-up included (interpreter, "
            "imports, Numba/JAX start-up; input creation excluded)",
            table(["workload", "graph 1st", "graph cached", "njit 1st", "jax 1st"], start_up),
        ]
    return lines, notes


def render_mode(mode: str, t: dict[str, Any]) -> list[str]:
    lines = [f"=== {mode} threads: {THREAD_RULES.get(mode, mode)}"]
    body, notes = graph_tables(t)
    if body:
        lines += ["", *body]
    for r in t["workloads"].values():
        if "table" in r:
            lines += ["", format_titled(r["table"])]
    background = t.get("background_cpu_cores")
    if background is not None and background > 0.1:
        notes.append(
            f"other processes kept {background:.2f} cores busy on average during "
            "this table; timings are noisier than on an idle machine"
        )
    if notes:
        lines += ["", "Errors and notes", *(f"  {n}" for n in notes)]
    return lines


def summary_lines(results: dict[str, Any]) -> list[str]:
    """A few sentences on each table, computed from the results."""
    lines = []
    for mode, t in results["tables"].items():
        rows = t["workloads"]
        said = []
        loops = [
            rows[n]["ratios"]["graph_vs_njit"]
            for n in LOOP_ROWS
            if rows.get(n, {}).get("ratios", {}).get("graph_vs_njit") is not None
        ]
        if loops:
            said.append(f"loop rows graph/njit {min(loops):.2f}-{max(loops):.2f}x")
        targets = [
            v for r in rows.values() for v in r.get("targets", ()) if v["passed"] is not None
        ]
        if targets:
            said.append(
                f"{sum(v['passed'] for v in targets)} of {len(targets)} targets of "
                "the workload rows met"
            )
        vec = rows.get("vectorized", {})
        if "kernels" in vec:
            ratios = [r["ratios"]["eager_vs_graph"] for r in vec["kernels"].values()]
            known = [r for r in ratios if r is not None]
            wrong = sum(bool(r["wrong"]) or "crashed" in r for r in vec["kernels"].values())
            said.append(
                f"vectorized: graph at least 0.95x eager on {sum(r >= 0.95 for r in known)} "
                f"of {len(ratios)} kernels, geometric mean eager/graph "
                f"{fmt_ratio(vec['geomean']['eager_vs_graph'])}, jax/graph "
                f"{fmt_ratio(vec['geomean']['jax_vs_graph'])}, njit/graph "
                f"{fmt_ratio(vec['geomean']['njit_vs_graph'])}"
                + (f"; {wrong} kernels wrong or crashed" if wrong else "")
            )
        if said:
            lines.append(f"  {mode} threads: " + "; ".join(said))
    return lines


def render(results: dict[str, Any]) -> str:
    """Everything ``bench/run.py`` measured, as plain-text tables."""
    lines = [
        *machine_lines(results),
        "",
        "Summary:",
        *summary_lines(results),
        "",
        "Rules for every table:",
        *(f"  * {rule}" for rule in results.get("fairness", ())),
    ]
    for mode, t in results["tables"].items():
        lines += ["", *render_mode(mode, t)]
    return "\n".join(lines)


def render_gpu(gpu: dict[str, Any]) -> str:
    """Two tables: on the device (device arrays in and out, against CuPy and jax.jit),
    and from the host (NumPy arrays in and out, against eager NumPy and the CPU
    backend); then the device's copy bandwidth and the targets."""
    device_rows, host_rows = [], []
    for row in gpu["rows"]:
        if "error" in row:
            failed = f"failed: {row['error']}"[:80]
            device_rows.append([row["name"], failed, *[""] * 6])
            host_rows.append([row["name"], failed, *[""] * 7])
            continue
        m, versus = row["median_s"], row["versus_cuda"]
        reference = next((k for k in m if k in ("tiled kernel", "one launch")), None)
        achieved = (
            f"{row['cuda_flops_per_s'] / 1e12:.1f} TFLOP/s"
            if row.get("cuda_flops_per_s")
            else f"{(row.get('cuda_bytes_per_s') or 0) / 1e9:.3g} GB/s"
        )
        device_rows.append(
            [
                row["name"],
                *(fmt_time(m.get(k)) for k in ("cuda", "cupy", "jax")),
                f"{reference} {fmt_time(m[reference])}" if reference else "-",
                *(fmt_ratio(versus.get(k)) for k in ("cupy", "jax")),
                achieved,
            ]
        )
        host_rows.append(
            [
                row["name"],
                *(
                    fmt_time(m.get(k))
                    for k in ("eager", "cpu", "cuda numpy io", "copy in", "copy out")
                ),
                *(fmt_ratio(versus.get(k)) for k in ("eager", "cpu")),
                "yes" if row.get("results_agree") else f"NO: {row.get('mismatch')}",
            ]
        )
    title = f"GPU: {gpu.get('gpu')}  {gpu.get('date')}  commit {commit_label(gpu)}"
    device_header = ["on the device", "cuda", "cupy", "jax", "reference", "cupy/cuda",
                     "jax/cuda", "cuda achieves"]  # fmt: skip
    host_header = ["from the host", "eager", "cpu backend", "cuda numpy io", "copy in",
                   "copy out", "eager/cuda", "cpu/cuda", "agree"]  # fmt: skip
    lines = [
        title,
        table(device_header, device_rows),
        "",
        table(host_header, host_rows),
        f"  device copy bandwidth (read + written): {gpu['copy_bytes_per_s'] / 1e9:.0f} GB/s",
    ]
    for target in gpu["targets"]:
        value = target["value"]
        share = "%" in target["goal"]
        shown = "-" if value is None else (f"{value:.0%}" if share else f"{value:.2f}x")
        lines.append(f"  target {target['goal']}: {shown} {'met' if target['met'] else 'MISSED'}")
    return "\n".join(lines)


def readme_block(results: dict[str, Any], gpu: dict[str, Any] | None) -> str:
    """The generated part of the README's Performance section (Markdown)."""
    parts = [
        BEGIN,
        "<!-- generated by bench/report.py from bench/results.json; do not edit by hand -->",
        "",
        "```",
        render(results),
        "```",
    ]
    if gpu is not None:
        parts += [
            "",
            "On a GPU (`bench/gpu.py`, `bench/results_gpu.json`):",
            "",
            "```",
            render_gpu(gpu),
            "```",
        ]
    parts.append(END)
    return "\n".join(parts)


def rewrite(readme: str, block: str) -> str:
    start, end = readme.find(BEGIN), readme.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"README has no {BEGIN} ... {END} markers to write between")
    return readme[:start] + block + readme[end + len(END) :]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=BENCH_DIR / "results.json")
    parser.add_argument("--gpu", type=Path, default=BENCH_DIR / "results_gpu.json")
    parser.add_argument("--readme", type=Path, default=BENCH_DIR.parent / "README.md")
    parser.add_argument(
        "--check", action="store_true", help="only say whether the README matches the results"
    )
    options = parser.parse_args()
    results = json.loads(options.results.read_text())
    gpu = json.loads(options.gpu.read_text()) if options.gpu.exists() else None
    old = options.readme.read_text()
    new = rewrite(old, readme_block(results, gpu))
    if options.check:
        if new != old:
            print(f"{options.readme} does not match {options.results}: run bench/report.py")
            sys.exit(1)
        print(f"{options.readme} matches {options.results}")
        return
    options.readme.write_text(new)
    print(f"rewrote the benchmark tables in {options.readme}")


if __name__ == "__main__":
    main()
