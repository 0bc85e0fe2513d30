"""Signed integer arithmetic that wraps around, as NumPy's does, for compiled code.

Numba (and numba-cuda) mark signed ``+``, ``-`` and ``*`` "no signed wrap" (``nsw``),
which lets LLVM assume they never overflow: it then folds ``x + x == 0`` to ``x == 0``
and ``(x - 1) > x`` to False, where NumPy's int64 minimum wraps around and gives True.
Generated code computes NumPy's 64-bit integers with these intrinsics instead: the same
instructions without the flag.  (Narrower integers are computed in 64 bits, where their
sums and products cannot overflow.)
"""

from __future__ import annotations

from collections.abc import Callable

from numba import types


def wrapping(instruction: str, intrinsic: Callable) -> Callable:
    """An intrinsic, made with the target's ``intrinsic`` decorator (the CPU's or the
    GPU's), applying the LLVM ``instruction`` to two signed integers of one type with no
    overflow flag."""

    def apply(typingctx, a, b):
        if not (isinstance(a, types.Integer) and a.signed and a == b):
            return None

        def codegen(context, builder, signature, args):
            return getattr(builder, instruction)(args[0], args[1])

        return a(a, b), codegen

    apply.__name__ = f"wrapping_{instruction}"
    return intrinsic(apply)
