"""Functions the recorder tests record: the user's own code (this file is outside the
Python installation)."""

import numpy as np


def scale(v, k):
    w = v * k
    return w


def caller(a):
    b = scale(a, 2)
    c = b + 1
    return c


def branches(n):
    total = 0
    for i in range(n):
        x = i * 3
        if x % 2:
            total += x
        else:
            total -= 1
    return total


def counting_down(n):
    k = n
    while k > 0:
        k -= 2
    return k


def with_calls(a, n):
    s = 0.0
    for i in range(n):
        s += abs(float(a[i % len(a)])) ** 0.5
    return s


def fills(n):
    out = np.zeros(n)
    for i in range(n):
        out[i] = i * 0.5
    return out


def accumulates(rows):
    acc = np.zeros(3)
    for row in rows:
        acc += row
    return acc


def calls_helper(n):
    total = 0
    for i in range(n):
        total += square(i)
    return total


def square(v):
    return v * v


def stops_early(n, limit):
    total = 0
    for i in range(n):
        total += i
        if total > limit:
            break
    return total


def fails_late(n):
    total = 0.0
    for i in range(n):
        total += 1.0 / (n - 1 - i)
    return total


def prints(n):
    for i in range(n):
        print("i =", i)
    return n


def nested(n, m):
    grid = []
    for i in range(n):
        row = 0
        for j in range(m):
            row += i * j
        grid.append(row)
    return grid


def squares(n):
    for i in range(n):
        yield i * i


def sums_squares(n):
    s = 0
    for v in squares(n):
        s += v
    return s


def catches(n):
    bad = 0
    for i in range(n):
        try:
            1 / (i % 50)
        except ZeroDivisionError:
            bad += 1
    return bad


def deletes():
    x = 1
    y = x + 1
    del x
    return y


def aliases():
    a = np.zeros(4)
    b = a
    b[0] = 7.0
    return a


def doubled_plus_one(x):
    return x * 2 + 1


def calls_a_graph_function(x):
    import nbgraph as ng

    graph = ng.function(doubled_plus_one)
    y = graph(x)
    return y + 1
