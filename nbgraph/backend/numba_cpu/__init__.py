"""The Numba CPU backend: a graph lowered to Python source and compiled by ``numba.njit``."""

from ..generated import forget_stale_shared_code

forget_stale_shared_code()  # before any cached function of this package is loaded

from .compiler import NumbaGraph, warm_up  # noqa: E402

__all__ = ["NumbaGraph", "warm_up"]
