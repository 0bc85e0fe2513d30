"""What every benchmark table shares: the result check, interleaved timing, thread
settings, the machine description and plain-text tables.

Imported by ``bench/run.py``, ``bench/vectorized.py``, ``bench/gpu.py`` and the tests of
the benchmark kernels; it imports neither nbgraph nor JAX.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent

# ----------------------------------------------------------------------- thread settings

# One thread for every library: Numba's pool, OpenBLAS/OpenMP/MKL, and XLA's Eigen pool
# and intra-op parallelism.  Read by the libraries when they load, so they are set in
# the environment of a fresh process, never changed in a running one.
ONE_THREAD: dict[str, str] = {
    "NUMBA_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
}
THREAD_MODES = ("pinned", "default")
THREAD_RULES = {
    "pinned": "every variant on 1 thread ("
    + ", ".join(
        f"{k}={v}" if k != "XLA_FLAGS" else f"XLA_FLAGS='{v}'" for k, v in ONE_THREAD.items()
    )
    + ")",
    "default": "each library at its own default thread count (the variables above unset)",
}


MODE_VARIABLE = "NBGRAPH_BENCH_THREADS"


def thread_env(mode: str, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a child process that runs a table with the given thread mode."""
    env = dict(os.environ if base is None else base)
    for name in ONE_THREAD:
        env.pop(name, None)
    if mode == "pinned":
        env.update(ONE_THREAD)
    elif mode != "default":
        raise ValueError(f"thread mode must be one of {THREAD_MODES}, not {mode!r}")
    env[MODE_VARIABLE] = mode
    return env


def thread_mode() -> str:
    """The thread mode this process was started with (by ``thread_env``), if any."""
    return os.environ.get(MODE_VARIABLE, "unset")


def threads_in_effect() -> dict[str, Any]:
    """What this process was started with, and how many threads Numba uses."""
    info: dict[str, Any] = {name: os.environ.get(name) for name in ONE_THREAD}
    info["mode"] = thread_mode()
    try:
        import numba

        info["numba_threads"] = numba.config.NUMBA_NUM_THREADS
    except ImportError:  # pragma: no cover - numba is a dependency
        pass
    return info


# ----------------------------------------------------------------------- result check

RTOL = {
    np.dtype(np.float64): 1e-9,
    np.dtype(np.complex128): 1e-9,
    np.dtype(np.float32): 2e-5,
    np.dtype(np.complex64): 2e-5,
    np.dtype(np.float16): 2e-3,
}


def mismatch(reference: Any, value: Any, rtol: float | None = None) -> str | None:
    """None when ``value`` is ``reference``'s result: the same structure (tuples and lists
    element by element), the same dtype and shape, equal integers and booleans, and
    floats within ``rtol`` (by default 1e-9 for float64, 2e-5 for float32) of the
    reference, elementwise, with an absolute floor of ``rtol`` times the reference's
    largest magnitude (so that values near zero do not need relative agreement).
    Otherwise a one-line description of the first difference.
    """
    if isinstance(reference, (tuple, list)):
        if not isinstance(value, (tuple, list)) or len(value) != len(reference):
            return (
                f"expected a {type(reference).__name__} of {len(reference)}, got "
                f"{type(value).__name__}"
                + (f" of {len(value)}" if isinstance(value, (tuple, list)) else "")
            )
        for i, (r, v) in enumerate(zip(reference, value)):
            found = mismatch(r, v, rtol)
            if found is not None:
                return f"element {i}: {found}"
        return None
    ref = np.asarray(reference)
    got = np.asarray(value)
    if got.dtype != ref.dtype:
        return f"dtype {got.dtype}, expected {ref.dtype}"
    if got.shape != ref.shape:
        return f"shape {got.shape}, expected {ref.shape}"
    if ref.dtype.kind not in "fc":
        if np.array_equal(got, ref):
            return None
        bad = int(np.count_nonzero(got != ref))
        return f"{bad} of {ref.size} values differ (exact comparison)"
    tol = RTOL.get(ref.dtype, 1e-9) if rtol is None else rtol
    finite = np.isfinite(ref)
    scale = float(np.max(np.abs(ref[finite]), initial=0.0))
    close = np.isclose(got, ref, rtol=tol, atol=tol * scale, equal_nan=True)
    if bool(np.all(close)):
        return None
    with np.errstate(invalid="ignore"):
        err = np.abs(got.astype(np.complex128 if ref.dtype.kind == "c" else np.float64) - ref)
    worst = float(np.nanmax(np.where(close, 0.0, err))) if err.size else 0.0
    return (
        f"{int(np.count_nonzero(~close))} of {ref.size} values differ beyond rtol "
        f"{tol:g}; largest difference {worst:.3g} (reference magnitude {scale:.3g})"
    )


