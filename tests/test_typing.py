"""The package ships ``py.typed`` and its public API has type hints: a user's script
passes ``mypy --strict``, and a wrong use of the API is caught."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = '''\
"""A user's script."""

import numpy as np
import numpy.typing as npt

import nbgraph as ng


@ng.function
def scaled(x: npt.NDArray[np.float64], k: float) -> npt.NDArray[np.float64]:
    return x * k


def total(x: npt.NDArray[np.float64]) -> float:
    return float(np.sum(x))


fast_total = ng.function(total, backend="cpu")
on_interpret = ng.function(backend="interpret")(total)
y = scaled(np.ones(3), 2.0)
t: float = fast_total(y)
graph: ng.Graph = scaled.graph(np.ones(3), 2.0)
print(ng.explain(scaled), ng.diff(fast_total, y).agree, graph.name, t)
value, gradients = ng.value_and_grad(total)(y)
ng.config.run_eagerly = False
recording = ng.step(total, y)
'''


def mypy(source: str, where: Path) -> subprocess.CompletedProcess:
    (where / "user.py").write_text(source)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(where / ".cache"), "user.py"],
        cwd=where,  # (not the checkout: nbgraph is found installed, as users have it)
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_users_script_passes_mypy_strict(tmp_path):
    checked = mypy(SCRIPT, tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    wrong = mypy(SCRIPT + "count: int = ng.function(total)\n", tmp_path)
    assert wrong.returncode == 1
    assert 'expression has type "GraphFunction", variable has type "int"' in wrong.stdout
