# ruff: noqa
"""NumPy's float remainder keeps the divisor's sign on a zero on the CPU backend.

Found by the fuzzer as `v2 = (x % s); print(v2)` with x = [0.0], s = -1.0. NumPy's `%`
(np.remainder) returns a zero with the divisor's sign, as Python does (0.0 % -1.0 is
-0.0): eager prints [-0. -0.], the CPU backend printed [0. 0.]. It now calls NumPy's own
remainder loop (`numpy_loops.py`).
"""

import numpy as np


def f(x, s):
    print(x % s)
    return 1.0 / (x % s)


ARGS = (np.array([0.0, 1.0], dtype=np.float64), -1.0)
BACKENDS = ("interpret", "cpu", "cuda")
