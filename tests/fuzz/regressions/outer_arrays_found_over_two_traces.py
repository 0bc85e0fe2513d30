# ruff: noqa
"""Arrays a graph loop's body writes from outside, found over two traces, are each carried once.

Found by the fuzzer (this program). A loop whose body writes arrays from outside it is
traced again carrying them; when a second trace found more, checking which were new
compared the arrays with `==`, which staged an elementwise comparison inside the
abandoned trace, and every backend refused with "a value computed inside a staged
branch or loop is used outside it". Eagerly it raises IndexError. Now they are compared
by identity, and views made in an abandoned trace are no longer kept in sync.
"""

import numpy as np


def f(x, y, n, s):
    for i4 in range(n):
        x = np.zeros_like(x, dtype=np.complex128)
        if not True:
            v5 = (abs(x) + x)
            print("k6", v5)
        else:
            v7 = x
            for i8, e9 in enumerate(x):
                v10 = np.std(x[::-1])
                v7 = x
                assert n >= -9 and len(y) > 0
                v12 = np.var(v7)
                print("k13", v10, v12)
        v14 = s
        assert False, f"a15 {n}"
        print("k16", v14)
    v17 = (np.square(x) * y)
    b18 = np.zeros_like(x)
    print("p19", (y - y), np.cos(x))
    b18[-1] += np.complex128(0)
    print("k20", v17, b18)
    return (x + y), x, float((-n))


ARGS = (np.array([], dtype=np.complex128), np.array([], dtype=np.float64), 0, np.inf)
BACKENDS = ('interpret', 'cpu')
