"""A slow first call shows its build in the cell as it goes, in a real kernel: the stage,
the time so far (redrawn while it grows), the stages done with their times, how many
functions Numba has compiled, and nothing once the build is done.  A new kernel with the
same disk cache loads instead of compiling, and ``last_compiled`` says so."""

from __future__ import annotations

import os
import re

import pytest
from jupyter_client.manager import start_new_kernel

CELL = """
import numpy as np
import nbgraph as ng
%load_ext nbgraph
from nbgraph.kernel import extension
shown = extension._loaded[id(get_ipython())]
shown.delay, shown.interval = 0.0, 0.05

def relax(x, n):
    for _ in range(n):
        x = np.where(x > 1.0, np.sqrt(x), x * x + 0.5)
    return x.sum()

f = ng.function(relax)
f(np.linspace(0.0, 2.0, 5), 3)
print("compiled", f.last_compiled)
"""


# A graph of array work: its first call runs on the interpreter, the second waits for
# the compile (backend/numba_cpu/tiers.py).
TIERED = """
import numpy as np
import nbgraph as ng
%load_ext nbgraph
from nbgraph.kernel import extension
shown = extension._loaded[id(get_ipython())]
shown.delay, shown.interval = 0.0, 0.05

def centred(x):
    return x - x.mean(axis=0)

f = ng.function(centred)
f(np.ones((40, 30)))
print("first", f.last_compiled)
f(np.ones((40, 30)))
"""


def shown_lines(cache: str, cell: str = CELL) -> tuple[list[str], str]:
    """The text/plain of every display and display update the cell made, and its stdout."""
    env = {**os.environ, "NBGRAPH_CACHE_DIR": cache, "NBGRAPH_BACKGROUND_COMPILE": "1"}
    manager, client = start_new_kernel(kernel_name="python3", env=env)
    try:
        msg_id = client.execute(cell)
        lines, stdout = [], ""
        while True:
            msg = client.get_iopub_msg(timeout=120)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind in ("display_data", "update_display_data"):
                lines.append(content["data"]["text/plain"])
            elif kind == "stream" and content["name"] == "stdout":
                stdout += content["text"]
            elif kind == "error":
                pytest.fail("\n".join(content["traceback"]))
            elif kind == "status" and content["execution_state"] == "idle":
                return lines, stdout
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_a_slow_build_shows_its_stages_and_time_then_goes(tmp_path):
    lines, stdout = shown_lines(str(tmp_path))
    compiled = int(stdout.split()[-1])
    assert compiled >= 1  # a new function in an empty cache: Numba compiled it
    drawn = [line for line in lines if line]
    assert drawn and all(line.startswith("nbgraph: building relax: ") for line in drawn)
    assert lines[-1] == ""  # removed when done
    assert any(re.search(r": compiling function \d+ - ", line) for line in drawn)
    assert any("(converting " in line and ", tracing " in line for line in drawn)
    elapsed = [float(m.group(1)) for m in map(re.compile(r" - (\d+\.\d+) s").search, drawn) if m]
    assert len(elapsed) == len(drawn) and elapsed == sorted(elapsed)  # a clock that runs
    assert elapsed[-1] > elapsed[0]


def test_a_new_kernel_loads_the_build_from_the_disk_cache(tmp_path):
    shown_lines(str(tmp_path))  # compiles into the cache
    lines, stdout = shown_lines(str(tmp_path))
    assert stdout.split()[-1] == "0"  # nothing compiled: loaded
    assert not any("compiling function" in line for line in lines)


def test_a_second_call_shows_the_wait_for_the_compile_after_the_first(tmp_path):
    lines, stdout = shown_lines(str(tmp_path), TIERED)
    assert stdout.split() == ["first", "None"]  # the compile came after the first call
    drawn = [line for line in lines if line]
    assert any(": running on the interpreter (compiling after this call) - " in x for x in drawn)
    waits = [x for x in drawn if ": compiling (started after the first call) - " in x]
    assert waits and all(x.startswith("nbgraph: building centred: ") for x in waits)
    assert lines[-1] == ""  # removed when done


WARM = """
import sys, threading
%load_ext nbgraph
for t in threading.enumerate():
    if t.name == "nbgraph-warm-up":
        t.join(60)  # (if it has not finished already)
print("numba.np.arraymath" in sys.modules, "nbgraph.backend.numba_cpu" in sys.modules)
"""


def test_loading_the_extension_starts_numba_before_the_first_call():
    """Numba's start-up (its NumPy registries, about half a second) happens on a
    background thread while the person writes, not in the first graph call."""
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        out: list[str] = []
        client.execute_interactive(
            WARM,
            timeout=120,
            output_hook=lambda msg: (
                out.append(msg["content"].get("text", "")) if msg["msg_type"] == "stream" else None
            ),
        )
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert "".join(out).split() == ["True", "True"]
