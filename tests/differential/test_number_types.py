"""A number's Python type after a graph ``if`` or loop is eager's on every path.

Eagerly ``total = 0; for e in x: total += e`` returns the Python int ``0`` when the loop
never runs and a NumPy ``int64`` when it does, and ``t = 0.0; if c: t = x.sum()`` a
Python float or a NumPy float.  A graph value has one static type, so graph mode
tells them apart at run time (``staging/flavors.py``).  The results must match eager's
type exactly (``assert_same`` compares ``type()``): on every path, through arithmetic and
comparisons after the statement, inside returned tuples and dicts, and printed.
Python's ``max``/``min`` return the winning argument as it is, so their type depends
on the run too.  Besides the hand-written programs, a seeded generator mixes Python
and NumPy numbers in loops and branches.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from harness import backend, check, check_program

import nbgraph as ng
from nbgraph.errors.exceptions import LoopTypeError

INTS = np.array([3, -1, 4], dtype=np.int64)
FLOATS = np.array([1.5, -2.0, 0.25])


def sum_of_items(x):
    total = 0
    for e in x:
        total += e
    return total


def mean_and_count(x):
    total = 0.0
    n = 0
    for e in x:
        total += e
        n += 1
    return total, n, total * 2, total > 1, -total


def sum_if_positive(x):
    t = 0.0
    if x.sum() > 0:
        t = x.sum()
    return t, t + 1, {"t": t}


def while_over_indices(x):
    i = 0
    s = 0
    while i < x.shape[0]:
        s = s + x[i]
        i += 1
    return s, i


def branch_then_loop(x, c):
    t = 0
    if c > 0:
        t = np.int64(5)
    for e in x:
        t = t + e
    return t, t == 5


def python_in_one_branch(x):
    r = np.float64(1.0)
    if x[0] > 0:
        r = 2.5
    return r, r * 2, abs(r)


def break_before_first_add(x):
    s = 0
    for e in x:
        if e < 0:
            break
        s += e
    return s


def converted_back_to_python(x):
    s = np.int64(0)
    for _ in x:
        s = int(s) + 1
    return s, s + 1


def nested_loops(x):
    s = 0
    for i in range(x.shape[0]):
        for j in range(i):
            s += x[j]
    return s


def printed_after_loop(x):
    s = 0.0
    for e in x:
        s += e
    print("total", s, [len(x)], s > 1)
    return s


def int_or_float(c):
    return 1 if c > 0 else 2.5


def zero_d_array_or_scalar(x):
    t = x.sum()
    if x[0] > 0:
        t = np.asarray(5.0)
    return t


def max_and_min_keep_the_winner(x, m):
    print(max(x[0] > 0, x[1] > 0), min(m, 2.5), max(m, x[0]))
    return max(m, 2.5), min(x[0] < 0, x[1] < 0), max(m, 1, x[1] > 0)


def two_changing_numbers(x):
    r = 1
    s = 0
    for v in x:
        r += s  # a Python int while s is one: in the first iteration
        s += v
    return r, s


def two_changing_floats(x):
    r, s, i = 0.5, 1.0, 0
    while i < len(x):
        r = r * s - 1.0
        s = x[i] + s
        i += 1
    return r, s


@pytest.mark.parametrize(
    "fn, args",
    [
        (two_changing_numbers, (INTS[:1],)),
        (two_changing_numbers, (INTS[:2],)),
        (two_changing_numbers, (INTS[:0],)),
        (two_changing_floats, (FLOATS[:1],)),
        (two_changing_floats, (FLOATS,)),
        (two_changing_floats, (FLOATS[:0],)),
        (printed_after_loop, (FLOATS,)),
        (printed_after_loop, (FLOATS[:0],)),
        (int_or_float, (np.int64(1),)),
        (int_or_float, (np.int64(-1),)),
        (zero_d_array_or_scalar, (FLOATS,)),
        (zero_d_array_or_scalar, (-FLOATS,)),
        (max_and_min_keep_the_winner, (FLOATS, np.int64(3))),
        (max_and_min_keep_the_winner, (-FLOATS, np.int64(-3))),
        (max_and_min_keep_the_winner, (FLOATS, np.int64(0))),
        (sum_of_items, (INTS,)),
        (sum_of_items, (INTS[:0],)),
        (mean_and_count, (FLOATS,)),
        (mean_and_count, (FLOATS[:0],)),
        (sum_if_positive, (FLOATS,)),
        (sum_if_positive, (-FLOATS,)),
        (while_over_indices, (INTS,)),
        (while_over_indices, (INTS[:0],)),
        (branch_then_loop, (INTS[:0], 1)),
        (branch_then_loop, (INTS[:0], 0)),
        (branch_then_loop, (INTS, 0)),
        (python_in_one_branch, (FLOATS,)),
        (python_in_one_branch, (-FLOATS,)),
        (break_before_first_add, (INTS,)),
        (break_before_first_add, (-INTS,)),
        (converted_back_to_python, (INTS,)),
        (converted_back_to_python, (INTS[:0],)),
        (nested_loops, (INTS,)),
        (nested_loops, (INTS[:1],)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_type_after_statement(fn, args):
    check(fn, *args)


# --- generated programs ---------------------------------------------------------------

_STARTS = ["0.0", "np.float64(0.0)", "1.5", "np.float64(-1.0)"]
_STATEMENTS = [
    "t = t + x[i]",
    "t = t + 1",
    "t = t * 0.5",
    "t = float(t)",
    "t = np.float64(t) - 1",
    "t = -t",
    "t = abs(t)",
    "if x[i] > 0:\n    t = t + x[i]",
    "if x[i] < 0:\n    t = float(t) + 2\nelse:\n    t = t * x[i]",
    "u = t + 2",
    "u = t > 0",
    "t = max(t, x[i])",
    "t = min(t, 1.0)",
    "print(t, t * 2)",
    "t = t + u",
    "u = u * t",
    "u = u + x[i]",
]


def _program(rng: random.Random) -> str:
    lines = ["def f(x, n):", f"    t = {rng.choice(_STARTS)}", f"    u = {rng.choice(_STARTS)}"]
    if rng.random() < 0.5:
        lines += ["    if n > 1:", "        t = x[0] * 2"]
    loop = rng.choice(["for", "while"])
    lines += ["    for i in range(n):"] if loop == "for" else ["    i = 0", "    while i < n:"]
    for statement in rng.sample(_STATEMENTS, rng.randint(1, 3)):
        lines += ["        " + line for line in statement.split("\n")]
    if loop == "while":
        lines.append("        i += 1")
    after = rng.choice(["t", "t + 1", "t * 2.0", "t > 0", "abs(t)", "float(t)"])
    lines.append(f"    print({after})")
    lines.append(f"    return t, u, {after}, [t]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(30))
def test_generated_programs(seed, tmp_path):
    """Each program agrees with eager, types included, for 0, 1 and 3 iterations, or
    is refused with a LoopTypeError before running."""
    check_program(
        _program(random.Random(seed)),
        tmp_path / f"number_types_{seed}.py",
        [(FLOATS, n) for n in (0, 1, 3)],
        allowed=lambda refusal: isinstance(refusal, LoopTypeError),
    )


def type_names(n, a):
    return (
        type(n * 2).__name__,
        type(n * 2.5) is float,
        type(a[0]).__name__,
        type(a) is np.ndarray,
        type(a.sum()) is np.float64,
        type(a[:1]).__name__,
    )


@pytest.mark.parametrize("n", [5, np.int64(5), np.int32(2)], ids=repr)
def test_type_of_graph_values_is_eagers(n):
    check(type_names, n, np.arange(3.0))


def type_after_loop(n):
    t = 0
    for i in range(n):
        t = np.int64(i)
    return type(t).__name__


def test_type_of_a_number_whose_type_depends_on_the_run_is_refused():
    with pytest.raises(ng.StagingError, match=r"type\(\) of a number whose Python type"):
        ng.function(type_after_loop, backend=backend())(3)


def power_of_a_counted_int(n, base):
    k = 0
    for _ in range(n):
        k -= 1
    return base**k, base ** (k + n)


@pytest.mark.parametrize("base", [2, True, -3])
def test_int_to_a_graph_int_power_is_eagers_or_refused_when_negative(base):
    """A Python int to a non-negative power is an int; to a negative power Python gives
    a float, a type the graph has not, so that run is refused (never 0)."""
    check(power_of_a_counted_int, 0, base)
    with pytest.raises(LoopTypeError, match=r"negative int is a float.*2\.0 \*\* k"):
        ng.function(power_of_a_counted_int, backend=backend())(2, base)
