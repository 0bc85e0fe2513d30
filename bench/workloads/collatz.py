"""Collatz: total number of steps to reach 1, summed over every start in 1..limit."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numba

from . import _jax

NAME = "collatz"
DESCRIPTION = "Collatz steps summed over n in 1..10^6 (nested while loop, int arg)"


def collatz_total(limit):
    total = 0
    for n in range(1, limit + 1):
        steps = 0
        m = n
        while m != 1:
            if m % 2 == 0:
                m = m // 2
            else:
                m = 3 * m + 1
            steps += 1
        total += steps
    return total


@numba.njit
def collatz_total_njit(limit):
    total = 0
    for n in range(1, limit + 1):
        steps = 0
        m = n
        while m != 1:
            if m % 2 == 0:
                m = m // 2
            else:
                m = 3 * m + 1
            steps += 1
        total += steps
    return total


def _steps_from(n):
    """Steps from n to 1: a per-element while loop, as in the other variants."""
    _, jnp, lax = _jax.load()

    def cond(state):
        return state[0] != 1

    def body(state):
        m, steps = state
        m = jnp.where(m % 2 == 0, m // 2, 3 * m + 1)
        return m, steps + 1

    return lax.while_loop(cond, body, (n, jnp.int64(0)))[1]


def make_jax():
    """The same algorithm: one start after the other (fori_loop), each running its own
    while loop until it reaches 1."""
    jax, jnp, lax = _jax.load()

    @jax.jit
    def collatz_total_jax(limit):
        def add_start(n, total):
            return total + _steps_from(n)

        return lax.fori_loop(jnp.int64(1), limit + 1, add_start, jnp.int64(0))

    return collatz_total_jax


def make_jax_vmap():
    """A different algorithm: vmap over all starts of one while loop, so every lane
    steps until the longest sequence ends (about 4x the work)."""
    jax, jnp, _ = _jax.load()

    @functools.partial(jax.jit, static_argnums=0)
    def collatz_total_jax_vmap(limit):
        return jnp.sum(jax.vmap(_steps_from)(jnp.arange(1, limit + 1, dtype=jnp.int64)))

    return collatz_total_jax_vmap


def other_baselines() -> dict[str, Callable]:
    jax, _, _ = _jax.load()
    vmapped = make_jax_vmap()
    return {
        "jax, vmap over all starts (a different algorithm: every lane runs to the "
        "longest sequence)": lambda limit: jax.block_until_ready(vmapped(limit))
    }


eager = collatz_total
njit = collatz_total_njit


def make_inputs(size: int = 1_000_000):
    return (size,)
