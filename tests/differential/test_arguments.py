"""Every way Python passes arguments reaches the traced function: keyword arguments,
defaults, keyword-only parameters, ``*args`` and ``**kwargs``, around static ones."""

import numpy as np
import pytest
from harness import check

X = np.array([1.0, -2.0, 3.5])


def scaled_by_keywords(x, **options):
    return x * options.get("scale", 1.0) + len(options)


def summed_varargs(x, *rest):
    total = x
    for value in rest:
        total = total + value
    return total * len(rest)


def mixed(a, n, b=1.0, *more, c=2.0, **extra):
    out = a * n + b * c
    for value in more:
        out = out - value
    return out + extra.get("shift", 0.0)


@pytest.mark.parametrize("kwargs", [{}, {"scale": 3.0}, {"scale": 2.0, "other": 1}])
def test_var_keyword_arguments(kwargs):
    check(scaled_by_keywords, X, kwargs=kwargs)


@pytest.mark.parametrize("rest", [(), (1.0,), (X, 2.5)])
def test_var_positional_arguments(rest):
    check(summed_varargs, X, *rest)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((X, 3), {}),
        ((X, 3, 2.0), {"c": 5.0}),
        ((X, 2, 1.0, 0.5, 0.25), {"shift": 10.0}),
        ((X,), {"n": 4, "b": 0.5}),
    ],
)
def test_every_kind_of_parameter_around_a_static_one(args, kwargs):
    check(mixed, *args, static_argnames=("n",), kwargs=kwargs)
