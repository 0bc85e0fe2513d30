# ruff: noqa
"""np.argmax/np.argmin of a scalar made the CPU backend give up on the whole graph.

Found by the fuzzer as `np.argmax(np.sum(x, axis=0))` on a 1-d x. NumPy returns 0. The
CPU backend failed to compile the graph (Numba: AttributeError: 'Float' object has no
attribute 'dtype') and warns NbgraphPerformanceWarning, running the interpret backend
instead; the test suite makes that warning an error. Fixed: a scalar's argmax is 0.
"""

import numpy as np


def f(x, s):
    return np.argmax(np.sum(x)), np.argmin(s)


ARGS = (np.array([1.0, 2.0], dtype=np.float64), np.float64(2.0))
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {}
