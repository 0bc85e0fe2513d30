"""Signed integer ``+``, ``-`` and ``*`` that wrap around as NumPy's do, for the CPU
backend's generated code (see ``backend/common/wrapping.py`` for why)."""

from __future__ import annotations

from numba.extending import intrinsic

from ..common.wrapping import wrapping

add = wrapping("add", intrinsic)
sub = wrapping("sub", intrinsic)
mul = wrapping("mul", intrinsic)
