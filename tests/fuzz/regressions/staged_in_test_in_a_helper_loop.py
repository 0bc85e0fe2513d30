# ruff: noqa
"""A helper with `x in (0, 1, 3)` on a staged value inside its loops, called in a graph loop, runs.

Found by the fuzzer (minimized from a larger program): graph mode refuses `f` with "a
value computed inside a staged branch or loop is used outside it without being
assigned to a variable there", a refusal before running where eager runs (the loop
over the empty `x` does not run at all). The helper's `in` test on a staged value,
inside a while loop inside a for loop, is what the tracer lost track of: the loop was
traced again carrying arrays its body writes, and a view made in the abandoned trace was
still kept in sync with its array. Views of abandoned traces are now left alone.
"""

import numpy as np


def h0(a0_0, a0_1):
    if len(a0_1) > 2:
        pass
    elif len(a0_1) > 2:
        for i2, e3 in enumerate(a0_1):
            w4 = 0
            while w4 < 2 and np.any(a0_1 > e3):
                w4 += 1
                a0_1 = a0_1 if np.isfinite(w4) in (0, 1, 3) else a0_1
    elif np.any(a0_1 > a0_0):
        v8 = np.float32(0.0) if np.all(a0_1[:-1] < a0_0) else np.float32(a0_0 == a0_0)
    return a0_1


def f(x, y, n, s):
    for i18 in range(len(x)):
        v19 = np.where(h0(np.int64(n), x) > y, h0(np.int64(n), x), y)
    return y


ARGS = (np.array([], dtype=np.int64), np.array([], dtype=np.float32), 5, 2.0)
BACKENDS = ("interpret", "cpu")
