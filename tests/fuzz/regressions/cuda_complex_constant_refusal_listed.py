# ruff: noqa
"""The CUDA backend's refusal of a comparison with a complex constant did not say complex.

Found by the fuzzer as `np.std(y) < v9` where `v9` is a NumPy complex scalar known while
tracing (a constant): the refusal read "cannot run < on (np.float64)", naming neither
the complex operand nor the reason, and was not one of the listed refusals
(tests/backend/cuda/refusals.py). Fixed: a refusal names complex constants among the
operands ("... on (np.float64, complex constant ...)"), a listed refusal. (The CPU
backend's ordering of complex values is open: `cpu_complex_ordering`.)
"""

import numpy as np


def f(y):
    c = np.complex128(np.sign(1.0))
    if np.std(y) < c:
        return y
    return y * 2.0


ARGS = (np.array([0.5, 2.0, 4.0], dtype=np.float64),)
BACKENDS = ("interpret", "cuda")
