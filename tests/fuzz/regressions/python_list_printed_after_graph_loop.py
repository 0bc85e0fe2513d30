# ruff: noqa
"""A Python list extended in a graph loop prints as an internal object.

Found by the fuzzer as `l8.extend([...])` in a loop over `zip(v7, y)`, then
`print(l8)`: eager prints the list, graph mode `<nbgraph.graph.runtime.ConsList object at
0x...>` (the length is right). Fixed: a graph list prints, and formats, as the Python
list it stands for.
"""

import numpy as np


def f(x, n):
    items = [1.0]
    for i in range(n):
        items.extend([2.0, float(i)])
    print(items, len(items))
    return x


ARGS = (np.array([1.0], dtype=np.float64), 2)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {}
