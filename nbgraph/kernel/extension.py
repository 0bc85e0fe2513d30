"""``%load_ext nbgraph``: the magics, build progress in cells, and line highlights.

Loading registers ``%%autograph``, ``%compare`` and ``%%step``, shows slow builds'
progress in the cell, lets the JupyterLab extension highlight lines, and starts Numba
on a background thread (``backend.warm_up``); loading twice changes nothing, and
unloading undoes it all.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from .. import progress
from ..backend import warm_up
from . import frontend
from .autograph_magic import AutographMagics
from .compare_magic import CompareMagics
from .explain_magic import ExplainMagics
from .progress_display import ProgressDisplay

_loaded: dict[int, ProgressDisplay] = {}


def _magic_classes() -> list[type]:
    classes: list[type] = [AutographMagics, CompareMagics, ExplainMagics]
    try:
        from .step_magic import StepMagics
    except ImportError:  # the step recorder is optional
        return classes
    return [*classes, StepMagics]


def load(shell: Any) -> None:
    """Register nbgraph's magics and displays in ``shell`` (idempotent)."""
    if id(shell) in _loaded:
        return
    for magics in _magic_classes():
        shell.register_magics(magics)
    display = _loaded[id(shell)] = ProgressDisplay()
    progress.add_listener(display)
    frontend.install(shell)
    threading.Thread(target=_warm_up, name="nbgraph-warm-up", daemon=True).start()


def _warm_up() -> None:
    """Numba's start-up, done while the person writes their first cell (should it fail,
    nothing is lost: the first build does it again, and reports what fails)."""
    with contextlib.suppress(Exception):
        warm_up()


def unload(shell: Any) -> None:
    """Remove what ``load`` registered."""
    display = _loaded.pop(id(shell), None)
    if display is None:
        return
    progress.remove_listener(display)
    frontend.uninstall(shell)
    for kind, names in (("cell", ("autograph", "step")), ("line", ("compare",))):
        for name in names:
            shell.magics_manager.magics[kind].pop(name, None)
