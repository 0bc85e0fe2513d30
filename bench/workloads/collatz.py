"""Collatz: total number of steps to reach 1, summed over every start in 1..limit."""

from __future__ import annotations

import functools

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


def make_jax():
    jax, jnp, lax = _jax.load()

    def steps_from(n):
        def cond(state):
            return state[0] != 1

        def body(state):
            m, steps = state
            m = jnp.where(m % 2 == 0, m // 2, 3 * m + 1)
            return m, steps + 1

        return lax.while_loop(cond, body, (n, jnp.int64(0)))[1]

    # The limit fixes the shape, so it is static; the loop over starts is a vmap.
    @functools.partial(jax.jit, static_argnums=0)
    def collatz_total_jax(limit):
        return jnp.sum(jax.vmap(steps_from)(jnp.arange(1, limit + 1, dtype=jnp.int64)))

    return collatz_total_jax


eager = collatz_total
njit = collatz_total_njit


def make_inputs(size: int = 1_000_000):
    return (size,)
