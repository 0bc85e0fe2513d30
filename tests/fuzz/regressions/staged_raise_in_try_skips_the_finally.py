# ruff: noqa
"""A staged `raise` in a `try` body skips the `finally` clause's prints when it runs.

Eager prints "before", then "finally 3", then raises ValueError. Graph mode (every
backend) stages the raise inside the graph `if`, before the finally clause's print, and a
graph has no try/finally of its own: when the raise happens, the run ends there. The
exception is eager's; the finally's output is missing. (A raise directly in the `try`
body is traced before the finally: raise_in_try_with_finally_after_a_print.py.)
"""

import numpy as np


def f(x, n):
    print("before")
    try:
        if n > 2:
            raise ValueError("big")
        y = x + 1
    finally:
        print("finally", n)
    return y


ARGS = (np.array([1.0], dtype=np.float64), 3)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {
    "interpret": "a staged raise in a try body ends the run before the finally clause",
    "cpu": "a staged raise in a try body ends the run before the finally clause",
    "cuda": "a staged raise in a try body ends the run before the finally clause",
}
SIGNATURE = {"source": r"finally:", "kind": "error order", "backends": ("interpret",)}