# ----------------------------------------------------------------------- timing

MIN_SAMPLE_S = 0.02  # a sample loops over calls until it lasts about this long


def timed(fn: Callable[..., Any], args: tuple, inner: int) -> float:
    """Seconds per call, from one loop of ``inner`` calls."""
    loop = range(inner)
    t0 = time.perf_counter()
    for _ in loop:
        fn(*args)
    return (time.perf_counter() - t0) / inner


def calls_per_sample(fn: Callable[..., Any], args: tuple) -> tuple[int, float]:
    """(calls per sample, estimated seconds per call) after a warm-up call."""
    estimate = min(timed(fn, args, 1) for _ in range(2))  # noise only ever adds time
    inner = max(1, round(MIN_SAMPLE_S / max(estimate, 1e-8)))
    if inner > 1:
        estimate = timed(fn, args, inner)
        inner = max(1, round(MIN_SAMPLE_S / max(estimate, 1e-8)))
    return inner, estimate


def summary(times: list[float], inner: int) -> dict[str, Any]:
    q25, q75 = np.percentile(times, [25, 75])
    return {
        "median_s": statistics.median(times),
        "iqr_s": float(q75 - q25),
        "min_s": min(times),
        "max_s": max(times),
        "samples": len(times),
        "calls_per_sample": inner,
        "times_s": list(times),
    }


def paired_ratio(stats: dict[str, dict[str, Any]], a: str, b: str) -> float | None:
    """The median over rounds of a's time over b's time in the same round: with the
    variants sampled back to back, a drift in the machine's speed cancels out."""
    if a not in stats or b not in stats:
        return None
    pairs = [x / y for x, y in zip(stats[a]["times_s"], stats[b]["times_s"]) if y > 0]
    return statistics.median(pairs) if pairs else None


def interleaved_rounds(
    callables: dict[str, tuple[Callable, tuple]], inner: dict[str, int], rounds: int
) -> dict[str, dict[str, Any]]:
    """Round-robin timing: every round takes one sample of every variant, so a drift in
    the machine's speed hits all of them alike."""
    times: dict[str, list[float]] = {v: [] for v in callables}
    for _ in range(rounds):
        for v, (fn, args) in callables.items():
            times[v].append(timed(fn, args, inner[v]))
    return {v: summary(ts, inner[v]) for v, ts in times.items()}


def geomean(values: list[float]) -> float | None:
    values = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0:
        return None
    return a / b


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


# ----------------------------------------------------------------------- machine


def _git(*args: str) -> str | None:
    try:
        proc = subprocess.run(
            ["git", *args], cwd=BENCH_DIR.parent, text=True, capture_output=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.rstrip() if proc.returncode == 0 else None


def machine_info() -> dict[str, Any]:
    """The commit measured and the machine it ran on."""
    import numba

    info: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "numba": numba.__version__,
        "jax": None,
        "jaxlib": None,
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
        import jax
        import jaxlib

        info["jax"], info["jaxlib"] = jax.__version__, getattr(jaxlib, "__version__", None)
    except ImportError:
        pass
    status = _git("status", "--porcelain", "--untracked-files=no")
    nbgraph_status = _git("status", "--porcelain", "--", "nbgraph")
    info["git_commit"] = _git("rev-parse", "HEAD")
    info["git_dirty"] = None if status is None else bool(status)
    info["nbgraph_uncommitted_changes"] = None if nbgraph_status is None else bool(nbgraph_status)
    # The measured code is the commit plus these files as they were in the working tree.
    info["nbgraph_uncommitted_files"] = [line[3:] for line in (nbgraph_status or "").splitlines()]
    info["environment"] = {
        name: os.environ.get(name)
        for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "NUMBA_CACHE_DIR", *ONE_THREAD)
    }
    return info


