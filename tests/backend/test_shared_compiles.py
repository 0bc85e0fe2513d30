"""The warm-up that ``make setup`` runs compiles the CPU backend's shared reductions that
graphs of common arrays call.

A shared reduction (``array_reductions.rows`` and the rest) takes one to several
seconds to compile the first time on a machine, once per array type and literal method:
without the warm-up a user's first graph of a column mean and std waited 13 s.  The
warm-up's signatures must be exactly those generated code calls, or it compiles in vain.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from nbgraph.backend.numba_cpu import warmup


def statistics(x, strided, v, column):
    """Reductions of a C-ordered and a strided matrix, a vector and a strided one."""
    return (
        x.sum(),
        x.mean(axis=0),
        x.std(axis=0),
        np.max(x, axis=-1),
        x.min(axis=1, keepdims=True),
        np.var(x),
        np.sum(np.abs(x), axis=0),
        np.max(x * 2),
        strided.sum(axis=0),
        strided.mean(axis=1),
        strided.max(),
        v.sum(),
        v.mean(),
        v.max(),
        np.std(column),
    )


def _inputs() -> list[tuple]:
    """The arguments of ``statistics``, of each element type the warm-up covers."""
    found = []
    for dtype in warmup.METHODS:
        matrix = (np.arange(24).reshape(4, 6) % 7 - 3).astype(dtype)
        found.append((matrix, matrix[:, ::2], matrix[0], matrix[:, 1]))
    return found


def test_the_warm_up_compiles_what_graphs_of_common_arrays_call(tmp_path):
    # In a new process compiling the graph anew: its shared functions are those called.
    script = f"""
import sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
import nbgraph as ng
from nbgraph.backend.numba_cpu import array_reductions
from test_shared_compiles import _inputs, statistics
ng.config.background_compile = False
graph = ng.function(statistics, backend="cpu")
for args in _inputs():
    graph(*args)
for name in ("whole", "rows", "columns"):
    for signature in getattr(array_reductions, name).signatures:
        print(name, signature)
"""
    env = {**os.environ, "NBGRAPH_CACHE_DIR": str(tmp_path)}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    # (a Fortran-ordered array is one ``columns`` hands to ``rows`` itself, compiled
    # inside it: not a call of generated code)
    called = {line for line in run.stdout.splitlines() if "'F'" not in line}
    warmed = {f"{along} {signature}" for along, signature in warmup.signatures()}
    assert called, "the graphs called no shared reduction"
    assert called <= warmed, sorted(called - warmed)
