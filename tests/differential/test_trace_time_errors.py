"""Errors of values known while tracing happen where they happen eagerly.

``1.0 / 0.0``, an index into a list that is empty, a missing dict key or an undefined
name fail while graph mode traces the function, but eager code fails there only when
it gets there: after the prints before it, after a run-time error earlier in the
function (``x[5]``), after a ``raise`` on an earlier path, and only if the loop or the
branch that holds it runs at all; and a ``raise`` in a ``try`` body comes after its
``finally`` clause. Graph mode stages such an error as a raise at its place
(``staging/statements.py``, ``raise_when_run``). Besides hand-written programs,
a seeded generator puts such errors at the top level, in graph loops that run 0, 1 or
3 times and in graph branches, around prints, run-time errors and raises.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from harness import check, check_program

X = np.array([1.5, -2.0, 0.25, 3.0])


def after_a_print(x):
    print("before")
    return x + 1.0 / 0.0


def after_a_runtime_error(x):
    y = x[5]
    v = [][0]
    return y + v


def in_a_loop_that_may_not_run(x, n):
    s = 0.0
    for i in range(n):
        print("iteration", i)
        s += {"a": 1.0}["b"]
    return s


def builtin_error_in_a_loop(x, n):
    items = []
    total = 0.0
    for _ in range(n):
        total += items.pop()
    return total


def after_a_staged_raise(x, n):
    found = []
    for i in range(3):
        if n > 100:
            break
        if i < 5:
            raise ValueError("first")
        found.append(float(n))
    return np.array(found)[0]


def undefined_name_in_a_while(x):
    while x[0] > 10.0:
        x = x + undefined  # noqa: F821
    return x


def raise_in_try_with_finally(x, n):
    print("before")
    try:
        total = x[0] * n
        raise KeyError("always")
    finally:
        print("finally", n)
    return total


def own_error_in_try_with_finally_in_a_loop(x, n):
    s = 0.0
    for i in range(n):
        try:
            s += x[i]
            raise RuntimeError("stop")
        finally:
            print("finally", i, s)
    return s


@pytest.mark.parametrize(
    "fn, args",
    [
        (after_a_print, (X,)),
        (after_a_runtime_error, (X,)),
        (in_a_loop_that_may_not_run, (X, 0)),
        (in_a_loop_that_may_not_run, (X, 2)),
        (builtin_error_in_a_loop, (X, 0)),
        (builtin_error_in_a_loop, (X, 1)),
        (after_a_staged_raise, (X, 1)),
        (after_a_staged_raise, (X, 1000)),
        (undefined_name_in_a_while, (X,)),
        (undefined_name_in_a_while, (X * 10,)),
        (raise_in_try_with_finally, (X, 2)),
        (own_error_in_try_with_finally_in_a_loop, (X, 0)),
        (own_error_in_try_with_finally_in_a_loop, (X, 2)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_error_of_known_values(fn, args):
    check(fn, *args)


# --- generated programs ---------------------------------------------------------------

_ERRORS = ["v = 1.0 / 0.0", "v = [][0]", "v = {'a': 1}['b']", "v = [1.0].pop(3)", "v = 7 // 0"]
_BEFORE = [
    "print('start', x[0])",
    "t = x[k]",
    "if x[0] > 2.0:\n    raise ValueError('big')",
    "s = s + x[0]",
]


def _block(rng: random.Random, depth: int) -> list[str]:
    """Statements that may hold an error of known values, in graph loops and branches."""
    statements: list[list[str]] = []
    for _ in range(rng.randint(1, 2)):
        kind = rng.choice(["plain", "plain", "for", "while", "if"] if depth < 2 else ["plain"])
        if kind == "plain":
            statements.append(rng.choice(_BEFORE).split("\n"))
            continue
        inner = ["    " + line for line in _block(rng, depth + 1)]
        if kind == "for":
            statements.append(["for i in range(n):", *inner])
        elif kind == "while":
            statements.append(["j = 0", "while j < n:", "    j += 1", *inner])
        else:
            statements.append(["if x[1] < 0.0:", *inner])
    if rng.random() < 0.6:
        statements.insert(rng.randint(0, len(statements)), [rng.choice(_ERRORS)])
    return [line for statement in statements for line in statement]


def _program(rng: random.Random) -> str:
    body = ["s = 0.0", *_block(rng, 0), "print('end', s)", "return s"]
    return "def f(x, n, k):\n" + "".join(f"    {line}\n" for line in body)


@pytest.mark.parametrize("seed", range(40))
def test_generated_programs(seed, tmp_path):
    """Each program agrees with eager (values, prints, the error and where it comes)
    for loops that run 0, 1 and 3 times, branches taken or not, and an index in or
    out of bounds."""
    check_program(
        _program(random.Random(seed)),
        tmp_path / f"known_error_{seed}.py",
        [(x, n, k) for x in (X, -X * 2) for n in (0, 1, 3) for k in (1, 9)],
    )
