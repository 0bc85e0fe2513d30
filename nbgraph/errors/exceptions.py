"""Exceptions for what graph mode cannot express.

Each also derives from the built-in type a Python user would expect (NameError for an
undefined variable, TypeError for a type that changes), so ``except TypeError`` keeps
working, and each message names the variable or call, the user's line, and the fix.
"""

from __future__ import annotations

import sys

from ..source.locations import Loc


class GraphModeError(Exception):
    """Base class: the function cannot run as a graph as written."""

    def __init__(self, message: str, loc: Loc | None = None) -> None:
        if loc is not None:
            message = f"{message}\n  (at {source_name(loc.filename)}, line {loc.lineno})"
        super().__init__(message)
        self.loc = loc


def source_name(filename: str) -> str:
    """A notebook cell as IPython names it ("Cell In[3]"), else the file name."""
    shell = sys.modules.get("IPython") and sys.modules["IPython"].get_ipython()
    compiler = getattr(shell, "compile", None)
    named = compiler.format_code_name(filename) if hasattr(compiler, "format_code_name") else None
    return " ".join(named) if named else filename


class ConversionError(GraphModeError, NotImplementedError):
    """The source uses a construct graph mode does not convert (generators, ...)."""


class StagingError(GraphModeError, TypeError):
    """A Python operation was applied to a value only known when the graph runs."""


class LoopTypeError(GraphModeError, TypeError):
    """A variable's dtype or rank differs between paths (branches, loop iterations)."""


class NotDifferentiableError(GraphModeError, TypeError):
    """A gradient has to flow through an operation that has none (at the user's line)."""


class UndefinedValueError(GraphModeError, UnboundLocalError):
    """A variable is used on a path where graph mode cannot give it a value."""


class ArgumentAliasError(GraphModeError, ValueError):
    """The function writes into an argument array that another argument shares memory
    with: graph mode keeps arguments as separate arrays."""


class BreakpointReached(Exception):
    """A graph run reached ``nbgraph.breakpoint()``: the call runs again as Python,
    recorded, and the stepper opens there (never shown to users)."""


class NbgraphPerformanceWarning(UserWarning):
    """Graph mode works but slower than it could (e.g. a backend fell back)."""


class RetracingWarning(UserWarning):
    """A graph function was traced (and compiled) again and again: its message says why
    the last time (``nbgraph.explain`` lists every trace)."""
