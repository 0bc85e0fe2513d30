# ruff: noqa
"""A write in a graph loop through one name of an array is not seen through its other name.

`first = b` makes two names of one array. Eagerly a write through `b` inside the loop
is seen by the next `first[k]`: this prints 1, 2, 3, 4 and returns [5 5 5 5] twice.
Graph mode gives the loop's `b` its own value and reads `first` as it was before the
loop: it prints 1, 0, 0, 2 and returns [3 3 3 3] (all three backends). After the loop
both names see the writes. Rebinding `b` inside the loop after writing into it loses
the writes for `first` altogether. Until it is fixed: use one name for an array written
in a loop.
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
XFAIL = {
    "interpret": "a write through one name of an array is not seen through the other",
    "cpu": "a write through one name of an array is not seen through the other",
    "cuda": "a write through one name of an array is not seen through the other",
}
SIGNATURE = {"source": r"(\w+) = (\w+)\n[\s\S]*\b(\1|\2)\[[^\]]*\] *[-+*/|&^]?= ", "kind": "different value"}
