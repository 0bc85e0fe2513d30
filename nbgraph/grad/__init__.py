"""Reverse-mode differentiation of graph functions, as a graph transformation."""

from .api import Gradient, grad, value_and_grad

__all__ = ["Gradient", "grad", "value_and_grad"]
