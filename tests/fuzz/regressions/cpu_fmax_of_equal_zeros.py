# ruff: noqa
"""`np.fmax`/`np.fmin` of a zero and a zero of the other sign can give the other sign on the CPU backend.

Found by the fuzzer as `np.fmax(np.where(n > y, n, y), i)` printing `-0.` where eager
printed `0.`. C's fmax leaves the sign of the result of two equal zeros open, and NumPy's
own loops differ: which operand it returns depends on the dtype, the array's length and
the element's place in it (its vector loop and the scalar loop for the rest disagree).
The CPU backend always returns the first operand. The values compare equal; only their
sign, which printing shows, differs.
"""

import numpy as np


def f(y):
    print(np.fmax(y, 0))
    return y


ARGS = (np.array([-0.0, 0.0, 3.0, 10.0, -np.inf], dtype=np.float32),)
BACKENDS = ("interpret", "cpu")
XFAIL = {"cpu": "the sign of fmax/fmin of two zeros follows NumPy's loop blocking"}
SIGNATURE = {"source": r"np\.f(max|min)\(", "kind": "signed zero", "backends": ("cpu",)}
