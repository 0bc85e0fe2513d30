"""Timing eager against graph mode: ``nbgraph.compare`` and the ``%compare`` magic."""

from .compare import Comparison, compare

__all__ = ["Comparison", "compare"]
