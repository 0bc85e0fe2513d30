# ruff: noqa
"""The CUDA backend's refusals of np.roll and np.outer are listed ones.

Found by the fuzzer as `np.sum(np.roll(y, 1))` and `np.conj(np.outer(x, x))`: the CUDA
backend refused them, clearly and before running, but tests/backend/cuda/refusals.py
did not list them. Its "element moves" entry now names np.roll, np.flip, np.diff and
np.outer.
"""

import numpy as np


def f(x, y, n, s):
    v5 = np.sum(np.roll(y, 1))
    print("k6", v5, np.outer(y, y).sum(), np.flip(y)[0], np.diff(y))
    return x


ARGS = (np.array([], dtype=np.float64), np.array([1.0, 2.0], dtype=np.float64), 0, 0.0)
BACKENDS = ('interpret', 'cpu', 'cuda')
