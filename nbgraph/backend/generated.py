"""Generated source as importable modules in a cache folder.

The source goes to a file named by its hash (plus Python, NumPy, Numba and nbgraph
versions and the backend's own source), so Numba's own ``cache=True`` can reuse the
machine code in a new process.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.util
import os
import sys
import types
import uuid
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


def stable_key(value: Any) -> str | None:
    """Text that names ``value`` the same way in every process and differently from any
    value that behaves otherwise, or None where there is none: numbers, strings,
    dtypes, containers of them, functions found by their module and name, and objects
    with a ``cache_key()`` method (returning such text or None)."""
    own = getattr(type(value), "cache_key", None)  # (the type's: a traced value's
    if callable(own) and not isinstance(value, type):  # attributes raise while tracing)
        return own(value)
    if value is None or type(value) in (bool, int, float, complex, str, bytes, range, slice):
        return f"{type(value).__name__}:{value!r}"
    if type(value) in (tuple, list, frozenset):
        items = (
            sorted(map(stable_key, value), key=str)
            if type(value) is frozenset
            else map(stable_key, value)
        )
        parts = list(items)
        return None if None in parts else f"{type(value).__name__}({','.join(parts)})"
    if type(value) is dict:
        parts = [(stable_key(k), stable_key(v)) for k, v in value.items()]
        if any(None in pair for pair in parts):
            return None
        return "dict(" + ",".join(f"{k}={v}" for k, v in parts) + ")"
    if isinstance(value, types.ModuleType):
        return f"module:{value.__name__}" if sys.modules.get(value.__name__) is value else None
    if isinstance(value, np.dtype):
        return f"dtype:{value.str}"
    if isinstance(value, np.generic):
        return f"{value.dtype.str}:{value!r}"
    if isinstance(value, numba.types.Type):
        return f"numba:{value}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = _importable(type(value))
        fields = stable_key(tuple(getattr(value, f.name) for f in dataclasses.fields(value)))
        return None if kind is None or fields is None else f"{kind}{fields}"
    return _importable(value)


def _importable(value: Any) -> str | None:
    """``module.qualname`` of a function or class that this name finds again."""
    if isinstance(value, np.ufunc):
        return f"ufunc:{value.__name__}" if getattr(np, value.__name__, None) is value else None
    if not callable(value):
        return None
    try:
        target = getattr(value, "py_func", value)  # (a Numba dispatcher: its function)
        module, qualname = target.__module__, target.__qualname__
    except Exception:  # (another object: a traced value raises on any attribute)
        return None
    if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
        return None
    found: Any = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if found is not value:
        return None
    code = getattr(target, "__code__", None)  # (a function edited since: another key)
    if code is None:
        return f"ref:{module}.{qualname}"
    return f"ref:{module}.{qualname}:{_code_digest(code).hexdigest()[:16]}"


def _code_digest(code: types.CodeType) -> Any:
    """A hash of a function's bytecode and constants (nested functions' code included)."""
    digest = hashlib.sha256(code.co_code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            digest.update(_code_digest(const).digest())
        else:
            digest.update(repr(const).encode())
    return digest


def _objects_key(objects: dict[str, Any]) -> str:
    """What the compiled code takes from ``objects`` besides the source: their stable
    keys, or a key of this process alone where one has none (that module is then never
    shared: another graph of the same source would call its objects instead)."""
    keys = []
    for name in sorted(objects):
        key = stable_key(objects[name])
        keys.append(f"{name}={key if key is not None else f'unique:{uuid.uuid4().hex}'}")
    return "\n".join(keys)


def load_source(text: str, objects: dict[str, Any], prefix: str = "graph") -> ModuleType:
    """The module with this source and these objects in its namespace (imported once
    per process).

    Compiled code reads the objects by name, and Numba's disk cache keys a function by
    its file alone: the file's name hashes the objects' keys too, so two graphs whose
    source reads alike but which call different functions or constants (``print(x)``
    and ``print("x is", x)`` both call back into Python as ``_py0(v0)``) get modules and
    machine code of their own."""
    key = text + _versions() + _objects_key(objects)
    digest = hashlib.sha256(key.encode()).hexdigest()[:24]
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
