"""The Numba CPU backend: a graph lowered to Python source and compiled by ``numba.njit``."""

from .compiler import NumbaGraph

__all__ = ["NumbaGraph"]
