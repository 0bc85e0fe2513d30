"""Signed integer arithmetic that wraps around, as NumPy's does.

Numba marks signed ``+``, ``-`` and ``*`` "no signed wrap" (``nsw``), which lets LLVM
assume they never overflow: it then folds ``x + x == 0`` to ``x == 0``, so
``np.logical_not(x + x)`` of the int64 minimum gave False where NumPy's wrapped sum is 0
and the answer True. Generated code computes NumPy integers with these instead: the
same instructions without the flag.
"""

from __future__ import annotations

from collections.abc import Callable

from numba import types
from numba.extending import intrinsic


def _wrapping(instruction: str) -> Callable:
    """An intrinsic applying the LLVM ``instruction`` to two signed integers of one type,
    with no overflow flag."""

    @intrinsic
    def apply(typingctx, a, b):
        if not (isinstance(a, types.Integer) and a.signed and a == b):
            return None

        def codegen(context, builder, signature, args):
            return getattr(builder, instruction)(args[0], args[1])

        return a(a, b), codegen

    return apply


add = _wrapping("add")
sub = _wrapping("sub")
mul = _wrapping("mul")
