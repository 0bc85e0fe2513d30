"""Test-session settings shared by every test folder."""

import os
import tempfile

# Compiled graphs go to a fresh cache per session unless one is given, so every run
# compiles what it tests (and the user's cache is left alone).
os.environ.setdefault("NBGRAPH_CACHE_DIR", tempfile.mkdtemp(prefix="nbgraph-cache-"))
