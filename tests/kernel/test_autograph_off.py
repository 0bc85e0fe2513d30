"""``%autograph off`` (``nbgraph.config.run_eagerly``) runs graph functions as their
Python code, helpers included, so ``breakpoint()`` stops in them: driven here through a
real kernel's stdin, as a person types at the pdb prompt."""

from __future__ import annotations

from typed_kernel import kernel, run  # noqa: F401  (the kernel fixture)

CELL = """
%load_ext nbgraph
import numpy as np
import nbgraph as ng
"""

FUNCTIONS = """
%%autograph
def scale(x):
    breakpoint()
    return x * 2.0

def total(x):
    return np.sum(scale(x)) + 1.0
"""


def test_breakpoint_in_a_helper_stops_with_the_switch_off(kernel):  # noqa: F811
    assert run(kernel, CELL)[0]["status"] == "ok"
    assert run(kernel, FUNCTIONS)[0]["status"] == "ok"
    content, prompts, printed = run(kernel, "%autograph off")
    assert content["status"] == "ok" and "run_eagerly = True" in printed
    content, prompts, printed = run(
        kernel, "print('total', total(np.arange(3.0)))", ("p x.sum()", "c")
    )
    assert content["status"] == "ok", content
    assert len(prompts) == 2, (prompts, printed)  # pdb asked twice: the command, then the continue
    assert "3.0" in printed  # p x.sum() in the helper's frame
    assert "total 7.0" in printed
    # .eager runs the helpers eagerly too: pdb stops in scale again.
    content, prompts, printed = run(kernel, "print(total.eager(np.ones(2)))", ("p x", "c"))
    assert content["status"] == "ok" and len(prompts) == 2 and "array([1., 1.])" in printed
    # Switched on again, graphs run: breakpoint() cannot stop a graph, so graph mode
    # refuses it at its line, saying how to run the function as Python, and asks nothing.
    content, prompts, printed = run(kernel, "%autograph on\ntotal(np.arange(3.0))")
    assert not prompts
    assert content["ename"] == "StagingError" and "%autograph off" in content["evalue"]
