"""Benchmark the CUDA backend against the CPU backend and eager NumPy (needs a GPU).

    python bench/gpu.py [--out PATH]

Rows: fused elementwise and transcendental elementwise at 10^7 float64 elements, a
full reduction, row-wise softmax and a 4096x4096 float32 matmul.  The CPU and CUDA
backends' results are checked against eager (dtype, shape, values) before anything is
timed; a backend that differs is reported and not timed.  The CUDA backend is timed on
device arrays (kernel time: each call synchronises the device), and its host-device
transfers separately: copying the inputs in, the result out, and a whole call on NumPy
arrays.  Every sample repeats its call until it lasts about 20 ms; medians of
interleaved rounds in one process; ratios are what count.  Writes
bench/results_gpu.json (with the commit and the machine).  Without a GPU it says so and
exits 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
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
from report import render_gpu
from workloads.fused import fused_arith
from workloads.softmax import row_softmax as softmax
from workloads.tanh_exp import tanh_exp

import nbgraph as ng

BENCH_DIR = Path(__file__).resolve().parent
ROUNDS = 7
TARGET = 10.0  # the GPU backend's kernel time at least 10x faster than the CPU backend
MATMUL = "matmul 4096x4096 float32"
RTOL = {MATMUL: 1e-4}  # other rows: measure.mismatch's default for the dtype


def total(x):
    return np.sum(x * x)


def product(a, b):
    return a @ b


def _inputs(n: int, k: int, seed: int = 0, dtype: Any = np.float64) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(n).astype(dtype) for _ in range(k)]


def _rows() -> list[tuple[str, Callable, list[np.ndarray]]]:
    n = 10**7
    mat = np.random.default_rng(1).standard_normal((4096, 4096)).astype(np.float32)
    logits = np.random.default_rng(2).standard_normal((4096, 1024))
    return [
        ("fused elementwise, 1e7 float64", fused_arith, _inputs(n, 3)),
        ("tanh/exp elementwise, 1e7 float64", tanh_exp, _inputs(n, 3)),
        ("sum of squares, 1e7 float64", total, _inputs(n, 1)),
        ("softmax rows, 4096x1024 float64", softmax, [logits]),
        (MATMUL, product, [mat, mat.T.copy()]),
    ]


def _host(value: Any) -> Any:
    return value.copy_to_host() if hasattr(value, "copy_to_host") else value


def run_row(name: str, fn: Callable, args: list[np.ndarray]) -> dict[str, Any]:
    """Check the CPU and CUDA backends against eager, then time repeated calls of every
    variant in interleaved rounds.  A backend whose result differs is not timed."""
    from numba import cuda

    cpu = ng.function(fn, backend="cpu")
    gpu = ng.function(fn, backend="cuda")
    device_args = [cuda.to_device(a) for a in args]
    expected = fn(*args)
    # float32 matmuls sum 4096 products in another order on the GPU: NumPy's accuracy
    # for that sum, not float32's rounding of one operation.
    rtol = RTOL.get(name)
    mismatches = {
        "cpu": mismatch(expected, cpu(*args), rtol),
        "gpu_numpy_io": mismatch(expected, _host(gpu(*args)), rtol),
        "gpu_kernels": mismatch(expected, _host(gpu(*device_args)), rtol),
    }
    mismatches = {k: v for k, v in mismatches.items() if v is not None}
    for variant, message in mismatches.items():
        print(
            f"!! {name}: {variant} DIFFERS FROM EAGER, not timed: {message}",
            file=sys.stderr,
            flush=True,
        )

    def on_device() -> None:
        gpu(*device_args)
        cuda.synchronize()

    def copy_in() -> None:
        for a in args:
            cuda.to_device(a)
        cuda.synchronize()

    result = gpu(*device_args)
    variants: dict[str, tuple[Callable, tuple]] = {
        "eager": (fn, tuple(args)),
        "cpu": (cpu, tuple(args)),
        "gpu_kernels": (on_device, ()),
        "gpu_numpy_io": (lambda *a: _host(gpu(*a)), tuple(args)),
        "copy_in": (copy_in, ()),
    }
    if hasattr(result, "copy_to_host"):  # scalars come back to the host
        variants["copy_out"] = (result.copy_to_host, ())
    variants = {k: v for k, v in variants.items() if k not in mismatches}
    inner = {k: calls_per_sample(f, a)[0] for k, (f, a) in variants.items()}
    stats = interleaved_rounds(variants, inner, ROUNDS)
    medians = {k: s["median_s"] for k, s in stats.items()}
    return {
        "name": name,
        "results_agree": not mismatches,
        "mismatch": mismatches or None,
        "median_s": medians,
        "timing": stats,
        "cpu_vs_gpu_kernels": ratio(medians.get("cpu"), medians.get("gpu_kernels")),
        "eager_vs_gpu_kernels": ratio(medians.get("eager"), medians.get("gpu_kernels")),
        "cpu_vs_gpu_numpy_io": ratio(medians.get("cpu"), medians.get("gpu_numpy_io")),
        "first_call_s": gpu.last_build,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results_gpu.json")
    options = parser.parse_args()
    try:
        from numba import cuda

        available = (
            cuda.is_available() and not cuda.simulator_available
            if hasattr(cuda, "simulator_available")
            else cuda.is_available()
        )
    except ImportError:
        available = False
    from numba import config

    if not available or config.ENABLE_CUDASIM:
        print("bench/gpu.py: no NVIDIA GPU here (or the simulator is on); nothing to time")
        return
    device = cuda.get_current_device()
    gpu_name = device.name.decode() if isinstance(device.name, bytes) else device.name
    rows = [run_row(*row) for row in _rows()]
    for row in rows:
        if row["name"].startswith(("fused", "matmul")):
            met = (row["cpu_vs_gpu_kernels"] or 0.0) >= TARGET
            print(
                f"target ({row['name']}): cuda kernels >= {TARGET:.0f}x faster than the "
                f"cpu backend: {'met' if met else 'NOT met'}"
            )
    machine = machine_info()
    data = {
        "date": machine["date"],
        "gpu": gpu_name,
        "numpy": np.__version__,
        "git_commit": machine["git_commit"],
        "git_dirty": machine["git_dirty"],
        "machine": machine,
        "rounds": ROUNDS,
        "rows": rows,
    }
    print(f"CPU: {machine['processor']}")
    print(render_gpu(data))
    options.out.write_text(json.dumps(data, indent=1, default=str))
    print(f"wrote {options.out}")


if __name__ == "__main__":
    main()
