"""Per-call overhead: a trivial function on a scalar float and on a 1-element array."""

from __future__ import annotations

import numba
import numpy as np

from . import _jax

NAME = "overhead"
DESCRIPTION = "per-call overhead of x + 1"


def add_one(x):
    return x + 1


@numba.njit
def add_one_njit(x):
    return x + 1


def make_jax():
    jax, _, _ = _jax.load()
    return jax.jit(add_one)


eager = add_one
njit = add_one_njit


def make_inputs_scalar():
    return (1.5,)


def make_inputs_array():
    return (np.array([1.5]),)
