"""Which code is the user's: one set of folders, asked by tracebacks, the step recorder
and conversion.

Code is *nbgraph's own* when it lies in nbgraph's package, in the folder of the code it
generates, or in a package nbgraph runs the user's code through (Numba, LLVM); code
nbgraph made under the user's file name (converted functions, entry points) is
registered as machinery (``origins``).  Code is a *library's* when it lies in the Python
installation (the standard library, installed packages) or is nbgraph's own.  The rest
is the user's: a notebook cell's or a file's of their own.

- tracebacks hide nbgraph's own frames (a library's stay, as eagerly);
- conversion converts the user's functions and calls libraries' as they are;
- the step recorder steps into the user's code whose lines it can show.
"""

from __future__ import annotations

import linecache
import os
import site
import sys
import sysconfig
import types
from functools import cache
from pathlib import Path

from .cache import cache_dir
from .origins import is_machinery

_PACKAGE = str(Path(__file__).resolve().parents[1])
# Packages whose frames are nbgraph's machinery when nbgraph runs the user's code.
_RUNS_THROUGH = ("numba", "llvmlite")


def _under(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == root or path.startswith(root + os.sep) for root in roots)


@cache  # asked per call while tracing (conversion) and per traceback frame
def _resolved(filename: str) -> str | None:
    try:
        return os.path.realpath(filename)
    except (OSError, ValueError):
        return None


def own_folders() -> tuple[str, ...]:
    """Folders of nbgraph's own code: its package, its generated code and the packages
    it runs the user's code through (those imported so far)."""
    roots = [_PACKAGE, os.path.realpath(cache_dir())]
    for name in _RUNS_THROUGH:
        module = sys.modules.get(name)
        if module is not None and getattr(module, "__file__", None):
            roots.append(os.path.realpath(Path(module.__file__).parent))
    return tuple(roots)


@cache
def _installation() -> tuple[str, ...]:
    """Folders of the Python installation: the standard library and installed packages."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots.update(
        sysconfig.get_paths().get(key, "") for key in ("stdlib", "platstdlib", "purelib", "platlib")
    )
    roots.update(getattr(site, "getsitepackages", lambda: [])())
    roots.add(site.getusersitepackages() if site.ENABLE_USER_SITE else "")
    return tuple(os.path.realpath(root) for root in roots if root)


@cache
def _install_targets(paths: tuple[str, ...], cwd: str) -> tuple[str, ...]:
    """Folders on the import path that pip installed into (they hold a ``*.dist-info``),
    such as ``pip install --target DIR`` put on ``PYTHONPATH``; the current folder is
    left out, as it holds the user's own modules."""
    here = os.path.realpath(cwd)
    found = []
    for entry in paths:
        folder = os.path.realpath(entry) if entry else here
        if folder == here:
            continue
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        if any(name.endswith(".dist-info") for name in names):
            found.append(folder)
    return tuple(found)


def is_own_code(code: types.CodeType) -> bool:
    """Whether ``code`` is nbgraph's own (see the module's docstring)."""
    path = _resolved(code.co_filename)
    return path is not None and _under(path, own_folders())


def is_library_code(code: types.CodeType) -> bool:
    """Whether ``code`` is a library's: the Python installation's or nbgraph's own
    (also a package installed elsewhere: a site-packages folder, or a folder pip
    installed into, on PYTHONPATH)."""
    filename = code.co_filename
    if filename.startswith("<frozen"):
        return True
    path = _resolved(filename)
    if path is None:
        return False
    return (
        _under(path, _installation() + own_folders())
        or any(f"{os.sep}{name}{os.sep}" in path for name in ("site-packages", "dist-packages"))
        or _under(path, _install_targets(tuple(sys.path), os.getcwd()))
    )


def cell_filenames() -> dict[str, int]:
    """IPython's map from a cell's code name to its execution count (empty outside; a
    process that never imported IPython has no shell, and importing it costs 50 ms)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return {}
    shell = ipython.get_ipython()
    return getattr(getattr(shell, "compile", None), "_filename_map", {}) or {}


def is_user_code(code: types.CodeType) -> bool:
    """Whether ``code`` is the user's own: neither a library's nor nbgraph's machinery
    (a graph function runs as one step, like a library call)."""
    if is_machinery(code):
        return False
    return code.co_filename in cell_filenames() or not is_library_code(code)


def shows_lines(code: types.CodeType) -> bool:
    """Whether ``code``'s source lines can be shown (a cell's, or a file's)."""
    filename = code.co_filename
    if filename in cell_filenames():
        return True
    return not filename.startswith("<") and bool(linecache.getlines(filename))
