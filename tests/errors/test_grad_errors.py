"""Gradient errors name what the user wrote: the parameter, not only its position."""

import numpy as np
import pytest

import nbgraph as ng


def weighted(x, counts):
    return np.sum(x * counts)


@pytest.mark.parametrize("backend", ["interpret", "cpu"])
def test_integer_argument_error_names_the_parameter(backend):
    f = ng.grad(weighted, argnums=(0, 1), backend=backend)
    with pytest.raises(TypeError) as info:
        f(np.ones(3), np.arange(3))
    message = str(info.value)
    assert "'counts' (argument 1)" in message and "int64" in message
    assert "floating-point" in message
