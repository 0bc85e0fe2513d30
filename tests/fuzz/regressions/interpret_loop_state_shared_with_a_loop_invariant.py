# ruff: noqa
"""A loop's array state that starts from a value used elsewhere is copied before the
loop writes into it, on the interpret backend as on the compiled ones.

Found by the fuzzer (a larger program, minimized by hand): `b = x.copy()` inside a loop
over `b`, with an inner loop writing `b[i] = e`. The interpret backend wrote in place
into the array the inner loop started from, which the outer loop still used, and
returned [1 1 1 4] where eager returns [1 0 0 5]; so did the CUDA backend. Both now copy
the loop states the CPU backend copies on entry (`Ownership.copy_on_entry`).

The found program looped over `b` itself; a loop now reads each item from the array's
current value, and a body that writes into that array and then rebinds its name is
refused (`array_written_then_rebound_while_iterated`), so this loops over a copy.
"""

import warnings

import numpy as np

import nbgraph as ng

# The copy on entry is the point here, and the compiled backends warn about it.
warnings.simplefilter("ignore", ng.NbgraphPerformanceWarning)


def f(x):
    b = x.copy()
    for e in b.copy():
        for i in range(len(x)):
            b[i] = e
        b = x.copy()
    b[-1] += 3
    return b


ARGS = (np.array([1, 0, 0, 2]),)
BACKENDS = ("interpret", "cpu", "cuda")
