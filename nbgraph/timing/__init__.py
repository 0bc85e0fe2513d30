"""Timing eager against graph mode: ``nbgraph.compare`` and the ``%compare`` magic."""

from .compare import Comparison, compare, compare_call

__all__ = ["Comparison", "compare", "compare_call"]
