"""Graphs whose generated source reads alike run their own functions.

The CPU backend's source names what it calls back into Python (``_py0``) and the
functions and constants it calls natively (``_f0``); the objects themselves go into the
module's namespace.  Two graphs of the same shape (``print(x)`` and ``print("x is",
x)``) have the same source, so the module's file name also hashes the objects' keys
(``generated.stable_key``): before, the second graph's objects replaced the first's in
one shared module, and Numba's disk cache, which keys machine code by file, handed a new
process the other graph's code (``np.linalg.det`` returning a norm).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.backend.generated import stable_key


def say(x):
    print(x)


def say_with_label(x):
    print("x is", x)


def grow(a):
    return np.concatenate((a, [[1]]), 0)


def pad(a):
    return np.pad(a, [[1, 1], [1, 1]], constant_values=1)


def norm(a):
    return np.linalg.norm(a)


def det(a):
    return np.linalg.det(a)


def cube(x):
    return x**3 + 1


def fifth(x):
    return x**5 + 1


PAIRS = [
    (say, say_with_label, (7,)),
    (grow, pad, (np.zeros((1, 1), np.int64),)),
    (norm, det, (np.array([[2.0, 1.0], [1.0, 3.0]]),)),
    (cube, fifth, (np.arange(5),)),
]


def _run(fn, args, capsys):
    value = fn(*args)
    return value, capsys.readouterr().out


@pytest.mark.parametrize(
    ("first", "second", "args"), PAIRS, ids=lambda p: getattr(p, "__name__", "")
)
def test_graphs_of_one_shape_call_their_own_functions(first, second, args, capsys, monkeypatch):
    monkeypatch.setattr(ng.config, "background_compile", False)
    graphs = {fn: ng.function(fn, backend="cpu") for fn in (first, second)}
    for fn in (first, second, first, second):
        got, printed = _run(graphs[fn], args, capsys)
        expected, expected_printed = _run(fn, args, capsys)
        np.testing.assert_array_equal(got, expected)
        assert printed == expected_printed


def test_a_new_process_loads_its_own_machine_code(tmp_path):
    script = textwrap.dedent(
        """
        import sys
        import numpy as np
        import nbgraph as ng
        sys.path.insert(0, {here!r})
        import test_generated_modules as t
        ng.config.background_compile = False
        fn = getattr(t, sys.argv[1])
        print(ng.function(fn, backend="cpu")(*t.PAIRS[2][2]))
        """
    ).format(here=os.path.dirname(__file__))
    env = {**os.environ, "NBGRAPH_CACHE_DIR": str(tmp_path)}
    outputs = {}
    for name in ("norm", "det"):  # one process after the other, sharing the disk cache
        run = subprocess.run(
            [sys.executable, "-c", script, name], capture_output=True, text=True, env=env
        )
        assert run.returncode == 0, run.stderr
        outputs[name] = float(run.stdout)
    matrix = PAIRS[2][2][0]
    assert outputs == {"norm": np.linalg.norm(matrix), "det": np.linalg.det(matrix)}


def test_stable_keys_name_what_behaves_alike_and_only_that():
    assert stable_key((np.float32(2.5), "x", {"sep": " "})) == stable_key(
        (np.float32(2.5), "x", {"sep": " "})
    )
    assert stable_key(np.float32(2.5)) != stable_key(np.float64(2.5))
    assert stable_key(np.linalg.norm) != stable_key(np.linalg.det)
    assert stable_key(say) != stable_key(say_with_label)
    # Nothing finds a lambda or a closure again by name: no key (the module is not shared).
    assert stable_key(lambda x: x) is None
    assert stable_key((1, object())) is None
