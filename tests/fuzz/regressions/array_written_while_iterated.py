# ruff: noqa
"""A graph loop over an array reads the array as it was, not the writes its body makes.

Found by the fuzzer (a loop `for e33 in b31:` whose body writes `b31[i34] = e33` and then
rebinds `b31`). Eagerly, `for e in b` reads each element from the array object when it
gets to it, so a write the body makes into a later element is seen: this prints 1, 2
and 12. Graph mode iterates over the array as it was when the loop began and prints
1, 2 and 3 (interpret and CPU backends). Until it is fixed: `for i in range(len(b))`
with `e = b[i]` reads the current array.
"""

import numpy as np


def f(x):
    b = x.copy()
    for e in b:
        b[-1] = e + 10
        print("e", e)
    return b


ARGS = (np.array([1, 2, 3], dtype=np.int64),)
BACKENDS = ("interpret", "cpu")
XFAIL = {
    "interpret": "a loop over an array does not see the writes its body makes into it",
    "cpu": "a loop over an array does not see the writes its body makes into it",
}
SIGNATURE = {"source": r"for (\w+) in (\w+):[\s\S]*\b\2\[[^\]]*\] *[-+*/|&^]?= ", "kind": "any"}
