"""Test-session settings shared by every test folder."""

import os
import tempfile

import pytest

# Compiled graphs go to a fresh cache per session unless one is given, so every run
# compiles what it tests (and the user's cache is left alone).  Each parallel worker
# (`pytest -n`) has a folder of its own in it: no test finds another's graphs there.
if "NBGRAPH_CACHE_DIR" not in os.environ:
    os.environ["NBGRAPH_CACHE_DIR"] = tempfile.mkdtemp(prefix="nbgraph-cache-")
if worker := os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["NBGRAPH_CACHE_DIR"] = os.path.join(os.environ["NBGRAPH_CACHE_DIR"], worker)

# CI has no GPU: the CUDA backend's tests run on numba-cuda's simulator.  On a machine
# with an NVIDIA GPU, NUMBA_ENABLE_CUDASIM=0 runs them on the GPU.  Set before anything
# imports numba.cuda (numba reads it when numba.cuda is first imported).
os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import nbgraph  # after the settings above: numba reads them on import


@pytest.fixture(autouse=True)
def compiled_from_the_first_call(monkeypatch):
    """A graph function's first call runs its compiled code, so that a test's one call
    checks what the backend computes (with background compiles on, the first call of a
    graph without loops runs on the interpreter); tests of those tiers turn them on."""
    monkeypatch.setattr(nbgraph.config, "background_compile", False)
