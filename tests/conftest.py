"""Test-session settings shared by every test folder."""

import os
import tempfile

# Compiled graphs go to a fresh cache per session unless one is given, so every run
# compiles what it tests (and the user's cache is left alone).
os.environ.setdefault("NBGRAPH_CACHE_DIR", tempfile.mkdtemp(prefix="nbgraph-cache-"))

# CI has no GPU: the CUDA backend's tests run on numba-cuda's simulator.  On a machine
# with an NVIDIA GPU, NUMBA_ENABLE_CUDASIM=0 runs them on the GPU.  Set before anything
# imports numba.cuda (numba reads it when numba.cuda is first imported).
os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
