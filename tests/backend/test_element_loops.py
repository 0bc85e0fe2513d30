"""The CPU backend runs counted loops of elementwise updates block by block
(``element_loops``): one pass over memory, a vectorized loop over each block, and
eager's values bit for bit."""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_elementwise_kernels import same_bits, source_of

import nbgraph as ng
from nbgraph.backend.numba_cpu import element_loops

RNG = np.random.default_rng(21)
X = RNG.standard_normal(3 * element_loops.BLOCK + 17) * 0.6


def horner(x, coeffs):
    out = np.zeros_like(x)
    for c in coeffs:
        out = out * x + c
    return out


def logistic(z, r, steps):
    for _ in range(steps):
        z = r * z * (1.0 - z)
    return z


def rotate(a, b, n):
    for k in range(n):
        a, b = 0.8 * a - 0.6 * b, 0.6 * a + 0.8 * b + k * 0.01
    return a, b


def folded(z, lo, hi, n):
    for _ in range(n):
        z = np.where(z > 1.0, z - 1.0, z * 2.0)
        z = np.clip(z, lo, hi) - np.float32(0.125) * z
    return z


def hashes(h, x, n):
    for _ in range(n):
        h = h * 1000003 + (x ^ h)
    return h


CASES = [
    (horner, (X, RNG.standard_normal(9))),
    (horner, (X.astype(np.float32).reshape(-1, 1), RNG.standard_normal(5).astype(np.float32))),
    (logistic, (np.abs(X) % 1.0, 3.7, 50)),
    (rotate, (X, X[::-1].copy(), 30)),
    (folded, (X.astype(np.float32), np.float32(-0.5), np.float32(1.5), 9)),
    (hashes, (np.arange(X.size), np.arange(X.size) * 7919, 12)),
]


@pytest.mark.parametrize("fn, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_block_by_block_with_eagers_bits(fn, args):
    g = ng.function(fn, backend="cpu")
    expected, got = fn(*args), g(*args)
    for e, r in zip(
        expected if isinstance(expected, tuple) else (expected,),
        got if isinstance(got, tuple) else (got,),
    ):
        same_bits(e, r)
    main = source_of(g).split("def graph_function")[1]
    assert re.search(r"= _loop\d+\(", main), "the loop did not take the block path"


def test_the_loop_over_a_block_is_vectorized():
    g = ng.function(horner, backend="cpu")
    g(X, np.ones(3))
    module = next(iter(g.specializations.values())).run.__self__.module
    (name,) = [n for n in dir(module) if re.fullmatch(r"_loop\d+", n)]
    (asm,) = getattr(module, name).inspect_asm().values()
    assert re.search(r"\tv?mulpd\t", asm) and re.search(r"\tv?addpd\t", asm)


def test_one_pass_even_for_many_iterations():
    """A hundred iterations cost about as much as a few: the block stays in the cache
    (checked by counting the kernel's calls, not by timing)."""
    g = ng.function(logistic, backend="cpu")
    z = np.abs(X) % 1.0
    same_bits(logistic(z, 3.7, 100), g(z, 3.7, 100))
    main = source_of(g).split("def graph_function")[1]
    assert main.count("_loop") == 1  # one kernel call for the whole loop


@pytest.mark.parametrize(
    "args",
    [
        (X[::2], np.ones(3)),  # strided
        (X, np.ones(0)),  # no iteration
    ],
    ids=["strided", "empty"],
)
def test_the_loop_as_written_where_the_block_path_cannot_go(args):
    g = ng.function(horner, backend="cpu")
    same_bits(horner(*args), g(*args))


def stepped(x, n):
    for i in range(n):
        x = x * 0.5 + i * 0.001
    return x


def test_a_very_long_loop_stores_no_scalars():
    """Past ``MAX_STORED`` iterations the iterations' scalars are not stored first: the
    loop runs as written (same values)."""
    g = ng.function(stepped, backend="cpu")
    for n in (10, element_loops.MAX_STORED + 3):
        same_bits(stepped(X[:4], n), g(X[:4], n))


def horner_from(x, coeffs):
    """The loop starts from an array it also reads in every iteration."""
    start = x + 1.0
    out = start
    for c in coeffs:
        out = out * start + c
    return out


def horner_keeping_the_start(x, coeffs):
    """The array the loop starts from is returned too."""
    start = np.zeros_like(x) + 0.5
    out = start
    for c in coeffs:
        out = out * x + c
    return out, start


def starts_in_place(g: ng.GraphFunction) -> bool:
    """Whether the block path computes its only state in the array it starts from."""
    return "o0 = c0\n" in source_of(g)


def test_a_fresh_array_the_loop_starts_from_takes_its_values():
    """``out = np.zeros_like(x)`` used only to start the loop: the block path writes
    into it instead of a second new array."""
    g = ng.function(horner, backend="cpu")
    coeffs = RNG.standard_normal(4)
    same_bits(horner(X, coeffs), g(X, coeffs))
    assert starts_in_place(g)


@pytest.mark.parametrize(
    "fn, args",
    [
        (horner_from, (X, np.ones(3))),
        (horner_keeping_the_start, (X, np.ones(3))),
        (logistic, (np.abs(X) % 1.0, 3.7, 5)),
    ],
    ids=["read-in-the-loop", "returned", "argument"],
)
def test_an_array_still_needed_is_not_overwritten(fn, args):
    """An array read inside the loop, used after it, or the caller's keeps its values:
    the loop computes into a new one, and the arguments are left alone."""
    g = ng.function(fn, backend="cpu")
    before = [np.copy(a) for a in args]
    expected, got = fn(*args), g(*args)
    for e, r in zip(
        expected if isinstance(expected, tuple) else (expected,),
        got if isinstance(got, tuple) else (got,),
    ):
        same_bits(e, r)
    for a, b in zip(args, before):
        same_bits(np.asarray(b), np.asarray(a))
    assert not starts_in_place(g)
