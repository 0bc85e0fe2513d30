"""Viewers of graphs and recordings, registered by name from the top of the package.

The IR and the step recorder sit below the viewer (``nbgraph/viz``), so they name what
shows them ("graph widget", "stepper") and ``nbgraph/__init__.py`` registers where each
lives; the viewer is imported on first use, so ``import nbgraph`` stays light.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

_views: dict[str, str] = {}  # name -> "module:attribute"


def register_view(name: str, target: str) -> None:
    """Show objects of kind ``name`` with ``target``, a "module:attribute" path."""
    _views[name] = target


def view(name: str) -> Callable[..., Any]:
    """The viewer registered as ``name`` (its module imported now if not yet)."""
    try:
        module, attribute = _views[name].split(":")
    except KeyError:
        raise LookupError(f"no viewer registered for {name!r}; import nbgraph") from None
    return getattr(importlib.import_module(module), attribute)
