"""Benchmark the CUDA backend against CuPy, jax.jit on the GPU, the CPU backend and eager
NumPy (needs a GPU).

    python bench/gpu.py [--out PATH] [--dry-run]

Rows: fused and transcendental elementwise at 10^7 float64 elements, a full reduction,
row-wise softmax, a 4096x4096 float32 matmul, and a five-operation function on 1,000
elements (where launch and allocation costs dominate).  Every variant's result is
checked against eager (dtype, shape, values) before anything is timed; one that differs
is reported and not timed.

On the device, with device arrays in and out and a synchronisation after each call:
the CUDA backend ("cuda"), the same NumPy function on CuPy arrays ("cupy"; matmul is
cuBLAS), ``jax.jit`` of the same operations ("jax"), and per row a reference: for the
matmul the backend's own tiled kernel, for the small function one launch of a
hand-written numba-cuda kernel into a preallocated output.  On the host: eager NumPy,
the CPU backend, the CUDA backend on NumPy arrays (transfers included), and the
transfers alone.  Achieved bandwidth (bytes read and written once) and FLOP/s are
reported next to the device's measured copy bandwidth.  Every sample repeats its call
until it lasts about 20 ms; medians of interleaved rounds in one process; ratios are
what count.  Writes bench/results_gpu.json (with the commit and the machine).  Without
a GPU it says so and exits 0; ``--dry-run`` runs every row at tiny sizes on whatever
numba-cuda offers (the simulator too), to check the script, and writes nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from measure import (
    calls_per_sample,
    interleaved_rounds,
    machine_info,
    mismatch,
    ratio,
)
from numba import cuda
from report import render_gpu
from workloads import _jax
from workloads.fused import fused_arith
from workloads.softmax import row_softmax as softmax
from workloads.tanh_exp import tanh_exp

import nbgraph as ng

BENCH_DIR = Path(__file__).resolve().parent
ROUNDS = 7
MATMUL = "matmul 4096x4096 float32"
SMALL = "5 operations, 1e3 float64"
RTOL = {MATMUL: 1e-4}  # other rows: measure.mismatch's default for the dtype
# Targets: fused elementwise at this share of the copy bandwidth; matmul within this
# factor of cuBLAS; the small function within this factor of one numba-cuda launch.
BANDWIDTH_SHARE = 0.70
MATMUL_FACTOR = 1.25
LAUNCH_FACTOR = 2.0


def total(x):
    return np.sum(x * x)


def product(a, b):
    return a @ b


def five_ops(a, b):
    return np.maximum(a * b + 1.0, 0.0) * (a - b)


@dataclass
class Row:
    """One workload: its function, inputs, jax twin, and what one call moves/computes."""

    name: str
    fn: Callable
    args: list[np.ndarray]
    jax_fn: Callable | None
    bytes: int = 0  # bytes a call must read and write at least
    flops: int = 0
    extra: dict[str, Callable] = field(default_factory=dict)  # device-array references


def _jax_twins() -> dict[str, Callable]:
    jax, jnp, _ = _jax.load()
    from workloads import fused, softmax, tanh_exp

    return {
        "fused": fused.make_jax(),
        "tanh_exp": tanh_exp.make_jax(),
        "softmax": softmax.make_jax(),
        "total": jax.jit(lambda x: jnp.sum(x * x)),
        "product": jax.jit(lambda a, b: a @ b),
        "five_ops": jax.jit(lambda a, b: jnp.maximum(a * b + 1.0, 0.0) * (a - b)),
    }


def _inputs(n: int, k: int, seed: int = 0, dtype: Any = np.float64) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(n).astype(dtype) for _ in range(k)]


def _rows(dry_run: bool) -> list[Row]:
    try:
        twins = _jax_twins()
    except ImportError:
        twins = {}
    n = 10**3 if dry_run else 10**7
    side = 32 if dry_run else 4096
    rows, cols = (16, 8) if dry_run else (4096, 1024)
    mat = np.random.default_rng(1).standard_normal((side, side)).astype(np.float32)
    logits = np.random.default_rng(2).standard_normal((rows, cols))
    small = _inputs(1000, 2, seed=3)
    return [
        Row("fused elementwise, 1e7 float64", fused_arith, _inputs(n, 3), twins.get("fused"),
            bytes=4 * 8 * n),
        Row("tanh/exp elementwise, 1e7 float64", tanh_exp, _inputs(n, 3), twins.get("tanh_exp"),
            bytes=4 * 8 * n),
        Row("sum of squares, 1e7 float64", total, _inputs(n, 1), twins.get("total"),
            bytes=8 * n),
        Row("softmax rows, 4096x1024 float64", softmax, [logits], twins.get("softmax"),
            bytes=2 * logits.nbytes),
        Row(MATMUL, product, [mat, mat.T.copy()], twins.get("product"),
            bytes=3 * mat.nbytes, flops=2 * side**3, extra={"tiled kernel": _tiled_matmul}),
        Row(SMALL, five_ops, small, twins.get("five_ops"), bytes=3 * 8 * 1000,
            extra={"one launch": _one_launch()}),
    ]  # fmt: skip


def _tiled_matmul(a: Any, b: Any) -> Any:
    """The backend's own kernel, the one used where CuPy is absent."""
    from nbgraph.backend.numba_cuda import matmul

    return matmul.tiled(a, b, np.dtype(np.float32), (1, *a.shape), (1, *b.shape))


