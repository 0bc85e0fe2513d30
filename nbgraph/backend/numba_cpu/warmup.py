"""Compile the shared reductions for the common array types ahead of any graph.

Generated code calls ``array_reductions``' compiled functions (``whole``, ``rows``,
``columns``) with the method, ``ddof`` and ``converts`` as literals, so that Numba
compiles a version specialised for each (a sum of rows runs twice as fast as with the
method a run-time value).  Numba compiles each once per machine and keeps it in its disk
cache, but the first time, one takes one to several seconds (NumPy's pairwise tree,
the extremes, var and std), and a user's first graphs of reductions wait for them:
a graph of a column mean and std waited 13 s on a new machine.  ``make setup`` runs this
module once (``python -m nbgraph.backend.numba_cpu.warmup``), so those seconds are
spent at installation, for the arrays most graphs reduce.
"""

from __future__ import annotations

import multiprocessing
import sys
import time
from collections.abc import Iterator

import numpy as np
from numba import typeof, types

from . import array_reductions, helpers, pairwise
from .array_reductions import CODES
from .reductions import EXTREMES

# Element types and methods compiled (with ddof=0; a sample std, ddof=1, compiles apart).
METHODS = {
    dtype: ("sum", "mean", "var", "std", "max", "min")
    for dtype in (np.float64, np.float32, np.int64)
}


def _arrays(dtype: type) -> Iterator[tuple[str, np.ndarray]]:
    """(function, array) for the layouts graphs pass: C-ordered 1-d and 2-d arrays, and
    strided views (a column, every other column)."""
    matrix = np.ones((4, 6), dtype)
    yield "whole", matrix[0]
    yield "whole", matrix[:, 0]
    for along in ("whole", "rows", "columns"):
        yield along, matrix
        yield along, matrix[:, ::2]


def signatures() -> Iterator[tuple[str, tuple]]:
    """(function name, argument types) per compile, typed as generated code calls them
    (``KernelWriter.shared``: the zero of the accumulator's type, then literals)."""
    for dtype, methods in METHODS.items():
        for along, array in _arrays(dtype):
            for method in methods:
                accumulator = getattr(np, method)(np.ones(1, dtype)).dtype
                converts = accumulator != array.dtype and method not in EXTREMES
                literals = (CODES[method], 0, bool(converts))
                yield (
                    along,
                    (typeof(array), typeof(accumulator.type(0)), *map(types.literal, literals)),
                )


def _compile(functions: tuple[str, ...]) -> int:
    """Compile the signatures of these functions; how many."""
    count = 0
    for along, signature in signatures():
        if along in functions:
            getattr(array_reductions, along).compile(signature)
            count += 1
    return count


def main() -> None:
    """Compile every signature, in two processes (each function's cache index is written
    by one of them), and the layout test and allocation every kernel calls; say how long
    it took."""
    start = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(2) as pool:
        count = sum(pool.map(_compile, [("whole",), ("rows", "columns")]))
    for dtype in METHODS:
        for _, array in _arrays(dtype):
            pairwise.is_c(array)
            helpers.advise_huge(np.empty(array.shape, array.dtype))
    print(
        f"nbgraph: compiled the shared reductions for {count} argument types "
        f"in {time.perf_counter() - start:.0f} s",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
