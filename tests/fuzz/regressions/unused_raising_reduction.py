# ruff: noqa
"""An unused reduction that raises eagerly must raise in graph mode too.

Eager: `np.max(x)` of an empty array raises ValueError (zero-size array to reduction
operation maximum which has no identity). Dead-code elimination used to drop the unused
node, so graph mode (every backend) returned 1.0; fixed in a72bdf7.
"""

import numpy as np


def f(x):
    v = np.max(x)
    return 1.0


ARGS = (np.array([], dtype=np.float64),)
BACKENDS = ("interpret", "cpu", "cuda")
