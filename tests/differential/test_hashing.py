"""Graph values as dict keys and set items: eager's error, or a refusal at the line.

Eagerly an array has no hash (``TypeError``), and a NumPy scalar hashes by its value.
While tracing a scalar's value is not known, so as a key it would stand for itself: the
dict would come out holding the traced value, and a lookup would miss.  Graph mode
refuses that at the user's line; keys known while tracing work as eagerly.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from harness import backend, check

import nbgraph as ng

X = np.array([1.0, 2.0, 4.0])


def scalar_key_stored(x):
    d = {}
    d[x.sum()] = 1  # the key
    return d


def scalar_key_in_a_literal(x):
    return {x.max(): "largest"}  # the key


def scalar_key_looked_up(x):
    table = {7.0: "seven"}
    return table[x.sum()]  # the key


def scalar_in_a_set_literal(x):
    return {x[0], x[1]}  # the key


def loop_counter_as_key(x, n):
    seen = {}
    i = 0
    while i < n:
        seen[i] = x[i]  # the key
        i += 1
    return seen


@pytest.mark.parametrize(
    "fn, args",
    [
        (scalar_key_stored, (X,)),
        (scalar_key_in_a_literal, (X,)),
        (scalar_key_looked_up, (X,)),
        (scalar_in_a_set_literal, (X,)),
        (loop_counter_as_key, (X, 2)),
    ],
)
def test_a_traced_scalar_as_a_key_is_refused_at_its_line(fn, args):
    fn(*args)  # eagerly it works
    with pytest.raises(ng.StagingError, match="dict key or a set item") as err:
        ng.function(fn, backend=backend())(*args)
    lines, first = inspect.getsourcelines(fn)
    key_line = next(k for k, line in enumerate(lines) if "# the key" in line)
    assert err.value.loc.lineno == first + key_line


def array_key(x):
    return {x: 1}


def array_in_a_set(x):
    s = set()
    s.add(x * 2.0)
    return s


def keys_known_while_tracing(x):
    d = {"sum": x.sum(), 3: x[0]}
    d[(1, "b")] = x * 2.0
    return d, d["sum"], {1, 2, "three"}


@pytest.mark.parametrize("fn", [array_key, array_in_a_set, keys_known_while_tracing])
def test_other_keys_behave_as_eagerly(fn):
    check(fn, X)  # an array has no hash in either mode; Python keys work
