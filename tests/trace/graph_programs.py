"""Functions the graph-stepping tests record as graphs and eagerly: their lines are the
user's own (this file is outside the Python installation)."""

import numpy as np

import nbgraph as ng


def smooth(v):
    w = v * 0.5
    return w + 0.25


def loop_with_helper(x, n):
    total = 0.0
    for i in range(n):
        y = smooth(x) * i
        if i > 4:
            break
        total += y.sum()
    return total


def writes_into_its_argument(x, n):
    acc = np.zeros(3)
    for i in range(n):
        acc = acc + x[i]
        x[i] = acc[0]
    return acc


def nested_loops(a):
    rows, cols = a.shape
    best = 0.0
    for r in range(rows):
        for c in range(cols):
            best = max(best, a[r, c] * (r + 1))
    return best


def while_halving(v, limit):
    steps = 0
    while v > limit:
        v = v / 2.0
        steps += 1
    return v, steps


def fails_in_a_loop(x, n):
    total = 0.0
    for i in range(n):
        total += x[i]
    return total


def prints_as_it_goes(x):
    s = x.sum()
    print("sum", s)
    m = x.max()
    return s + m


def stops_at_a_breakpoint(x, n):
    total = 0.0
    for i in range(n):
        total = total + x[i]
        if total > 2.5:
            ng.breakpoint()
    return total


PROGRAMS = {
    "loop_with_helper": (loop_with_helper, lambda: (np.arange(3.0), 8)),
    "writes_into_its_argument": (writes_into_its_argument, lambda: (np.arange(4.0), 4)),
    "nested_loops": (nested_loops, lambda: (np.arange(6.0).reshape(2, 3),)),
    "while_halving": (while_halving, lambda: (40.0, 3.0)),
    "prints_as_it_goes": (prints_as_it_goes, lambda: (np.arange(4.0),)),
}
