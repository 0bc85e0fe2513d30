"""One training step of a small MLP with reverse-mode gradients: ``nbgraph.value_and_grad``
run node by node (the interpret backend), the whole step as one compiled graph (the CPU
backend), ``jax.value_and_grad`` under ``jax.jit``, and a hand-written NumPy backward pass.

The model: 64 inputs, a tanh layer of 128, 10 classes, softmax cross-entropy on a batch
of 256, float64 throughout; a step is ``loss, grads = value_and_grad(loss_fn)(params, x,
y)`` followed by ``params - lr * grads``. All variants start from the same parameters;
their losses, gradients and 20-step trajectories are compared (largest absolute and
relative difference against the interpret backend), then they are timed in interleaved
rounds (median per step), in a process of their own with one thread per library.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import nbgraph as ng

from . import _jax

NAME = "training_step"
DESCRIPTION = (
    "MLP training step (value_and_grad + SGD update), 64-128-10, batch 256, "
    "float64, softmax cross-entropy"
)
INPUTS, HIDDEN, CLASSES, BATCH = 64, 128, 10, 256
LR = 0.1
ROUNDS = 15
MIN_SAMPLE_S = 0.02  # a sample loops over steps until it lasts about this long
TRAJECTORY_STEPS = 20
CHILD_TIMEOUT_S = 600
BENCH_DIR = Path(__file__).resolve().parents[1]
ONE_THREAD = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
}


def loss_fn(params, x, y):
    w1, b1, w2, b2 = params
    h = np.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    z = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(y * log_probs, axis=1))


def train_step(params, x, y):
    loss, grads = ng.value_and_grad(loss_fn)(params, x, y)
    w1, b1, w2, b2 = params
    g1, gb1, g2, gb2 = grads
    return (w1 - LR * g1, b1 - LR * gb1, w2 - LR * g2, b2 - LR * gb2), loss


def numpy_value_and_grad(params, x, y):
    """The same loss and its gradient, the backward pass written out by hand."""
    w1, b1, w2, b2 = params
    h = np.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    z = logits - np.max(logits, axis=1, keepdims=True)
    e = np.exp(z)
    total = np.sum(e, axis=1, keepdims=True)
    loss = -np.mean(np.sum(y * (z - np.log(total)), axis=1))
    d_logits = (e / total * np.sum(y, axis=1, keepdims=True) - y) / x.shape[0]
    d_h = (d_logits @ w2.T) * (1.0 - h * h)
    return loss, (x.T @ d_h, d_h.sum(axis=0), h.T @ d_logits, d_logits.sum(axis=0))


def numpy_step(params, x, y):
    loss, grads = numpy_value_and_grad(params, x, y)
    return tuple(p - LR * g for p, g in zip(params, grads)), loss


def make_jax() -> tuple[Callable, Callable]:
    """(jitted value_and_grad of the loss, jitted training step)."""
    jax, jnp, _ = _jax.load()

    def loss_jax(params, x, y):
        w1, b1, w2, b2 = params
        h = jnp.tanh(x @ w1 + b1)
        logits = h @ w2 + b2
        z = logits - jnp.max(logits, axis=1, keepdims=True)
        log_probs = z - jnp.log(jnp.sum(jnp.exp(z), axis=1, keepdims=True))
        return -jnp.mean(jnp.sum(y * log_probs, axis=1))

    value_and_grad = jax.jit(jax.value_and_grad(loss_jax))

    @jax.jit
    def step(params, x, y):
        loss, grads = jax.value_and_grad(loss_jax)(params, x, y)
        return tuple(p - LR * g for p, g in zip(params, grads)), loss

    def blocking(fn: Callable) -> Callable:
        return lambda *args: jax.block_until_ready(fn(*args))

    return blocking(value_and_grad), blocking(step)


def make_inputs(seed: int = 0) -> tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    params = (
        rng.normal(0.0, 1.0 / np.sqrt(INPUTS), (INPUTS, HIDDEN)),
        np.zeros(HIDDEN),
        rng.normal(0.0, 1.0 / np.sqrt(HIDDEN), (HIDDEN, CLASSES)),
        np.zeros(CLASSES),
    )
    x = rng.standard_normal((BATCH, INPUTS))
    labels = rng.integers(0, CLASSES, BATCH)
    return params, x, np.eye(CLASSES)[labels]


# --------------------------------------------------------------------------- measuring


def _leaves(value: Any) -> list[np.ndarray]:
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [np.asarray(value, dtype=np.float64)]


def difference(got: Any, reference: Any) -> dict[str, float]:
    """Largest absolute and relative (to the largest reference magnitude per leaf)
    difference over all leaves of two equally structured results."""
    abs_diff = rel_diff = 0.0
    for g, r in zip(_leaves(got), _leaves(reference), strict=True):
        d = float(np.max(np.abs(g - r), initial=0.0))
        abs_diff = max(abs_diff, d)
        rel_diff = max(rel_diff, d / max(float(np.max(np.abs(r), initial=0.0)), 1e-300))
    return {"max_abs_diff": abs_diff, "max_rel_diff": rel_diff}


def _first_call(fn: Callable, args: tuple) -> tuple[Any, float]:
    start = time.perf_counter()
    value = fn(*args)
    return value, time.perf_counter() - start


def _trajectory(step: Callable, params: tuple, x: np.ndarray, y: np.ndarray) -> list[Any]:
    losses = []
    for _ in range(TRAJECTORY_STEPS):
        params, loss = step(params, x, y)
        losses.append(float(loss))
    return [losses, [np.asarray(p) for p in params]]


def _timed(fn: Callable, args: tuple, inner: int) -> float:
    start = time.perf_counter()
    for _ in range(inner):
        fn(*args)
    return (time.perf_counter() - start) / inner


def interleaved(steps: dict[str, tuple[Callable, tuple]], rounds: int) -> dict[str, Any]:
    """Median seconds per step, every variant sampled once per round."""
    inner = {}
    for name, (fn, args) in steps.items():
        fn(*args)  # warm-up
        estimate = min(_timed(fn, args, 1) for _ in range(5))  # noise only adds time
        inner[name] = max(1, round(MIN_SAMPLE_S / max(estimate, 1e-8)))
    times: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(rounds):
        for name, (fn, args) in steps.items():
            times[name].append(_timed(fn, args, inner[name]))
    stats = {}
    for name, ts in times.items():
        q25, q75 = np.percentile(ts, [25, 75])
        stats[name] = {
            "median_s": statistics.median(ts),
            "iqr_s": float(q75 - q25),
            "min_s": min(ts),
            "max_s": max(ts),
            "samples": len(ts),
            "calls_per_sample": inner[name],
        }
    return stats


def measure(rounds: int = ROUNDS) -> dict[str, Any]:
    """Agreement, first calls and steady-state time per step of every variant."""
    params, x, y = make_inputs()
    args = (params, x, y)
    errors: dict[str, str] = {}
    warned: list[str] = []
    cpu_step = ng.function(train_step, backend="cpu")
    value_and_grads: dict[str, Callable] = {
        "interpret": ng.value_and_grad(loss_fn),
        "cpu": ng.value_and_grad(ng.function(loss_fn, backend="cpu")),
        "numpy": numpy_value_and_grad,
    }
    steps: dict[str, Callable] = {"interpret": train_step, "cpu": cpu_step, "numpy": numpy_step}
    try:
        value_and_grads["jax"], steps["jax"] = make_jax()
    except Exception as exc:  # JAX is optional
        errors["jax"] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"

    first_call: dict[str, float] = {}
    results: dict[str, Any] = {}
    trajectories: dict[str, Any] = {}
    # A fresh compile cache, so that the CPU step's first call is a trace and a compile.
    saved_cache = os.environ.get("NBGRAPH_CACHE_DIR")
    with (
        tempfile.TemporaryDirectory(prefix="nbgraph-bench-train-") as cache,
        warnings.catch_warnings(record=True) as caught,
    ):
        warnings.simplefilter("always")
        os.environ["NBGRAPH_CACHE_DIR"] = cache
        try:
            for name in list(steps):
                try:
                    results[name], first_call[name] = _first_call(value_and_grads[name], args)
                    _, first_call[f"{name}_step"] = _first_call(steps[name], args)
                    trajectories[name] = _trajectory(steps[name], params, x, y)
                except Exception as exc:
                    errors[name] = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"[:300]
                    del steps[name]
        finally:
            if saved_cache is None:
                os.environ.pop("NBGRAPH_CACHE_DIR", None)
            else:
                os.environ["NBGRAPH_CACHE_DIR"] = saved_cache
        warned = sorted(
            {f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught}
        )

    reference = results.get("interpret")
    agreement = {}
    for name, value in results.items():
        if reference is None or name == "interpret":
            continue
        agreement[name] = {
            "loss": difference(value[0], reference[0]),
            "grads": difference(value[1], reference[1]),
            f"after_{TRAJECTORY_STEPS}_steps": difference(
                trajectories[name], trajectories["interpret"]
            ),
        }

    # JAX's inputs go to the device once, outside the timing, as for every JAX variant.
    timed_args = {name: args for name in steps}
    if "jax" in steps:
        jax = _jax.load()[0]
        timed_args["jax"] = jax.block_until_ready(jax.device_put(args))
    timing = interleaved({name: (fn, timed_args[name]) for name, fn in steps.items()}, rounds)
    median = {name: s["median_s"] for name, s in timing.items()}
    base = median.get("interpret")
    for name, stats in timing.items():
        stats["first_call_s"] = first_call.get(f"{name}_step")
        stats["speedup_vs_interpret"] = base / stats["median_s"] if base else None
    graph = cpu_step.graph(*args) if "cpu" in steps else None
    result: dict[str, Any] = {
        "description": DESCRIPTION,
        "model": {
            "inputs": INPUTS,
            "hidden": HIDDEN,
            "classes": CLASSES,
            "batch": BATCH,
            "dtype": "float64",
            "lr": LR,
        },
        "variants": timing,
        "first_call_value_and_grad_s": {
            k: v for k, v in first_call.items() if not k.endswith("_step")
        },
        "agreement_vs_interpret": agreement,
        "ratios": {
            "interpret_vs_cpu": _ratio(median.get("interpret"), median.get("cpu")),
            "cpu_vs_jax": _ratio(median.get("cpu"), median.get("jax")),
            "numpy_vs_cpu": _ratio(median.get("numpy"), median.get("cpu")),
        },
        "cpu_step_graph": None
        if graph is None
        else {
            "trace_count": cpu_step.trace_count,
            "nodes": len(graph.all_nodes()),
            "python_nodes": len(graph.python_nodes),
        },
        "errors": errors,
        "warnings": warned,
        "rounds": rounds,
    }
    return result


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else a / b


LABELS = {
    "interpret": "nbgraph value_and_grad, interpret backend",
    "cpu": "nbgraph, whole step one graph (cpu)",
    "jax": "jax.value_and_grad under jax.jit",
    "numpy": "NumPy, backward pass by hand",
}


def table(result: dict[str, Any]) -> dict[str, Any]:
    """The table ``bench/run.py`` prints for this row."""
    rows = []
    for name, stats in result["variants"].items():
        agree = result["agreement_vs_interpret"].get(name)
        first = stats.get("first_call_s")
        rows.append(
            [
                LABELS[name],
                _fmt_time(stats["median_s"]),
                f"{stats['speedup_vs_interpret']:.2f}x",
                "-" if first is None else _fmt_time(first),
                "reference" if agree is None else f"{agree['loss']['max_rel_diff']:.1e}",
                "reference" if agree is None else f"{agree['grads']['max_rel_diff']:.1e}",
            ]
        )
    for name, message in result["errors"].items():
        rows.append([LABELS[name], "ERROR", message[:60], "", "", ""])
    return {
        "title": (
            f"Training step ({INPUTS}-{HIDDEN}-{CLASSES} MLP, batch {BATCH}, float64), "
            f"median per step of {result['rounds']} interleaved rounds"
        ),
        "headers": [
            "variant",
            "per step",
            "vs interpret",
            "first step",
            "loss rel diff",
            "grads rel diff",
        ],
        "rows": rows,
    }


def _fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.3f} s"


def bench() -> dict[str, Any]:
    """The row's measurements, taken in a fresh process with one thread per library, and
    the table to print.

    On a small shared machine two BLAS threads made these millisecond steps vary tenfold
    from run to run (the threads wait for each other while other processes hold a core);
    at this size one thread is also the faster setting. Every variant gets one.
    """
    env = {**os.environ, **ONE_THREAD}
    with tempfile.TemporaryDirectory(prefix="nbgraph-bench-train-") as folder:
        out = Path(folder) / "result.json"
        code = (
            "import json, sys; from workloads import training_step as t; "
            "json.dump(t.measure(), open(sys.argv[1], 'w'))"
        )
        proc = subprocess.run(
            [sys.executable, "-c", code, str(out)],
            env=env,
            text=True,
            capture_output=True,
            cwd=BENCH_DIR,
            timeout=CHILD_TIMEOUT_S,
        )
        if proc.returncode != 0 or not out.exists():
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [""]
            result = {
                "description": DESCRIPTION,
                "variants": {},
                "rounds": ROUNDS,
                "agreement_vs_interpret": {},
                "errors": {"interpret": f"the measuring process failed: {tail[0]}"},
            }
        else:
            result = json.loads(out.read_text())
    result["threads"] = ONE_THREAD
    result["table"] = table(result)
    return result
