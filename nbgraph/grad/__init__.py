"""Reverse-mode differentiation of graph functions, as a graph transformation."""

from .api import Gradient, grad, value_and_grad
from .check import GradCheck, check_grad

__all__ = ["GradCheck", "Gradient", "check_grad", "grad", "value_and_grad"]
