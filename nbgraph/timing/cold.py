"""A graph's first call as a person meets it, measured in new Python processes.

In the kernel that already ran a function, a new graph function for it finds Numba's
machine code in the disk cache, so its first call there says little about the wait after
an edit. Two new processes tell it, with nbgraph and Numba started first (as the Jupyter
extension starts them): one with an empty disk cache (a new or edited function:
everything compiles) and one with the cache the first left behind (a restarted kernel:
everything loads). Each gets the graph function pickled as its traced graphs, with the
call's arguments, and times its first call; the conversion and tracing measured in this
process are added, since those processes start from graphs.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Any

from ..api import GraphFunction

TIMEOUT_S = 600
# Numba is started before the clock starts, as it is in a kernel where nbgraph's
# extension is loaded (backend.warm_up); it counts the functions it compiles.
_CHILD = """
import json, pickle, sys, time
import nbgraph
from nbgraph.backend import warm_up
from numba.core import event
fn, args, kwargs = pickle.load(sys.stdin.buffer)
warm_up()
if fn.backend == "cuda":
    import numba.cuda

class Count(event.Listener):
    compiled = 0

    def on_start(self, ev):
        self.compiled += 1

    def on_end(self, ev):
        pass

count = Count()
with event.install_listener("numba:compile", count):
    start = time.perf_counter()
    fn(*args, **kwargs)
    seconds = time.perf_counter() - start
    # A first call on the interpreter leaves the compile to the next call.
    (entry,) = fn.specializations.values()
    waited = None
    if getattr(entry.program, "compiled", True) is False:
        start = time.perf_counter()
        fn(*args, **kwargs)
        waited = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "waited": waited, "compiled": count.compiled}))
"""


@dataclass
class ColdStarts:
    """First-call seconds in a new process with an empty disk cache and with the cache
    that run left; ``reason`` says why they were not measured."""

    empty_cache: float | None = None
    disk_cache: float | None = None
    compiled: int | None = None  # functions Numba compiled with the empty cache
    reason: str | None = None
    # With the empty cache, the second call's seconds where the first ran on the
    # interpreter and the compile came after it (backend/numba_cpu/tiers.py).
    compile_wait: float | None = None

    def as_dict(self) -> dict:
        return {
            "empty_cache_s": self.empty_cache,
            "compile_wait_s": self.compile_wait,
            "disk_cache_s": self.disk_cache,
            "functions_compiled": self.compiled,
            "not_measured": self.reason,
        }


def cold_starts(fn: GraphFunction, args: tuple, kwargs: dict, staged: float) -> ColdStarts:
    """The first call of ``fn`` (already called once here, with these arguments) in two
    new processes; ``staged``: the seconds conversion and tracing took here."""
    try:
        payload = pickle.dumps((fn, args, kwargs))
    except Exception as exc:  # a graph or an argument that cannot leave this process
        return ColdStarts(reason=f"the call cannot be sent to a new process ({exc})")
    with tempfile.TemporaryDirectory(prefix="nbgraph-cold-") as cache:
        env = {**os.environ, "NBGRAPH_CACHE_DIR": cache}
        runs = []
        for _ in range(2):
            run = _first_call(payload, env)
            if isinstance(run, str):
                return ColdStarts(reason=run)
            runs.append(run)
    (empty, waited, compiled), (loaded, _, _) = runs
    return ColdStarts(staged + empty, staged + loaded, compiled, compile_wait=waited)


def _first_call(payload: bytes, env: dict[str, str]) -> tuple[float, Any, Any] | str:
    """(seconds, the second call's wait for the compile or None, functions compiled) of
    the first call in a new process, or why not."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD],
            input=payload,
            env=env,
            capture_output=True,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return f"a new process took over {TIMEOUT_S} s"
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        return f"the call failed in a new process ({lines[-1] if lines else done.returncode})"
    result = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return result["seconds"], result["waited"], result["compiled"]
