"""Functions whose graphs the graph-view tests draw."""

import numpy as np


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def nested(x, n):
    total = 0.0
    i = 0
    while i < n:
        if x[i] > 0:
            j = 0
            while j < i:
                total += x[j] * 2.0
                j += 1
        else:
            total -= x[i]
        i += 1
    return total, x.sum()


def medians(x):
    return np.median(x, axis=0) + x.mean(axis=0)


def scaled_item(x, i):
    if i >= 0:
        i = i + 1
    return x[i] * 2


def noisy(x):
    if x.sum() > 0:
        print('a<b> & "q" \\ {x} é', f"{x[0]!r:>6}")
    assert x[0] >= 0, 'tab\there "quoted" <b>'
    return x * 2
