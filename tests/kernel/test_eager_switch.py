"""``%autograph off`` (``nbgraph.config.run_eagerly``) runs graph functions as their
Python code, helpers included, so ``breakpoint()`` stops in them: driven here through a
real kernel's stdin, as a person types at the pdb prompt."""

from __future__ import annotations

import queue

import pytest
from jupyter_client.manager import start_new_kernel

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


@pytest.fixture
def kernel():
    manager, client = start_new_kernel(kernel_name="python3")
    yield client
    client.stop_channels()
    manager.shutdown_kernel(now=True)


def run(client, code: str, answers: tuple[str, ...] = (), timeout: float = 120) -> tuple:
    """Execute ``code``, typing ``answers`` at each input prompt; the reply's content,
    the prompts seen and the text printed."""
    msg_id = client.execute(code, allow_stdin=True)
    prompts: list[str] = []
    pending = list(answers)
    while True:
        try:
            request = client.get_stdin_msg(timeout=0.2)
            prompts.append(request["content"]["prompt"])
            client.input(pending.pop(0) if pending else "c")
        except queue.Empty:
            pass
        try:
            reply = client.get_shell_msg(timeout=0.2)
        except queue.Empty:
            continue
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    printed = []
    while True:
        try:
            msg = client.get_iopub_msg(timeout=1)
        except queue.Empty:
            break
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
            printed.append(msg["content"]["text"])
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            if msg["parent_header"].get("msg_id") == msg_id:
                break
    return reply["content"], prompts, "".join(printed)


def test_breakpoint_in_a_helper_stops_with_the_switch_off(kernel):
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
