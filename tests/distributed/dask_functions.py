"""Graph functions the distributed tests run on Dask arrays (an importable module, so
the tests of shipping can check what a process without it can still run)."""

import numpy as np

import nbgraph as ng


def softplus(v):
    """A plain Python helper: converted and inlined into the caller's graph."""
    return np.log1p(np.exp(-np.abs(v))) + np.maximum(v, 0.0)


@ng.function
def scaled(x, y):
    return np.sqrt(np.abs(x)) * 2.0 + y


@ng.function
def halvings(x):
    """Per row: how often its first value halves to at most 1 (a data-dependent loop
    per row), plus the row's sum."""
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        v = x[i, 0]
        n = 0
        while v > 1.0:
            v = v / 2.0
            n += 1
        out[i] = n + x[i].sum()
    return out


@ng.function
def collatz_steps(x):
    """Per element: the length of its Collatz sequence."""
    out = np.zeros(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        n = x[i]
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        out[i] = steps
    return out


@ng.function
def dense(x, w):
    return softplus(x @ w) * 2.0


@ng.function
def lookup(x, table):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = table[x[i]] * 2.0  # the failing line
    return out


@ng.function
def centered(x):
    return x - x.mean(axis=0)


@ng.function
def column_sums(x):
    return x.sum(axis=0)


@ng.function
def add_up(partials):
    return partials.sum(axis=0)


@ng.function
def differences(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0] - 1):
        out[i] = x[i + 1] - x[i]
    return out
