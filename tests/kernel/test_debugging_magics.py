"""``%explain f`` and ``%%autograph --check-numerics`` in a real kernel: the retrace causes
of a graph function (a redefined helper among them), and the line that made a NaN."""

from __future__ import annotations

import re

from typed_kernel import kernel, run  # noqa: F401  (the kernel fixture)

SETUP = """
%load_ext nbgraph
import numpy as np
"""

HELPER = """
def helper(v):
    return v * 2.0
"""

CELL = """
%%autograph --static mode
def scaled(x, k, mode="a"):
    return helper(x) * k
"""


def test_explain_names_each_trace_and_its_cause(kernel):  # noqa: F811
    for code in (SETUP, HELPER, CELL):
        assert run(kernel, code)[0]["status"] == "ok"
    calls = "scaled(np.ones(3), 2); scaled(np.ones(3, np.float32), 2); scaled(np.ones(3), 2.0)"
    assert run(kernel, calls)[0]["status"] == "ok"
    assert run(kernel, HELPER)[0]["status"] == "ok"  # the helper's cell run again
    assert (
        run(kernel, "scaled(np.ones(3), 2, mode='b'); scaled(np.ones(3), 2)")[0]["status"] == "ok"
    )
    content, _, printed = run(kernel, "_e = %explain scaled\nprint(repr(_e))")
    assert content["status"] == "ok", content
    assert "scaled (backend cpu): 5 traces" in printed
    assert "x is a float32 1-d array (before: float64 1-d array)" in printed
    assert "k is a Python float (before: Python int)" in printed
    assert "static mode='b' (before: 'a')" in printed
    assert "helper redefined since the last trace" in printed
    content, _, _ = run(kernel, "%explain np")
    assert content["status"] == "error" and "not a graph function" in content["evalue"]


NUMERICS = """
%%autograph --check-numerics
def normalize(a):
    norms = np.sqrt((a * a).sum(axis=1, keepdims=True))
    return a / norms
"""


def test_check_numerics_points_at_the_line_in_the_cell(kernel):  # noqa: F811
    assert run(kernel, SETUP)[0]["status"] == "ok"
    assert run(kernel, NUMERICS)[0]["status"] == "ok"
    content, _, _ = run(kernel, "a = np.ones((3, 2)); a[1] = 0\nnormalize(a)")
    assert content["ename"] == "FloatingPointError"
    shown = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(content["traceback"]))
    assert "return a / norms" in shown and "made 2 NaN of 6 values" in content["evalue"]


DIVERGING = """
%%autograph
def running(x, n):
    total = 0
    i = 0
    while i < n:
        t = 0
        for j in range(abs(i - 2)):
            t = x[j]
        chunk = np.array([t])
        total = total + chunk.sum()
        i += 1
    return total
"""


def test_compare_diff_names_the_line_and_iteration_in_the_cell(kernel):  # noqa: F811
    assert run(kernel, SETUP)[0]["status"] == "ok"
    assert run(kernel, DIVERGING)[0]["status"] == "ok"
    content, _, printed = run(
        kernel, "_d = %compare --diff -o running(np.arange(4, dtype=np.int32), 4)\nprint(_d)"
    )
    assert content["status"] == "ok", content
    assert "first difference at line 9 (run 3): chunk = np.array([t])" in printed
    assert "chunk: dtypes differ" in printed
    assert "int64 array of shape (1,)" in printed and "int32 array of shape (1,)" in printed
    content, _, printed = run(
        kernel, "_d = %compare --diff -o running(np.arange(4, dtype=np.int32), 2)\nprint(_d)"
    )
    assert "agrees with eager code" in printed, content


STOPPING = """
%%autograph
def settle(x, n):
    level = 0.0
    for i in range(n):
        level = 0.5 * level + x[i]
        if level > 3.0:
            ng.breakpoint()
    return level
"""


def test_breakpoint_opens_the_stepper_at_its_line(kernel):  # noqa: F811
    assert run(kernel, SETUP + "import nbgraph as ng")[0]["status"] == "ok"
    assert run(kernel, STOPPING)[0]["status"] == "ok"
    content, prompts, printed = run(
        kernel,
        "value = settle(np.arange(6.0), 6)\n"
        "r = settle.last_recording\n"
        "print(value, r.steps[r.stop].lineno, r.widget().step == r.stop)",
    )
    assert content["status"] == "ok" and not prompts, content
    assert printed.split() == [repr(float(_settle(6))), "7", "True"]
    # Run as Python (%autograph off), it is a pdb prompt in the function's frame.
    content, prompts, printed = run(
        kernel, "%autograph off\nprint(settle(np.arange(6.0), 5))", ("p i", "q")
    )
    assert prompts and "3" in printed.split(), printed  # level passes 3.0 at i == 3
    assert content["ename"] == "BdbQuit"
    assert run(kernel, "%autograph on")[0]["status"] == "ok"


def _settle(n: int) -> float:
    level = 0.0
    for i in range(n):
        level = 0.5 * level + i
    return level
