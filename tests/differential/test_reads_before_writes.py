"""A value computed from an array before the array is written keeps the old elements.

Compiled backends fuse elementwise chains into one loop at the last operation's place,
and fold a reduction's operand into the reduction; neither may move a read of an array
past a write into it.  Each function computes from ``x`` (an argument written into, or a
fresh array), writes ``x`` (an element, a slice, an augmented operator, a loop, a branch),
and only then uses what it computed.
"""

from __future__ import annotations

import numpy as np
import pytest
from harness import check_writes


def element_then_sum(x):
    before = -x
    x[0] = 0.5
    return before + x


def augmented_then_sum(x):
    doubled = x * 2.0
    x += 1.0
    return doubled + x


def reduced_after_write(x):
    squares = x * x
    x[1] = 10.0
    return np.sum(squares), np.max(np.abs(squares - 1.0))


def reduced_once(x):
    squares = x * x
    x[1] = 10.0
    return np.sum(squares)


def sorted_after(x):
    negated = -x
    x.sort()
    return negated * 2.0 + x


def ufunc_out_after(x):
    old = x + 1.0
    np.multiply(x, 3.0, out=x)
    return old * 2.0


def view_read_then_base_written(x):
    v = x[1:]
    old = v * 2.0
    x[2] = -5.0
    return old + 1.0, v + 0.0


def slice_write_then_use(x):
    shifted = np.sqrt(x + 1.0)
    x[1:] = 0.0
    return shifted * 2.0


def written_in_a_loop(x, n):
    old = x * 3.0
    for i in range(n):
        x[i] = i
    return old - x


def written_in_a_branch(x, flag):
    old = np.abs(x) + 1.0
    if flag:
        x[:] = 7.0
    else:
        x *= 0.5
    return old / 2.0, np.sum(old * x)


def fresh_array(x):
    y = x + 1.0
    scaled = y * 2.0
    y[0] = 100.0
    return np.exp(scaled) - y


def inside_a_loop(x, n):
    total = 0.0
    y = x.copy()
    for i in range(n):
        old = y + 1.0
        y[i] = -1.0
        total += np.sum(old * 2.0)
    return total, y


def printed(x):
    neg = -x
    x[0] = 0.5
    print(x, neg + x)
    return np.sum(x)


CASES = [
    (element_then_sum, (np.arange(4.0),)),
    (augmented_then_sum, (np.arange(4.0),)),
    (reduced_after_write, (np.linspace(0.0, 1.0, 9),)),
    (reduced_once, (np.arange(4.0),)),
    (sorted_after, (np.array([3.0, -1.0, 2.0]),)),
    (ufunc_out_after, (np.arange(4.0),)),
    (view_read_then_base_written, (np.arange(5.0),)),
    (slice_write_then_use, (np.arange(5.0),)),
    (written_in_a_loop, (np.arange(6.0), 4)),
    (written_in_a_branch, (np.arange(-2.0, 3.0), True)),
    (written_in_a_branch, (np.arange(-2.0, 3.0), False)),
    (fresh_array, (np.linspace(-1.0, 1.0, 7),)),
    (inside_a_loop, (np.arange(5.0), 3)),
    (printed, (np.array([0.0]),)),
]


@pytest.mark.parametrize(
    "fn, args", CASES, ids=lambda v: getattr(v, "__name__", None) or str(type(v).__name__)
)
def test_values_computed_before_a_write_keep_the_old_elements(fn, args):
    check_writes(fn, *args)
