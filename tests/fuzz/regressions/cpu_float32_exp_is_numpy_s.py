# ruff: noqa
"""np.exp of a small float32 array gives NumPy's last bit on the CPU backend.

Found by the fuzzer as `np.exp(np.power(x, x))` printed with x = [0.0] float32: eager
printed [2.718282], the CPU backend [2.7182817]. Groups under 16384 elements ran
compiled, calling the C library's expf; NumPy uses its own SIMD loop, which differs in
the last bit for 39% of float32 inputs (5% for float64; tanh 20%). Compiled code now
calls NumPy's float32 and float64 loops of its transcendental ufuncs, one element at a
time (`numpy_loops.py`).
"""

import numpy as np


def f(x, y, n, s):
    v2 = np.exp(np.power(x, x))
    print("k4", v2, np.tanh(x + 0.7)[0], np.exp(s * 3.0))
    return x, v2


ARGS = (np.array([0.0], dtype=np.float32), np.array([0.0], dtype=np.float64), 0, 0.0)
BACKENDS = ('interpret', 'cpu')
