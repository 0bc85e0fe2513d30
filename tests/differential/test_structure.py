"""The Collatz example: graph mode matches eager, and conversion rewrites the while loop."""

import inspect

import pytest
from harness import check

import nbgraph as ng


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@pytest.mark.parametrize("n", [1, 2, 7, 27, 97])
def test_collatz_matches_eager(n):
    assert check(collatz, n) == collatz(n)


def test_to_code_converts_while_loop():
    source = inspect.getsource(collatz)
    code = ng.to_code(collatz)
    assert isinstance(code, str)
    assert code != source
    assert "while" in code
