"""nbgraph's settings in one place: ``nbgraph.config``, each read first from its
environment variable, and changed by assigning its attribute.

* ``run_eagerly`` (``NBGRAPH_RUN_EAGERLY=1``): every graph function calls its Python
  function instead of running its graph, helpers included, so ``pdb``,
  ``breakpoint()`` and ``%%step`` work on it as on any Python code (``%autograph off``
  and ``%autograph on`` in a notebook).  Gradients keep running as graphs: they have no
  Python function of their own.  ``breakpoint()`` in them stops at a pdb prompt, also
  in a Jupyter kernel whose debugger (debugpy) has no client attached, where it would
  do nothing.
* ``check_numerics`` (``NBGRAPH_CHECK_NUMERICS=1``): every graph function's call whose
  results hold a NaN or an infinity raises ``FloatingPointError`` at the line that made
  the first of them from finite values (``nbgraph.function(f, check_numerics=True)``
  and ``%%autograph --check-numerics`` for one function; see
  ``backend/failures/numerics.py``).

* ``background_compile`` (on unless ``NBGRAPH_BACKGROUND_COMPILE=0``): on the CPU
  backend, a graph of array work that the disk cache lacks runs its first call on the
  interpreter (about as fast as eager NumPy) and compiles after it on a background
  thread, which the next call waits for (``backend/numba_cpu/tiers.py``); off, every
  first call waits for the compile.

Read where they act, and listed with these in the README's "Settings":
``NBGRAPH_TRACEBACK=full`` (tracebacks keep nbgraph's own frames, ``errors/frames.py``)
and ``NBGRAPH_CACHE_DIR`` (where compiled graphs live, ``source/cache.py``); build and
retrace messages go to the ``nbgraph`` logger.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


class Config:
    """The settings (see the module docstring)."""

    def __init__(self) -> None:
        self.run_eagerly: bool = _flag("NBGRAPH_RUN_EAGERLY")
        self.check_numerics: bool = _flag("NBGRAPH_CHECK_NUMERICS")
        self.background_compile: bool = os.environ.get(
            "NBGRAPH_BACKGROUND_COMPILE", "1"
        ).strip().lower() not in ("0", "false", "no", "off")

    def __repr__(self) -> str:
        return (
            f"nbgraph.config(run_eagerly={self.run_eagerly}, "
            f"check_numerics={self.check_numerics}, "
            f"background_compile={self.background_compile})"
        )


config = Config()
# How graph functions called now run, when not as graphs: True, as their Python
# functions (``eagerly``); a callable, through it (a step recording's, ``recording_calls``).
_call_mode: ContextVar[Any] = ContextVar("nbgraph_call_mode", default=None)


def call_mode() -> Any:
    """None where graph functions called now run as graphs; True where they run their
    Python functions (``run_eagerly``, ``f.eager``); else the callable that runs them
    (``call(graph_function, args, kwargs)``), set by ``recording_calls``."""
    return True if config.run_eagerly else _call_mode.get()


@contextmanager
def eagerly() -> Iterator[None]:
    """Graph functions called inside run their Python functions (``f.eager``)."""
    with _calls(True):
        yield


@contextmanager
def recording_calls(call: Callable[[Any, tuple, dict], Any] | None) -> Iterator[None]:
    """Graph functions called inside run as ``call(graph_function, args, kwargs)``
    (None: as graphs again, inside such a call)."""
    with _calls(call):
        yield


@contextmanager
def _calls(mode: Any) -> Iterator[None]:
    token = _call_mode.set(mode)
    try:
        yield
    finally:
        _call_mode.reset(token)


def call_as_python(fn: Callable, args: tuple, kwargs: dict) -> object:
    """``fn(*args, **kwargs)``, where ``breakpoint()`` stops at a pdb prompt (see the
    module docstring)."""
    hook = sys.breakpointhook
    if getattr(hook, "__name__", "") != "debugpy_breakpointhook" or _debugger_attached():
        return fn(*args, **kwargs)
    sys.breakpointhook = _pdb_here
    try:
        return fn(*args, **kwargs)
    finally:
        sys.breakpointhook = hook


def _debugger_attached() -> bool:
    debugpy = sys.modules.get("debugpy")  # imported: its hook is installed
    return debugpy is not None and bool(debugpy.is_client_connected())


def _pdb_here(*args: object, **kwargs: object) -> None:
    """IPython's pdb (a kernel runs IPython) stopped in the frame of breakpoint()."""
    stop_in(sys._getframe(1))


def stop_in(frame: types.FrameType) -> None:
    """Stop in ``frame`` as ``breakpoint()`` there would: in the attached debugger,
    else at IPython's pdb prompt."""
    if _debugger_attached() and sys.breakpointhook is not _pdb_here:
        sys.breakpointhook()
        return
    from IPython.core.debugger import Pdb

    Pdb().set_trace(frame)
