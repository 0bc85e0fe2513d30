"""User functions that fail, one per way a graph function can fail.

Each is written as a user would write it and runs both eagerly and as a graph in the
tests.  Tests find lines with ``line_of(fn, text)``, never by number, so this file can
be edited freely (keep each searched text unique within its function).
"""

import inspect
import json
import math

import numpy as np


def line_of(fn, text):
    """The file line number of the only line of ``fn``'s source containing ``text``."""
    lines, start = inspect.getsourcelines(fn)
    found = [start + i for i, line in enumerate(lines) if text in line]
    assert len(found) == 1, f"{text!r} occurs {len(found)} times in {fn.__name__}"
    return found[0]


def first_line(fn):
    """The first line of ``fn``'s definition (its decorator, if any)."""
    return inspect.getsourcelines(fn)[1]


def source_line(fn, text):
    """The full source line of ``fn`` that contains ``text``."""
    lines, start = inspect.getsourcelines(fn)
    return lines[line_of(fn, text) - start].rstrip("\n")


class CaseError(Exception):
    """A user's own exception class."""


class Limit(ValueError):
    """A user's exception class whose constructor builds the message."""

    def __init__(self, limit):
        super().__init__(f"over the limit {limit}")
        self.limit = limit


# --- run-time errors: indexing ------------------------------------------------------------


def sum_first(x, n):
    t = 0.0
    for i in range(n):
        t = t + x[i]
    return t


def index_in_helper(x, n):
    s = sum_first(x, n)
    return s * 2.0


def pick(x, i):
    return x[i] * 10.0


def middle(x, i):
    y = x + 1.0
    return pick(y, i) + 1.0


def index_two_levels_down(x, i):
    z = middle(x, i)
    return z - 1.0


def last_of(r):
    return r[3]


def rows_total(x):
    t = 0.0
    for r in x:
        t = t + last_of(r)
    return t


def nested_loops(x, n, m):
    t = 0.0
    for i in range(n):
        for j in range(m):
            t = t + x[i, j]
    return t


def while_with_break(x, limit):
    i = 0
    t = 0.0
    while i < limit:
        if t > 100.0:
            break
        t = t + x[i]
        i = i + 1
    return t


def list_item(x, n):
    items = []
    for i in range(n):
        items.append(x[i] * 2.0)
    return items[5]


def nested_def_index(x, i):
    def shifted(v):
        return v[i] + 1.0

    return shifted(x)


# --- run-time errors: arithmetic ----------------------------------------------------------


def int_floordiv(a, b):
    q = a // b
    return q + 1


def int_mod(a, b):
    r = a % b
    return r + 1


def float_div(a, b):
    ratio = a / b
    return ratio * 2.0


def float_pow(a, b):
    p = a**b
    return p + 1.0


def root(a):
    r = math.sqrt(a)
    return r * 2.0


# --- run-time errors: assert and raise ----------------------------------------------------


def assert_plain(x):
    assert x.sum() > 0
    return x * 2.0


def assert_message(x):
    assert x.sum() > 0, "the sum must be positive"
    return x * 2.0


def assert_fstring(x):
    assert x.sum() > 0, f"the sum must be positive, got {x.sum()}"
    return x * 2.0


def assert_each(x):
    for v in x:
        assert v < 2.0, f"row value {v}"
    return x


def raise_value_error(x):
    y = x * 2.0
    if y.sum() < 0:
        raise ValueError(f"negative total {y.sum()}")
    return y


def raise_custom(x):
    y = x * 2.0
    if y.max() > 10:
        raise CaseError("value too large")
    return y


def raise_limit(x):
    if x.max() > 10:
        raise Limit(10)
    return x


def raise_limit_of_data(x):
    if x.max() > 10:
        raise Limit(x.max())
    return x


# --- run-time errors: shapes --------------------------------------------------------------


def broadcast(x, y):
    s = x * 2.0
    return s + y


def matmul(a, b):
    c = a @ b
    return c.sum()


def stack_rows(x, y):
    s = np.stack([x, y])
    return s.sum()


def reshape_to_pairs(x):
    r = x.reshape(2, 3)
    return r.sum()


# --- run-time errors after output ---------------------------------------------------------


def loud_sum(x, n):
    t = 0.0
    for i in range(n):
        print("step", i, "total", t)
        t = t + x[i]
    return t


# --- trace-time errors: what graph mode cannot express ------------------------------------


def one_branch_variable(x):
    if x.sum() > 0:
        y = x * 2.0
    z = y + 1.0
    return z


def one_branch_in_helper(x):
    w = one_branch_variable(x)
    return w * 2.0


def dtype_changes_in_loop(x, n):
    t = 0
    for i in range(n):
        t = t + x[i]
    return t


def squares(x):
    for v in x:
        yield v * v


def sum_of_generator(x):
    return sum(squares(x))


def countdown(x):
    if x.sum() <= 0:
        return x
    return countdown(x - 1.0)


def random_noise(x):
    noise = np.random.random(x.shape)
    return x + noise


def open_numbered(x, n):
    with open(f"part{n}.txt") as f:
        f.read()
    return x


def json_total(x):
    text = json.dumps(x.sum())
    return x, text


def sorted_values(x):
    s = sorted(x)
    return s


# --- trace-time errors: Python errors while tracing ---------------------------------------


def attribute_typo(x):
    y = x * 2.0
    return y.summ()


def typo_in_helper(x):
    z = attribute_typo(x)
    return z + 1.0


def wrong_helper_call(x):
    return sum_first(x)


def bad_axis(x):
    return x.sum(axis=3)


def add_text(x):
    return x + "a"


def call_array(x):
    y = x * 2.0
    return y(3)
