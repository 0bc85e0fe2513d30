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

from ..source.cache import cache_dir
from ..version import __version__


@functools.cache
def _backend_digest() -> str:
    """A hash of the backends' source files."""
    backend = hashlib.sha256()
    for path in sorted(Path(__file__).parent.rglob("*.py")):
        backend.update(path.read_bytes())
    return backend.hexdigest()


@functools.cache
def _versions() -> str:
    """What compiled code depends on besides its own source: the versions, and the
    backend's own compiled functions that generated code calls (Numba links their
    machine code into each cached graph, so a change to them must not load old code)."""
    return f"{sys.version}|{np.__version__}|{numba.__version__}|{__version__}|{_backend_digest()}"


_STAMP = "nbgraph-backend.digest"


def forget_stale_shared_code(root: Path = Path(__file__).parent) -> None:
    """Delete the backends' own Numba disk cache (below ``root``) when any backend
    source has changed.

    Numba keys a cached function by its own file only, but a shared reduction links in
    the helpers of other files (``pairwise.py``): after an update of those alone it
    would load their old machine code."""
    digest = _backend_digest()
    for folder in root.rglob("__pycache__"):
        stamp = folder / _STAMP
        try:
            if stamp.read_text() == digest:
                continue
        except OSError:
            pass
        try:
            for cached in [*folder.glob("*.nbi"), *folder.glob("*.nbc")]:
                cached.unlink(missing_ok=True)
            tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(digest)
            tmp.replace(stamp)
        except OSError:  # a read-only install: Numba caches elsewhere, by its own rules
            continue


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
