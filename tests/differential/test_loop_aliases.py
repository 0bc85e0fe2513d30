"""Two names of one array in a graph loop: a write through either is seen through both.

``first = b`` before a loop makes two names of one array, and ``v = b[1:]`` a view of
it.  Eagerly a write through any of them is seen through the others, until the body
assigns one of the names another array.  Graph mode must agree on every backend: the
result, the printed output and the argument after the call.  (The first program of
the family is tests/fuzz/regressions/alias_written_in_loop_read_through_another_name.py;
two names both written in a loop are in test_argument_writes.py.)  Besides the hand-written
programs, a seeded generator writes small loops from statements that write, read and
rebind the three names.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from harness import check_program, check_writes

from nbgraph.errors.exceptions import NbgraphPerformanceWarning, StagingError


def read_in_condition(x):
    b = x.copy()
    first = b
    i = 0
    while first[0] < 5.0:
        b[0] += 1.0
        i += 1
    return i, first


def rebound_after_writing(x, n):
    b = x.copy()
    first = b
    for i in range(n):
        b[i % 3] += first[(i + 1) % 3]
        b = b * 2
    return first, b


def view_read_while_base_written(x, n):
    b = x.copy()
    v = b[1:]
    s = 0.0
    for i in range(n):
        b[i] += 10.0
        s += v[0]
    return s, v


def view_kept_when_name_rebound(x, n):
    b = x.copy()
    first = b
    v = b[1:]
    for i in range(n):
        print(first[0], b[-1])
        b[i % 4] += 1.0
        first = first + 1.0
    return b, first, v


def element_read_before_inner_loop(x, n):
    first = x
    for k in range(n):
        e = x[k]
        for i in range(len(x)):
            first[i] = e + first[i]
    return x


def write_in_branch_through_alias(x, n):
    b = x
    for k in range(n):
        if x[k] > 1:
            b[k] = -x[k]
        else:
            x[k] = b[k] + 5
    return b.sum()


@pytest.mark.parametrize(
    "fn, args",
    [
        (read_in_condition, (np.zeros(2),)),
        (rebound_after_writing, (np.arange(3.0), 3)),
        (rebound_after_writing, (np.arange(3.0), 0)),
        (view_read_while_base_written, (np.arange(4.0), 3)),
        (view_kept_when_name_rebound, (np.arange(4.0), 3)),
        (element_read_before_inner_loop, (np.arange(4.0), 3)),
        (write_in_branch_through_alias, (np.arange(4.0), 4)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_names_of_one_array(fn, args):
    check_writes(fn, *args)


# --- generated loops ----------------------------------------------------------------

_STATEMENTS = [
    "b[i % 4] += 1.0",
    "first[(i + 1) % 4] = b[i % 4] * 2.0",
    "s += first[i % 4]",
    "s += b.sum()",
    "print(first[0], b[-1], v[0])",
    "b = b * 0.5",
    "first = first + 1.0",
    "first -= 0.25",
    "v[0] += 1.0",
    "s += v[0]",
    "v = v * 2.0",
    "if s > 3.0:\n    b[0] = -1.0",
    "if b[1] > 2.0:\n    first[2] += s\nelse:\n    b = b + first",
    "if s < 1.0:\n    v[1] = b[0] + 1.0",
    "for j in range(2):\n    b[j] = first[j + 1] + s",
    "e = first[i % 4]\nfor j in range(4):\n    b[j] = e + j",
    "v = first[1:]",
    "first = b",
    "b, first = first, b",
    "b = first",
]

# What graph mode may refuse here: a name written in the loop and assigned an array that
# other names keep (a view, another name's array, the argument), or an array made from
# constants that several names share.
_REFUSALS = (
    "writes into its argument",
    "is written into in the loop",
    "writes into the arrays it passes",
    "made from constants while tracing",
    "on one path of the if",
    "reads an array that eager code would see changed",
)


def _program(rng: random.Random) -> str:
    made = rng.choice(["b = x.copy()", "b = x", "b = np.arange(4.0)"])  # the last: a constant
    lines = ["def f(x, n):", "    " + made]
    lines += ["    first = b", "    v = b[1:]", "    s = 0.0"]
    loop = rng.choice(["for", "while"])
    lines += ["    for i in range(n):"] if loop == "for" else ["    i = 0", "    while i < n:"]
    for statement in rng.sample(_STATEMENTS, rng.randint(2, 4)):
        lines += ["        " + line for line in statement.split("\n")]
    if loop == "while":
        lines.append("        i += 1")
    lines.append("    return s, b, first, v")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(40))
def test_generated_loops(seed, tmp_path):
    """Each program agrees with eager for 0, 1 and 3 iterations, or is refused (only
    for writing through a name that the loop points at an array other names keep).  A write
    through both an array and its view in one loop may copy (and warns): that is
    allowed here, where only the values are checked."""
    check_program(
        _program(random.Random(seed)),
        tmp_path / f"aliases_{seed}.py",
        [(np.arange(4.0), n) for n in (0, 1, 3)],
        allowed=lambda refusal: (
            isinstance(refusal, StagingError) and any(r in str(refusal) for r in _REFUSALS)
        ),
        checker=_check_writes_quietly,
    )


def _check_writes_quietly(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NbgraphPerformanceWarning)
        check_writes(fn, *args)
