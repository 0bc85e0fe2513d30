"""Which code is the user's own: the code a recording steps into.

A notebook cell's code and files outside the Python installation are the user's; the
standard library, installed packages and nbgraph itself are not, and a recording runs
through them without recording their lines (the user's functions they call back into
are recorded again).
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


@cache
def _library_roots() -> tuple[str, ...]:
    """Folders whose files are not the user's code."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             str(Path(__file__).resolve().parents[1])}  # nbgraph itself
    roots.update(sysconfig.get_paths().get(key, "") for key in
                 ("stdlib", "platstdlib", "purelib", "platlib"))
    roots.update(getattr(site, "getsitepackages", lambda: [])())
    from ..backend.generated import cache_dir

    roots.add(str(cache_dir()))  # compiled graphs' generated modules
    roots.add(site.getusersitepackages() if site.ENABLE_USER_SITE else "")
    return tuple(os.path.realpath(root) + os.sep for root in roots if root)


def cell_filenames() -> dict[str, int]:
    """IPython's map from a cell's code name to its execution count (empty outside)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return {}
    shell = get_ipython()
    return getattr(getattr(shell, "compile", None), "_filename_map", {}) or {}


def is_user_code(code: types.CodeType) -> bool:
    """Whether a recording steps into ``code``: a cell's or a file's outside the Python
    installation, and whose source lines can be shown."""
    from ..errors.origins import is_machinery

    if is_machinery(code):  # a graph function runs as one step, like a library call
        return False
    filename = code.co_filename
    if filename in cell_filenames():
        return True
    if filename.startswith("<") or not linecache.getlines(filename):
        return False
    path = os.path.realpath(filename)
    return not path.startswith(_library_roots())
