"""The Numba CPU backend: a graph lowered to Python source and compiled by ``numba.njit``."""

from .compiler import compile_numba

__all__ = ["compile_numba"]
