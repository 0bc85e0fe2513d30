"""The benchmark workloads.

Each workload module defines ``eager`` (plain Python/NumPy; the graph variant is
``nbgraph.function(eager)``), ``njit`` (a hand-written ``@numba.njit`` of the same
algorithm, with the same output allocation and math library as graph mode),
``make_jax()`` (returns a ``jax.jit`` version of the same algorithm; imports JAX lazily)
and a seeded input factory; ``OTHER_BASELINES`` may list further hand-written variants
(other allocation or math-library choices), timed beside the main ones.  A *row* of the
benchmark is one workload with one set of inputs.  A row with its own ``measure`` (a
``module:function`` returning its results and the table to print) is measured that way
instead, e.g. the recording overhead of ``nbgraph.step``, an MLP training step with
gradients or the vectorized kernels.

Modules are imported when a row is used, so that a fresh process measuring one row's
first call imports only what that row needs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any


@dataclass(frozen=True)
class Row:
    name: str
    module_name: str
    inputs: str = "make_inputs"
    suffix: str = ""
    measure_by: str | None = None  # "module:function" measuring the row itself
    thread_modes: tuple[str, ...] = ("pinned", "default")

    @property
    def module(self) -> ModuleType:
        return importlib.import_module(f"{__name__}.{self.module_name}")

    @property
    def description(self) -> str:
        return self.module.DESCRIPTION + self.suffix

    def make_inputs(self) -> tuple[Any, ...]:
        return getattr(self.module, self.inputs)()

    @property
    def measure(self) -> Callable[[], dict[str, Any]] | None:
        if self.measure_by is None:
            return None
        module, function = self.measure_by.split(":")
        return getattr(importlib.import_module(module), function)


ROWS: tuple[Row, ...] = (
    Row("collatz", "collatz"),
    Row("early_exit", "early_exit"),
    Row("pairwise", "pairwise"),
    Row("fused", "fused"),
    Row("tanh_exp", "tanh_exp"),
    Row("softmax", "softmax"),
    Row("gradient_descent", "gradient_descent"),
    Row("kmeans", "kmeans"),
    Row("fixed_point", "fixed_point"),
    Row("overhead_scalar", "overhead", "make_inputs_scalar", " (scalar float argument)"),
    Row(
        "overhead_array1",
        "overhead",
        "make_inputs_array",
        " (1-element 1-D float64 array argument)",
    ),
    Row("vectorized", "vectorized", measure_by="vectorized:bench"),
    # Pure-Python line tracing: thread settings change nothing, one table is enough.
    Row(
        "step_recording",
        "step_recording",
        measure_by="workloads.step_recording:bench",
        thread_modes=("pinned",),
    ),
    # Measured in a one-thread process of its own whatever the table's setting.
    Row(
        "training_step",
        "training_step",
        measure_by="workloads.training_step:bench",
        thread_modes=("pinned",),
    ),
)


def row(name: str) -> Row:
    for r in ROWS:
        if r.name == name:
            return r
    raise KeyError(
        f"no workload row named {name!r}; choose one of {', '.join(r.name for r in ROWS)}"
    )
