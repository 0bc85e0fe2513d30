"""A variable first assigned inside a graph loop behaves as it does eagerly.

Eagerly, a variable assigned only in a loop body (or only on one path of an ``if`` in
it) has the body's last value after the loop, and a use where it was never assigned
(the loop did not run, the ``if`` never held) raises UnboundLocalError at that use.
Graph mode carries such a variable with a flag saying whether it has a value yet, and
checks the flag where the variable is used (``staging/flavors.py``).  Besides the
hand-written programs, a seeded generator assigns, reads and returns such variables
in ``for`` and ``while`` loops with ``if``, ``break`` and prints.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from harness import check, check_program

from nbgraph.errors.exceptions import LoopTypeError, UndefinedValueError

X = np.array([1.5, -2.0, 0.25, 3.0])


def used_after_for(x, n):
    for i in range(n):
        y = x * i
    return y + 1


def used_after_while(x):
    while x > 0:
        y = x + 2
        x -= 1
    return y


def loop_target_after_loop(n):
    s = 0
    for i in range(n):
        s = s * 10 + i
    return i, s


def assigned_on_one_path(x):
    for v in x:
        if v > 1:
            last = v
    return last


def found_with_break_and_else(x):
    for v in x:
        if v > 1:
            found = v
            break
    else:
        found = -1.0
    return found


def read_from_an_earlier_iteration(x):
    s = 0.0
    for v in x:
        if v == x[0]:
            t = 0.0
        else:
            t += 1.0
        s = s * 10 + t
    return s


def printed_after_loop(x, n):
    for i in range(n):
        y = x[i] * 2
    print("y", y)
    return 1


def unused_after_loop(x, n):
    s = 0.0
    for i in range(n):
        y = x * i
        s += y[0]
    return s


def constants_made_in_the_loop(n):
    i = 0
    while i < n:
        zeros = np.zeros(3)  # the same array every iteration: a constant while tracing
        scale = 2.5
        i += 1
    return zeros, scale


def constant_made_on_one_path(x):
    for v in x:
        if v > 1:
            hit = np.ones(2, np.int32)
    return hit


@pytest.mark.parametrize(
    "fn, args",
    [
        (constants_made_in_the_loop, (np.int64(2),)),
        (constants_made_in_the_loop, (np.int64(0),)),
        (constant_made_on_one_path, (X,)),
        (constant_made_on_one_path, (-X,)),
        (used_after_for, (X, 3)),
        (used_after_for, (X, 0)),
        (used_after_while, (np.int32(2),)),
        (used_after_while, (np.int32(0),)),
        (loop_target_after_loop, (np.int64(2),)),
        (loop_target_after_loop, (np.int64(0),)),
        (assigned_on_one_path, (X,)),
        (assigned_on_one_path, (-X,)),
        (found_with_break_and_else, (X,)),
        (found_with_break_and_else, (-X,)),
        (read_from_an_earlier_iteration, (X,)),
        (read_from_an_earlier_iteration, (X[:0],)),
        (printed_after_loop, (X, 2)),
        (printed_after_loop, (X, 0)),
        (unused_after_loop, (X, 0)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_variable_first_assigned_in_loop(fn, args):
    check(fn, *args)


def name_of_outer_array(x, n):
    for _ in range(n):
        y = x
    x[0] = 100.0
    return y


def view_of_outer_array(x, n):
    for i in range(n):
        v = x[i:]
    x[-1] = 100.0
    return v


def name_of_outer_array_in_branch(x, n):
    for i in range(n):
        if i > 0:
            y = x
    x[0] = 100.0
    return y


@pytest.mark.parametrize(
    "fn", [name_of_outer_array, view_of_outer_array, name_of_outer_array_in_branch]
)
def test_alias_first_assigned_in_loop_is_refused(fn):
    """Another name or a view of an array from outside the loop is not carried (the
    loop would detach it from that array): its use after the loop is refused."""
    try:
        check(fn, X.copy(), 2)
    except AssertionError as failure:
        assert isinstance(failure.__cause__, UndefinedValueError), failure
    else:
        raise AssertionError(f"{fn.__name__}: expected a refusal")


# --- generated programs ---------------------------------------------------------------

_STATEMENTS = [
    "y = x[i] * 2.0",
    "if x[i] > 0:\n    y = x[i]",
    "if x[i] < 0:\n    y = -x[i]\n    break",
    "z = x[i] + 1.0",
    "if x[i] > 1:\n    s += y",
    "s += 1.0",
    "w = x[: i + 1] * 2.0",
    "if s > 2.0:\n    z = s",
    "if x[i] > 0:\n    if s > 1.0:\n        y = s\n    s += 0.5",
]
_ENDINGS = [
    "return y",
    "return s, z",
    "return w.sum()",
    "if s > 1.0:\n    return y\nreturn s",
    "print('after', y)\nreturn s",
    "return s",
]


def _program(rng: random.Random) -> str:
    lines = ["def f(x, n):", "    s = 0.0"]
    loop = rng.choice(["for", "while"])
    lines += ["    for i in range(n):"] if loop == "for" else ["    i = 0", "    while i < n:"]
    if loop == "while":
        lines.append("        i += 1")  # first, so a break cannot skip it
    body = rng.sample(_STATEMENTS, rng.randint(1, 3))
    if loop == "while":
        body = [b.replace("x[i]", "x[i - 1]").replace("x[: i + 1]", "x[:i]") for b in body]
    for statement in body:
        lines += ["        " + line for line in statement.split("\n")]
    # An ending reads only names the body assigns (another name would be a global).
    assigned = set(re.findall(r"\b([yzw]) = ", "\n".join(body)))
    endings = [e for e in _ENDINGS if set(re.findall(r"\b([yzw])\b", e)) <= assigned]
    lines += ["    " + line for line in rng.choice(endings).split("\n")]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(30))
def test_generated_programs(seed, tmp_path):
    """Each program agrees with eager (its value, or UnboundLocalError at the same
    use) for 0, 1 and 3 iterations and for inputs of either sign, or is refused with a
    LoopTypeError before running."""
    check_program(
        _program(random.Random(seed)),
        tmp_path / f"loop_defined_{seed}.py",
        [(x, n) for x in (X, -X) for n in (0, 1, 3)],
        allowed=lambda refusal: isinstance(refusal, LoopTypeError),
    )