# ----------------------------------------------------------------------- formatting


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


def short_error(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()
    rule = "  ".join("-" * w for w in widths)
    body = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join([line, rule, *body])


def format_titled(t: dict[str, Any]) -> str:
    """A table with its title, rules (bullets above it) and notes (lines below it)."""
    lines = [
        t["title"],
        *(f"  * {rule}" for rule in t.get("rules", ())),
        table(t["headers"], t["rows"]),
    ]
    lines += [f"  {n}" for n in t.get("notes", ())]
    return "\n".join(lines)


# ----------------------------------------------------------------------- crash-safe children


class Progress:
    """What a measuring child process has finished, written after every item, so that a
    crash (a compiler abort takes the whole process down) loses only the item it was on."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.state: dict[str, Any] = {"done": {}, "current": None, "extra": {}}
        self._write()

    def start(self, name: str) -> None:
        self.state["current"] = name
        self._write()

    def finish(self, name: str, result: Any) -> None:
        self.state["done"][name] = result
        self.state["current"] = None
        self._write()

    def extra(self, **values: Any) -> None:
        self.state["extra"].update(values)
        self._write()

    def _write(self) -> None:
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps(self.state, default=str))
        partial.replace(self.path)


def run_resumable(
    command: Callable[[list[str], Path], list[str]],
    names: list[str],
    env: dict[str, str],
    timeout_s: float,
) -> tuple[dict[str, Any], dict[str, str], dict[str, Any]]:
    """Runs ``command(remaining, progress_path)`` until every name is measured: a child
    that dies is started again on the names after the one it died on.  Returns (results
    by name, why each crashed name has no result, the last child's extra values)."""
    done: dict[str, Any] = {}
    crashed: dict[str, str] = {}
    extra: dict[str, Any] = {}
    remaining = list(names)
    with tempfile.TemporaryDirectory(prefix="nbgraph-bench-progress-") as folder:
        path = Path(folder) / "progress.json"
        while remaining:
            path.unlink(missing_ok=True)
            tail: list[str] = []
            proc = subprocess.Popen(
                command(remaining, path), env=env, cwd=BENCH_DIR, stderr=subprocess.PIPE, text=True
            )
            killed = threading.Event()

            def kill(proc: subprocess.Popen = proc, killed: threading.Event = killed) -> None:
                killed.set()
                proc.kill()

            watchdog = threading.Timer(timeout_s, kill)
            watchdog.start()
            try:
                assert proc.stderr is not None
                for line in proc.stderr:  # shown as it comes, the end kept for the report
                    sys.stderr.write(line)
                    tail = [*tail[-4:], line.strip()]
                returncode = proc.wait()
            finally:
                watchdog.cancel()
            if killed.is_set():
                tail.append(f"killed after {timeout_s:.0f} s")
            state = (
                json.loads(path.read_text())
                if path.exists()
                else {"done": {}, "current": None, "extra": {}}
            )
            done.update(state["done"])
            extra = state["extra"] or extra
            remaining = [n for n in remaining if n not in state["done"]]
            if returncode == 0 or not remaining:
                break
            current = state["current"] or remaining[0]
            last = next((t for t in reversed(tail) if t), "")
            crashed[current] = (
                f"the measuring process died (exit status {returncode}) on this item: {last}"
            )[:500]
            print(
                f"!! {current}: {crashed[current]}; going on with the rest",
                file=sys.stderr,
                flush=True,
            )
            remaining.remove(current)
    return done, crashed, extra
