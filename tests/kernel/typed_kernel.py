"""A real kernel, and running code in it as a person does: typing answers at its input
prompts (pdb's), reading what it printed."""

from __future__ import annotations

import queue
import time

import pytest
from jupyter_client.manager import start_new_kernel


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
    deadline = time.monotonic() + timeout
    while True:
        assert time.monotonic() < deadline, f"no reply to {code!r} in {timeout} s"
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
