# ruff: noqa
"""np.argmax/np.argmin of a scalar make the CPU backend give up on the whole graph.

Found by the fuzzer as `np.argmax(np.sum(x, axis=0))` on a 1-d x. NumPy returns 0. The
CPU backend fails to compile the graph (Numba: AttributeError: 'Float' object has no
attribute 'dtype') and warns NbgraphPerformanceWarning, running the interpret backend
instead; the test suite makes that warning an error.
"""

import numpy as np


def f(x, s):
    return np.argmax(np.sum(x)), np.argmin(s)


ARGS = (np.array([1.0, 2.0], dtype=np.float64), np.float64(2.0))
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {"cpu": "argmax/argmin of a scalar: the graph falls back to the interpret backend"}
