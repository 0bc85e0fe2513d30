# ruff: noqa
"""A write in a graph loop through a name then rebound is lost for another name of the array.

`first = b` makes two names of one array. Eagerly the first iteration writes into it
through `b` before `b` is rebound, so `first[k]` reads the written values: this prints
1, 2, 2, 2 and returns `first` as [2 2 2 2]. Graph mode treats the write as an update
of `b`'s value alone, so `first` keeps [1 0 0 2] (interpret and CPU backends). Until it is
fixed: write into a copy (`b = b.copy()` before the loop).
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
        b = x.copy()
    return b, first


ARGS = (np.array([1, 0, 0, 2]),)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {
    "interpret": "the write through one name is lost for the other name of the array",
    "cpu": "the write through one name is lost for the other name of the array",
    "cuda": "the write through one name is lost for the other name of the array",
}
SIGNATURE = {"source": r"(\w+) = (\w+)\n[\s\S]*\b\2\[[^\]]*\] *[-+*/|&^]?= [\s\S]*\b\2 = ", "kind": "any"}
