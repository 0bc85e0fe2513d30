"""Benchmark the CUDA backend against the CPU backend and eager NumPy (needs a GPU).

    python bench/gpu.py [--out PATH]

Rows: fused elementwise and transcendental elementwise at 10^7 float64 elements, a
full reduction, row-wise softmax and a 4096x4096 float32 matmul.  The CUDA backend is
timed on device arrays (kernel time: each call synchronises the device), and its
host-device transfers separately: copying the inputs in, the result out, and a whole
call on NumPy arrays.  Medians of interleaved rounds in one process; ratios are what
count.  Writes bench/results_gpu.json.  Without a GPU it says so and exits 0.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from workloads.fused import fused_arith
from workloads.softmax import row_softmax as softmax
from workloads.tanh_exp import tanh_exp

import nbgraph as ng

BENCH_DIR = Path(__file__).resolve().parent
ROUNDS = 7
TARGET = 10.0  # the GPU backend's kernel time at least 10x faster than the CPU backend


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
        ("matmul 4096x4096 float32", product, [mat, mat.T.copy()]),
    ]


def _median(fn: Callable[[], Any], rounds: int = ROUNDS) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_row(name: str, fn: Callable, args: list[np.ndarray]) -> dict[str, Any]:
    from numba import cuda

    cpu = ng.function(fn, backend="cpu")
    gpu = ng.function(fn, backend="cuda")
    device_args = [cuda.to_device(a) for a in args]
    expected = fn(*args)
    got_cpu = cpu(*args)
    got_gpu = gpu(*args)
    tolerance = 1e-3 if args[0].dtype == np.float32 else 1e-9
    agree = bool(np.allclose(np.asarray(got_gpu), expected, rtol=tolerance, atol=tolerance)
                 and np.allclose(np.asarray(got_cpu), expected, rtol=tolerance,
                                 atol=tolerance))

    def on_device() -> None:
        gpu(*device_args)
        cuda.synchronize()

    on_device()
    result = gpu(*device_args)
    on_device_result = hasattr(result, "copy_to_host")  # scalars come back to the host
    times: dict[str, list[float]] = {k: [] for k in
                                     ("eager", "cpu", "gpu_kernels", "gpu_numpy_io",
                                      "copy_in", "copy_out")}
    for _ in range(ROUNDS):  # interleaved, so drifting machine load hits all alike
        times["eager"].append(_median(lambda: fn(*args), 1))
        times["cpu"].append(_median(lambda: cpu(*args), 1))
        times["gpu_kernels"].append(_median(on_device, 1))
        times["gpu_numpy_io"].append(_median(lambda: gpu(*args), 1))

        def copy_in() -> None:
            for a in args:
                cuda.to_device(a)
            cuda.synchronize()

        times["copy_in"].append(_median(copy_in, 1))
        if on_device_result:
            times["copy_out"].append(_median(lambda: result.copy_to_host(), 1))
    medians = {k: statistics.median(v) for k, v in times.items() if v}
    return {
        "name": name,
        "results_agree": agree,
        "median_s": medians,
        "cpu_vs_gpu_kernels": medians["cpu"] / medians["gpu_kernels"],
        "eager_vs_gpu_kernels": medians["eager"] / medians["gpu_kernels"],
        "cpu_vs_gpu_numpy_io": medians["cpu"] / medians["gpu_numpy_io"],
        "first_call_s": gpu.last_build,
    }


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results_gpu.json")
    options = parser.parse_args()
    try:
        from numba import cuda

        available = cuda.is_available() and not cuda.simulator_available if hasattr(
            cuda, "simulator_available") else cuda.is_available()
    except ImportError:
        available = False
    from numba import config

    if not available or config.ENABLE_CUDASIM:
        print("bench/gpu.py: no NVIDIA GPU here (or the simulator is on); nothing to time")
        return
    device = cuda.get_current_device()
    gpu_name = device.name.decode() if isinstance(device.name, bytes) else device.name
    rows = [run_row(*row) for row in _rows()]
    print(f"GPU: {gpu_name}; CPU: {platform.processor() or platform.machine()}")
    header = ("workload", "eager", "cpu backend", "cuda kernels", "cuda numpy io",
              "copy in", "copy out", "cpu/cuda", "eager/cuda", "agree")
    print(" | ".join(header))
    for row in rows:
        m = row["median_s"]
        print(" | ".join([
            row["name"], _ms(m["eager"]), _ms(m["cpu"]), _ms(m["gpu_kernels"]),
            _ms(m["gpu_numpy_io"]), _ms(m["copy_in"]),
            _ms(m["copy_out"]) if "copy_out" in m else "-",
            f"{row['cpu_vs_gpu_kernels']:.1f}x", f"{row['eager_vs_gpu_kernels']:.1f}x",
            str(row["results_agree"])]))
    for row in rows:
        if row["name"].startswith(("fused", "matmul")):
            met = row["cpu_vs_gpu_kernels"] >= TARGET
            print(f"target ({row['name']}): cuda kernels >= {TARGET:.0f}x faster than the "
                  f"cpu backend: {'met' if met else 'NOT met'}")
    options.out.write_text(json.dumps({
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "gpu": gpu_name, "numpy": np.__version__, "rows": rows}, indent=1, default=str))
    print(f"wrote {options.out}")


if __name__ == "__main__":
    main()
