"""The benchmark workloads.

Each workload module defines ``eager`` (plain Python/NumPy; the graph variant is
``nbgraph.function(eager)``), ``njit`` (a hand-written ``@numba.njit`` of the same algorithm),
``make_jax()`` (returns a ``jax.jit`` version; imports JAX lazily) and a seeded input factory.
A *row* of the benchmark is one workload with one set of inputs. A row with its own
``measure`` (a function returning its results and a table to print) is measured that way
instead, e.g. the recording overhead of ``nbgraph.step`` or an MLP training step with
gradients.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from . import (
    collatz,
    early_exit,
    fused,
    gradient_descent,
    overhead,
    pairwise,
    softmax,
    step_recording,
    tanh_exp,
    training_step,
)


@dataclass(frozen=True)
class Row:
    name: str
    module: ModuleType
    make_inputs: Callable[[], tuple[Any, ...]]
    description: str
    measure: Callable[[], dict[str, Any]] | None = None


ROWS: tuple[Row, ...] = (
    Row("collatz", collatz, collatz.make_inputs, collatz.DESCRIPTION),
    Row("early_exit", early_exit, early_exit.make_inputs, early_exit.DESCRIPTION),
    Row("pairwise", pairwise, pairwise.make_inputs, pairwise.DESCRIPTION),
    Row("fused", fused, fused.make_inputs, fused.DESCRIPTION),
    Row("tanh_exp", tanh_exp, tanh_exp.make_inputs, tanh_exp.DESCRIPTION),
    Row("softmax", softmax, softmax.make_inputs, softmax.DESCRIPTION),
    Row("gradient_descent", gradient_descent, gradient_descent.make_inputs,
        gradient_descent.DESCRIPTION),
    Row("overhead_scalar", overhead, overhead.make_inputs_scalar,
        overhead.DESCRIPTION + " (scalar float argument)"),
    Row("overhead_array1", overhead, overhead.make_inputs_array,
        overhead.DESCRIPTION + " (1-element 1-D float64 array argument)"),
    Row("step_recording", step_recording, tuple, step_recording.DESCRIPTION,
        measure=step_recording.bench),
    Row("training_step", training_step, tuple, training_step.DESCRIPTION,
        measure=training_step.bench),
)


def row(name: str) -> Row:
    for r in ROWS:
        if r.name == name:
            return r
    raise KeyError(f"no workload row named {name!r}; choose one of "
                   f"{', '.join(r.name for r in ROWS)}")
