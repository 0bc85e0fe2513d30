"""Conversion of Python functions into code that stages graphs (AutoGraph style)."""

from . import operators  # noqa: F401  (the runtime of converted code registers itself)
