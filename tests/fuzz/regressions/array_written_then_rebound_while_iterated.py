# ruff: noqa
"""A graph loop over an array whose body writes into it and then rebinds its name is refused.

Found by the fuzzer in this shape. Eagerly `for e in b` goes on reading the array object
it started with, although the name `b` names another array after the first iteration, so
the writes the first iteration made are seen by later ones: this prints 1, 2, 2, 2.
Graph mode cannot follow an array that no name holds, so it refuses (StagingError, naming
the loop and the fix) on every backend. Until it is supported: give the new array
another name, or loop over `range(len(b))`.
"""

import numpy as np


def f(x):
    b = x.copy()
    for e in b:
        print("e", e)
        for i in range(len(x)):
            b[i] = e + 1
        b = x.copy()
    return b


ARGS = (np.array([1, 0, 0, 2]),)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {
    "interpret": "refused: a loop over an array whose body writes into it and rebinds its name",
    "cpu": "refused: a loop over an array whose body writes into it and rebinds its name",
    "cuda": "refused: a loop over an array whose body writes into it and rebinds its name",
}
SIGNATURE = {"source": r"for [\w, ]+ in (?:enumerate\(|zip\([^)\n]*?)?(\w+)[^:\n]*:[\s\S]*\b\1\[[^\]]*\] *[-+*/|&^]?= [\s\S]*\b\1 = ", "kind": "refused"}
