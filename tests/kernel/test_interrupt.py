"""Jupyter's stop button stops an endless compiled graph loop; the kernel lives on."""

from __future__ import annotations

import re
import time

import pytest
from jupyter_client.manager import start_new_kernel

SPIN = """
import nbgraph as ng

@ng.function
def spin(n):
    k = 0
    while n > 0:
        k += 1
    return k

spin(-1)  # compile first, so the interrupt below lands in the compiled loop
"""


@pytest.fixture
def kernel():
    manager, client = start_new_kernel(kernel_name="python3")
    yield manager, client
    client.stop_channels()
    manager.shutdown_kernel(now=True)


def reply_to(client, msg_id: str, timeout: float) -> dict:
    """The shell reply to ``msg_id``, passing over late replies to earlier requests
    (the kernel-info requests made while the kernel started)."""
    deadline = time.monotonic() + timeout
    while True:
        reply = client.get_shell_msg(timeout=max(deadline - time.monotonic(), 0.01))
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply


def run(client, code: str, timeout: float = 120) -> dict:
    return reply_to(client, client.execute(code), timeout)["content"]


def test_interrupt_stops_a_compiled_loop_and_the_kernel_answers(kernel):
    manager, client = kernel
    assert run(client, SPIN)["status"] == "ok"
    # stop_on_error=False: otherwise the kernel aborts requests arriving while it
    # handles this one's error, and the check below could race that window.
    msg_id = client.execute("spin(1)", stop_on_error=False)
    time.sleep(2.0)  # well inside the endless loop
    start = time.monotonic()
    manager.interrupt_kernel()
    reply = reply_to(client, msg_id, timeout=30)
    stopped = time.monotonic() - start
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "KeyboardInterrupt"
    shown = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(reply["content"]["traceback"]))
    assert shown.rstrip().splitlines()[-1].strip() != ""  # a traceback was shown
    assert "while n > 0:" in shown  # at the loop's line, not inside nbgraph
    assert stopped < 5.0  # checked every 16K iterations: in practice milliseconds
    assert run(client, "spin(-1) + 1")["status"] == "ok"  # the kernel still answers
