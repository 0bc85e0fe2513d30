# ruff: noqa
"""The CUDA backend's refusal of a conversion to complex says so, and is a listed one.

Found by the fuzzer as `x.astype(np.complex128)` of a float64 array: the CUDA backend
refused it as "cannot run astype on (float64 1-d array)", which named no complex number
and matched no entry of tests/backend/cuda/refusals.py. The message now names the
complex result ("giving complex128 1-d array"), the complex-arithmetic entry.
"""

import numpy as np


def f(x):
    y = x.astype(np.complex128)
    return y * 2, np.asarray(x, dtype=complex)


ARGS = (np.array([1.5, -2.0, 0.0]),)
BACKENDS = ("interpret", "cpu", "cuda")
