"""``nbgraph.check_grad``: a gradient against central finite differences of the function
run eagerly, element by element, naming the argument and element where they part.

Central differences ``(f(x + eps) - f(x - eps)) / 2 eps`` are accurate to about
``eps**2 f'''`` plus ``ulp(f) / eps``: with the default steps (1e-6 for float64, 1e-3
for float32) that is far below the default tolerances for smooth functions of moderate
size, unless a kink or a branch threshold (``abs`` at 0, a loop condition) lies within
``eps`` of an input.  The function is evaluated as plain Python and NumPy (a graph
function's ``eager``), so the reference owes nothing to graph mode.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..api import GraphFunction
from ..graph.pytree import flatten, unflatten
from .api import grad

EPS = {np.dtype(np.float64): 1e-6, np.dtype(np.float32): 1e-3}
RTOL = {np.dtype(np.float64): 1e-5, np.dtype(np.float32): 2e-2}
ATOL = 1e-8


@dataclass
class Difference:
    """The element where the gradient and the finite differences differ most."""

    argument: str  # the argument and the path to the leaf, e.g. "params['w']"
    index: tuple[int, ...]  # the element in the leaf (() for a number)
    gradient: float
    numerical: float

    def __str__(self) -> str:
        where = (
            f"{self.argument}[{', '.join(map(str, self.index))}]" if self.index else self.argument
        )
        return f"{where}: gradient {self.gradient!r}, central differences {self.numerical!r}"


@dataclass
class GradCheck:
    """What ``check_grad`` found: true when every element agrees within the tolerances.
    ``worst`` is the element with the largest difference relative to the tolerance,
    ``mismatches`` how many elements are outside it, ``elements`` how many were checked."""

    name: str
    ok: bool
    worst: Difference | None
    mismatches: int
    elements: int
    eps: float | None  # None: by dtype
    rtol: float | None

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        step = f"eps {self.eps:g}" if self.eps else "eps by dtype"
        if self.ok:
            largest = f"; largest difference at {self.worst}" if self.worst else ""
            return (
                f"the gradient of {self.name} agrees with central differences "
                f"({step}) on all {self.elements} elements{largest}"
            )
        tolerance = f"rtol {self.rtol:g}" if self.rtol else "rtol by dtype"
        return (
            f"the gradient of {self.name} differs from central differences ({step}, "
            f"{tolerance}) on {self.mismatches} of {self.elements} elements; "
            f"the largest at {self.worst}"
        )


def check_grad(
    fn: Callable,
    *args: Any,
    argnums: int | Sequence[int] = 0,
    eps: float | None = None,
    rtol: float | None = None,
    atol: float = ATOL,
    backend: str | None = None,
) -> GradCheck:
    """Compare ``nbgraph.grad(fn, argnums)(*args)`` with central finite differences of
    ``fn`` run eagerly, on every floating-point element of the differentiated arguments.
    ``eps`` and ``rtol`` default by dtype (float64: 1e-6 and 1e-5; float32: 1e-3 and
    2e-2).  Returns a ``GradCheck`` (true when they agree) naming the argument and
    element that differ most."""
    numbers = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    gradients = grad(fn, numbers, backend=backend)(*args)
    eager = fn.eager if isinstance(fn, GraphFunction) else fn
    names = _parameter_names(fn, len(args))
    worst: tuple[float, Difference] | None = None
    mismatches = elements = 0
    for num, gradient in zip(numbers, gradients):
        numerical = flatten(numerical_gradient(eager, args, num, eps))[0]
        for position, (value, reference) in enumerate(zip(flatten(gradient)[0], numerical)):
            tolerance = rtol or _rtol(reference)
            computed = np.asarray(value, dtype=np.float64)
            expected = np.asarray(reference, dtype=np.float64)
            excess = np.array(np.abs(computed - expected) / (atol + tolerance * np.abs(expected)))
            excess[np.isnan(excess)] = np.inf  # a NaN on one side only
            excess[np.isnan(computed) & np.isnan(expected)] = 0.0
            mismatches += int(np.count_nonzero(excess > 1.0))
            elements += excess.size
            if excess.size:
                index = np.unravel_index(int(np.argmax(excess)), excess.shape)
                if worst is None or excess[index] > worst[0]:
                    label = names[num] + _leaf_path(args[num], position)
                    where = tuple(int(i) for i in index)
                    found = Difference(label, where, float(computed[index]), float(expected[index]))
                    worst = (float(excess[index]), found)
    return GradCheck(
        getattr(eager, "__name__", "function"),
        mismatches == 0,
        worst[1] if worst else None,
        mismatches,
        elements,
        eps,
        rtol,
    )


def numerical_gradient(fn: Callable, args: tuple, num: int, eps: float | None = None) -> Any:
    """d fn(*args) / d args[num] by central differences, in the structure of
    ``args[num]`` (each leaf's dtype kept; ``eps`` defaults by dtype)."""
    leaves, tree = flatten(args[num])

    def evaluate(position: int, new: Any) -> float:
        values = list(leaves)
        values[position] = new
        call = list(copy.deepcopy(args))
        call[num] = unflatten(tree, values)
        return _scalar(fn(*call))

    out = []
    for position, leaf in enumerate(leaves):
        step = eps or EPS.get(np.result_type(leaf), EPS[np.dtype(np.float64)])
        if isinstance(leaf, np.ndarray):
            grad = np.zeros(leaf.shape, dtype=np.float64)
            for index in np.ndindex(leaf.shape):
                up, down = leaf.copy(), leaf.copy()
                up[index] += step
                down[index] -= step
                grad[index] = (evaluate(position, up) - evaluate(position, down)) / (2 * step)
            out.append(grad.astype(leaf.dtype))
        else:
            up, down = evaluate(position, leaf + step), evaluate(position, leaf - step)
            out.append(type(leaf)((up - down) / (2 * step)))
    return unflatten(tree, out)


def _rtol(value: Any) -> float:
    return RTOL.get(np.result_type(value), RTOL[np.dtype(np.float64)])


def _scalar(value: Any) -> float:
    out = np.asarray(value)
    if out.shape != ():
        raise ValueError(f"check_grad needs a function with a scalar result, got shape {out.shape}")
    return float(out)


def _parameter_names(fn: Callable, count: int) -> list[str]:
    python = getattr(fn, "python_function", fn)
    try:
        params = list(inspect.signature(python).parameters)
    except (TypeError, ValueError):
        params = []
    return [params[k] if k < len(params) else f"argument {k + 1}" for k in range(count)]


def _leaf_path(value: Any, position: int) -> str:
    """Where leaf ``position`` sits inside an argument (``""`` for the argument itself)."""
    if isinstance(value, dict):
        for key, item in value.items():
            count = len(flatten(item)[0])
            if position < count:
                return f"[{key!r}]" + _leaf_path(item, position)
            position -= count
    elif isinstance(value, (tuple, list)):
        for k, item in enumerate(value):
            count = len(flatten(item)[0])
            if position < count:
                return f"[{k}]" + _leaf_path(item, position)
            position -= count
    return ""
