# ruff: noqa
"""A graph loop over an array sees the writes its body makes into that array.

Found by the fuzzer (a loop `for e33 in b31:` whose body writes `b31[i34] = e33` and then
rebinds `b31`). Eagerly, `for e in b` reads each element from the array object when it
gets to it, so a write the body makes into a later element is seen: this prints 1, 2
and 12. Graph mode iterated over the array as it was when the loop began and printed
1, 2 and 3 (interpret and CPU backends). Now each item is read from the loop variable's
current value; a body that both writes into the array and rebinds its name is refused.
"""

import numpy as np


def f(x):
    b = x.copy()
    for e in b:
        b[-1] = e + 10
        print("e", e)
    return b


ARGS = (np.array([1, 2, 3], dtype=np.int64),)
BACKENDS = ("interpret", "cpu", "cuda")
