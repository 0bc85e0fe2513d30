# ruff: noqa
"""The CPU backend gives +0.0 where NumPy's float remainder gives -0.0.

Found by the fuzzer as `v2 = (x % s); print(v2)` with x = [0.0], s = -1.0. NumPy's `%`
(np.remainder) returns a zero with the divisor's sign, as Python does (0.0 % -1.0 is
-0.0): eager prints [-0. -0.], the CPU backend [0. 0.]. The values compare equal; the
printed output (and anything divided by them) differs. np.fmod, floor division and the
other signed zeros agree.
"""

import numpy as np


def f(x, s):
    print(x % s)
    return 1.0 / (x % s)


ARGS = (np.array([0.0, 1.0], dtype=np.float64), -1.0)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {"cpu": "x % s gives +0.0 where NumPy gives -0.0"}
SIGNATURE = {"source": r"%", "kind": "signed zero"}
