"""Generated source as importable modules in a cache folder.

The source goes to a file named by its hash (plus Python, NumPy, Numba and nbgraph
versions and the backend's own source), so Numba's own ``cache=True`` can reuse the
machine code in a new process.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numba
import numpy as np


def cache_dir() -> Path:
    """Where compiled graphs live (``NBGRAPH_CACHE_DIR`` overrides)."""
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "nbgraph"
    path = Path(os.environ.get("NBGRAPH_CACHE_DIR", default))
    path.mkdir(parents=True, exist_ok=True)
    return path


@functools.cache
def _versions() -> str:
    """What compiled code depends on besides its own source: the versions, and the
    backend's own compiled functions that generated code calls (Numba links their
    machine code into each cached graph, so a change to them must not load old code)."""
    from .. import __version__

    backend = hashlib.sha256()
    for path in sorted(Path(__file__).parent.rglob("*.py")):
        backend.update(path.read_bytes())
    return (f"{sys.version}|{np.__version__}|{numba.__version__}|{__version__}|"
            f"{backend.hexdigest()}")


def _holds(path: Path, text: str) -> bool:
    try:
        return path.read_text() == text
    except (OSError, UnicodeDecodeError):
        return False


def load_source(text: str, objects: dict[str, Any], prefix: str = "graph") -> ModuleType:
    """The module with this source (imported once per process), ``objects`` added to
    its namespace."""
    digest = hashlib.sha256((text + _versions()).encode()).hexdigest()[:24]
    path = cache_dir() / f"{prefix}_{digest}.py"
    if not _holds(path, text):  # new, or damaged since it was written
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        tmp.replace(path)
    name = f"nbgraph_compiled_{prefix}_{digest}"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    module.__dict__.update(objects)
    return module
