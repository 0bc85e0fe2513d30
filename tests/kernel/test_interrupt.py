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


def run(client, code: str, timeout: float = 120) -> dict:
    msg_id = client.execute(code)
    reply = client.get_shell_msg(timeout=timeout)
    assert reply["parent_header"]["msg_id"] == msg_id
    return reply["content"]


def test_interrupt_stops_a_compiled_loop_and_the_kernel_answers(kernel):
    manager, client = kernel
    assert run(client, SPIN)["status"] == "ok"
    msg_id = client.execute("spin(1)")
    time.sleep(2.0)  # well inside the endless loop
    start = time.monotonic()
    manager.interrupt_kernel()
    reply = client.get_shell_msg(timeout=30)
    stopped = time.monotonic() - start
    assert reply["parent_header"]["msg_id"] == msg_id
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "KeyboardInterrupt"
    shown = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(reply["content"]["traceback"]))
    assert shown.rstrip().splitlines()[-1].strip() != ""  # a traceback was shown
    assert "while n > 0:" in shown  # at the loop's line, not inside nbgraph
    assert stopped < 5.0  # checked every 16K iterations: in practice milliseconds
    assert run(client, "spin(-1) + 1")["status"] == "ok"  # the kernel still answers
