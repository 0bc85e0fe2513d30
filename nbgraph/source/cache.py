"""Where nbgraph writes the code it generates (compiled graphs' modules): never the
user's code, so tracebacks and recordings leave its frames out."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """Where compiled graphs live (``NBGRAPH_CACHE_DIR`` overrides)."""
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "nbgraph"
    path = Path(os.environ.get("NBGRAPH_CACHE_DIR", default))
    path.mkdir(parents=True, exist_ok=True)
    return path
