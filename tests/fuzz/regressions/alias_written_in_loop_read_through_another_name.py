# ruff: noqa
"""A write in a graph loop through one name of an array is seen through its other name.

`first = b` makes two names of one array. Eagerly a write through `b` inside the loop
is seen by the next `first[k]`: this prints 1, 2, 3, 4 and returns [5 5 5 5] twice.
Graph mode gave the loop's `b` its own value and read `first` as it was before the
loop: it printed 1, 0, 0, 2 and returned [3 3 3 3] (all three backends). Now the array a
loop variable enters with stands in for it while the body is traced, so every name of
the array sees the writes (tests/differential/test_loop_aliases.py covers the family).
On the GPU the element `e`, a view into `b`, also kept the inner loop from writing `b`
in place (it printed 1, 3, 5, 7 once the names agreed).
"""

import numpy as np


def f(x):
    b = x.copy()
    first = b
    for k in range(len(first)):
        e = first[k]
        print("e", e)
        for i in range(len(x)):
            b[i] = e + 1
    return b, first


ARGS = (np.array([1, 0, 0, 2]),)
BACKENDS = ("interpret", "cpu", "cuda")
