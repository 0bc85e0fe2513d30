# ruff: noqa
"""np.floor(-0.0) is -0.0 on the CUDA backend, as in NumPy.

Found by the fuzzer as `x = np.floor(x)` printed with x = [-0.0]: eager printed [-0.],
the CUDA backend [0.]. Its floor, ceil and trunc took `x - fmod(x, 1.0)`, which is +0.0
for -0.0 and for -0.5, and its rint added 0.5 first (rounding twice near 0.5, and
dropping the sign of -0.4's zero result). They now keep the input's sign on a zero
result and round from the truncation's exact remainder.
"""

import numpy as np


def f(x, y, n, s):
    x = np.floor(x)
    print("k6", x, np.ceil(x - 0.5), np.trunc(x - 0.5), np.rint(x - 0.4))
    return y


ARGS = (np.array([-0.0], dtype=np.float64), np.array([0.0], dtype=np.float32), 0, 0.0)
BACKENDS = ('interpret', 'cpu', 'cuda')
