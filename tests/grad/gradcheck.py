"""Central finite differences, and comparing gradients with them.

``finite_difference_grad`` perturbs every element of every floating-point leaf of the
differentiated arguments by +-eps and evaluates the function eagerly (plain NumPy, the
function exactly as written), with ``nbgraph.check_grad``'s ``numerical_gradient``.
The result has the structure of the arguments, so it can
be compared leaf by leaf with what ``nbgraph.grad`` returns: same containers, same
shapes and dtypes, values within the tolerances.

Central differences are accurate to O(eps^2 f''') + O(ulp(f) / eps): with eps = 1e-6 in
float64 that is about 1e-10 relative for the smooth functions of magnitude ~1 the tests
use, far below the tolerances, provided no kink or branch threshold (``abs`` at 0, a loop
condition) lies within eps of an input.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from nbgraph.grad.check import numerical_gradient

# The backends the gradient tests run on; ``NBGRAPH_TEST_BACKENDS`` (comma-separated)
# narrows the list, as for the differential tests.
BACKENDS = tuple(
    b
    for b in os.environ.get("NBGRAPH_TEST_BACKENDS", "interpret,cpu,cuda").split(",")
    if b in ("interpret", "cpu", "cuda")
)

EPS = 1e-6
RTOL = 1e-6
ATOL = 1e-8


def flatten(tree: Any) -> tuple[list[Any], Callable[[Sequence[Any]], Any]]:
    """The leaves of a tuple/list/dict nest (arrays and numbers), and how to rebuild it."""
    if isinstance(tree, (tuple, list, dict)):
        keys = list(tree) if isinstance(tree, dict) else range(len(tree))
        parts = [flatten(tree[k]) for k in keys]
        leaves = [leaf for part, _ in parts for leaf in part]

        def rebuild(values: Sequence[Any]) -> Any:
            out, start = [], 0
            for part, build in parts:
                out.append(build(values[start : start + len(part)]))
                start += len(part)
            if isinstance(tree, dict):
                return dict(zip(keys, out))
            return type(tree)(out)

        return leaves, rebuild
    return [tree], lambda values: values[0]


def finite_difference_grad(
    fn: Callable, args: tuple, argnums: int | tuple[int, ...] = 0, eps: float = EPS
) -> Any:
    """The gradient of ``fn(*args)`` (a scalar) with respect to ``args[argnums]``, by
    central differences; a tuple of gradients when ``argnums`` is a tuple."""
    if isinstance(argnums, int):
        return numerical_gradient(fn, args, argnums, eps)
    return tuple(numerical_gradient(fn, args, num, eps) for num in argnums)


def assert_same_structure(got: Any, expected: Any, path: str = "gradient") -> None:
    """Same containers (type, length, keys), and per leaf: an array of the same shape and
    dtype for an array, a Python-float-compatible scalar for a Python float."""
    if isinstance(expected, (tuple, list, dict)):
        assert type(got) is type(expected), (
            f"{path}: expected a {type(expected).__name__}, got {type(got).__name__}"
        )
        if isinstance(expected, dict):
            assert list(got) == list(expected), f"{path}: keys {list(got)} != {list(expected)}"
            for key in expected:
                assert_same_structure(got[key], expected[key], f"{path}[{key!r}]")
        else:
            assert len(got) == len(expected), f"{path}: length {len(got)} != {len(expected)}"
            for i, (g, e) in enumerate(zip(got, expected)):
                assert_same_structure(g, e, f"{path}[{i}]")
    elif isinstance(expected, np.ndarray):
        assert isinstance(got, np.ndarray), f"{path}: expected an array, got {type(got)}"
        assert got.shape == expected.shape, f"{path}: shape {got.shape} != {expected.shape}"
        assert got.dtype == expected.dtype, f"{path}: dtype {got.dtype} != {expected.dtype}"
    else:
        assert isinstance(got, float) and not isinstance(got, np.ndarray), (
            f"{path}: expected a float, got {type(got).__name__}"
        )


def assert_grads_close(got: Any, expected: Any, rtol: float = RTOL, atol: float = ATOL) -> None:
    """``got`` has ``expected``'s structure and matches it leaf by leaf."""
    assert_same_structure(got, expected)
    got_leaves, _ = flatten(got)
    expected_leaves, _ = flatten(expected)
    for i, (g, e) in enumerate(zip(got_leaves, expected_leaves)):
        np.testing.assert_allclose(
            g, e, rtol=rtol, atol=atol, err_msg=f"gradient leaf {i} differs from finite differences"
        )
