# ruff: noqa
"""An item assignment that fails, in a branch a graph loop never takes, was raised while
tracing.

Found by the fuzzer in this shape: `items` has one item, so `items[1] = 0.5` under
`if len(items) > 1:` never runs eagerly. In a graph loop over `range(n)` the branch is
traced anyway, and the IndexError the assignment raised there came out at once (every
backend). Fixed: the assignment is the user's own statement (nbgraph's setitem only
passes it on), so its error is staged to be raised if the branch runs.
"""

import numpy as np


def f(x, n):
    if np.any(x > 0):
        items = [float(np.sum(x))]
        for i in range(n):
            if len(items) > 1:
                items[1] = 0.5
        print(items)
    return x


ARGS = (np.array([1.0, 2.0], dtype=np.float64), 3)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {}