@cuda.jit
def _five_ops_kernel(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = max(a[i] * b[i] + 1.0, 0.0) * (a[i] - b[i])


def _one_launch() -> Callable:
    """A hand-written kernel for ``five_ops``, launched into a preallocated output."""
    outputs: dict[tuple, Any] = {}

    def launch(a: Any, b: Any) -> Any:
        out = outputs.get(a.shape)
        if out is None:
            out = outputs[a.shape] = cuda.device_array_like(a)
        _five_ops_kernel[(a.size + 255) // 256, 256](a, b, out)
        return out

    return launch


def _host(value: Any) -> Any:
    if hasattr(value, "copy_to_host"):
        return value.copy_to_host()
    if hasattr(value, "get"):  # CuPy
        return value.get()
    return np.asarray(value)  # jax


def copy_bandwidth(nbytes: int, rounds: int) -> float:
    """The device's copy bandwidth in bytes/s (read plus written), device to device."""
    source = cuda.device_array(nbytes // 8)
    target = cuda.device_array(nbytes // 8)

    def copy() -> None:
        target.copy_to_device(source)
        cuda.synchronize()

    inner, _ = calls_per_sample(copy, ())
    stats = interleaved_rounds({"copy": (copy, ())}, {"copy": inner}, rounds)
    return 2 * nbytes / stats["copy"]["median_s"]


def run_row(row: Row, rounds: int) -> dict[str, Any]:
    """Check every variant against eager, then time them in interleaved rounds."""
    cpu = ng.function(row.fn, backend="cpu")
    gpu = ng.function(row.fn, backend="cuda")
    device_args = [cuda.to_device(a) for a in row.args]
    expected = row.fn(*row.args)

    def synced(fn: Callable) -> Callable:
        def call(*args: Any) -> None:
            fn(*args)
            cuda.synchronize()

        return call

    device_side: dict[str, tuple[Callable, tuple]] = {"cuda": (gpu, tuple(device_args))}
    try:
        import cupy

        device_side["cupy"] = (row.fn, tuple(cupy.asarray(a) for a in device_args))
    except ImportError:
        pass
    if row.jax_fn is not None:
        import jax

        on_gpu = [d for d in jax.devices() if d.platform == "gpu"]
        if on_gpu:
            device_side["jax"] = (row.jax_fn, tuple(jax.device_put(a, on_gpu[0]) for a in row.args))
    for name, fn in row.extra.items():
        device_side[name] = (fn, tuple(device_args))

    rtol = RTOL.get(row.name)
    results = {k: _host(fn(*args)) for k, (fn, args) in device_side.items()}
    results["cpu"] = cpu(*row.args)
    results["cuda numpy io"] = _host(gpu(*row.args))
    differences = {k: mismatch(expected, v, rtol) for k, v in results.items()}
    differences = {k: v for k, v in differences.items() if v is not None}
    # nbgraph must give eager's values: a variant that does not is not timed.  Peers
    # (CuPy, JAX) are timed all the same, their differences recorded.
    mismatches = {k: v for k, v in differences.items() if k in ("cuda", "cpu", "cuda numpy io")}
    for variant, message in differences.items():
        timed = "not timed" if variant in mismatches else "timed all the same"
        print(f"!! {row.name}: {variant} differs from eager ({timed}): {message}", flush=True)

    def copy_in() -> None:
        for a in row.args:
            cuda.to_device(a)
        cuda.synchronize()

    variants = {k: (synced(fn), args) for k, (fn, args) in device_side.items()}
    variants |= {
        "eager": (row.fn, tuple(row.args)),
        "cpu": (cpu, tuple(row.args)),
        "cuda numpy io": (lambda *a: _host(gpu(*a)), tuple(row.args)),
        "copy in": (copy_in, ()),
    }
    result = gpu(*device_args)
    if hasattr(result, "copy_to_host"):  # scalars come back to the host
        variants["copy out"] = (result.copy_to_host, ())
    variants = {k: v for k, v in variants.items() if k not in mismatches}
    inner = {k: calls_per_sample(f, a)[0] for k, (f, a) in variants.items()}
    stats = interleaved_rounds(variants, inner, rounds)
    medians = {k: s["median_s"] for k, s in stats.items()}
    cuda_s = medians.get("cuda")
    return {
        "name": row.name,
        "results_agree": not mismatches,
        "mismatch": mismatches or None,
        "peer_differences": {k: v for k, v in differences.items() if k not in mismatches} or None,
        "median_s": medians,
        "timing": stats,
        "bytes": row.bytes,
        "flops": row.flops,
        "cuda_bytes_per_s": ratio(row.bytes, cuda_s),
        "cuda_flops_per_s": ratio(row.flops, cuda_s) if row.flops else None,
        "versus_cuda": {k: ratio(m, cuda_s) for k, m in medians.items() if k != "cuda"},
        "first_call_s": gpu.last_build,
    }


def _run_or_report(row: Row, rounds: int) -> dict[str, Any]:
    """``run_row``'s result, or the error that stopped it (the other rows still run)."""
    try:
        return run_row(row, rounds)
    except Exception as exc:  # a broken row must not lose the others' numbers
        print(f"!! {row.name}: {type(exc).__name__}: {exc}", flush=True)
        return {"name": row.name, "error": f"{type(exc).__name__}: {exc}"}


def targets(rows: list[dict[str, Any]], copy_bytes_per_s: float) -> list[dict[str, Any]]:
    """The issue's three measurable goals, each with its number and whether it is met."""
    by_name = {r["name"]: r for r in rows if "error" not in r}
    fused = by_name.get("fused elementwise, 1e7 float64", {})
    share = ratio(fused.get("cuda_bytes_per_s"), copy_bytes_per_s)
    cublas = by_name.get(MATMUL, {}).get("versus_cuda", {}).get("cupy")  # cuBLAS / ours
    launch = by_name.get(SMALL, {}).get("versus_cuda", {}).get("one launch")  # one / ours
    return [
        {
            "goal": f"fused elementwise at >= {BANDWIDTH_SHARE:.0%} of the copy bandwidth",
            "value": share,
            "met": share is not None and share >= BANDWIDTH_SHARE,
        },
        {
            "goal": f"matmul within {MATMUL_FACTOR}x of cuBLAS (CuPy)",
            "value": None if cublas is None else 1 / cublas,
            "met": cublas is not None and 1 / cublas <= MATMUL_FACTOR,
        },
        {
            "goal": f"5-operation call within {LAUNCH_FACTOR:.0f}x of one numba-cuda launch",
            "value": None if launch is None else 1 / launch,
            "met": launch is not None and 1 / launch <= LAUNCH_FACTOR,
        },
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results_gpu.json")
    parser.add_argument("--dry-run", action="store_true", help="tiny sizes, nothing written")
    options = parser.parse_args()
    from numba import config

    if not options.dry_run and (config.ENABLE_CUDASIM or not cuda.is_available()):
        print("bench/gpu.py: no NVIDIA GPU here (or the simulator is on); nothing to time")
        return
    device = cuda.get_current_device()
    name = getattr(device, "name", "numba-cuda simulator")
    gpu_name = name.decode() if isinstance(name, bytes) else name
    rounds = 1 if options.dry_run else ROUNDS
    copy_bytes_per_s = copy_bandwidth(8 * 10**3 if options.dry_run else 8 * 10**8, rounds)
    rows = [_run_or_report(row, rounds) for row in _rows(options.dry_run)]
    machine = machine_info()
    data = {
        "date": machine["date"],
        "gpu": gpu_name,
        "numpy": np.__version__,
        "git_commit": machine["git_commit"],
        "git_dirty": machine["git_dirty"],
        "machine": machine,
        "rounds": rounds,
        "copy_bytes_per_s": copy_bytes_per_s,
        "rows": rows,
        "targets": targets(rows, copy_bytes_per_s),
    }
    print(f"CPU: {machine['processor']}")
    print(render_gpu(data))
    if options.dry_run:
        return
    options.out.write_text(json.dumps(data, indent=1, default=str))
    print(f"wrote {options.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
