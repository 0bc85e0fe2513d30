"""Every exception and warning nbgraph defines is in the documentation's catalogue."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import nbgraph

CATALOGUE = Path(__file__).resolve().parents[2] / "docs" / "errors.md"


def defined_exceptions() -> dict[str, type[BaseException]]:
    """Each exception or warning class defined in an nbgraph module, by full name
    (private ones, named with a leading underscore, aside)."""
    found = {}
    for module_info in pkgutil.walk_packages(nbgraph.__path__, "nbgraph."):
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == module.__name__
                and not name.startswith("_")
            ):
                found[f"{module.__name__}.{name}"] = value
    return found


def test_every_exception_and_warning_is_in_the_catalogue():
    catalogue = CATALOGUE.read_text()
    exceptions = defined_exceptions()
    assert "nbgraph.errors.exceptions.GraphModeError" in exceptions
    missing = [
        full_name
        for full_name, cls in exceptions.items()
        if f"### {cls.__name__}\n" not in catalogue and f"`{full_name}`" not in catalogue
    ]
    assert not missing, f"add these to {CATALOGUE.name}: {missing}"
