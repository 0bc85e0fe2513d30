"""Output allocation as graph mode's compiled code does it, for the hand-written njit
baselines: transparent huge pages are asked for on a large fresh array before it is
touched (as NumPy does for its own arrays), so a big output costs few page faults."""

from __future__ import annotations

import sys

from numba import njit, types

_MADV_HUGEPAGE = 14
_HUGE_MIN_BYTES = 4 << 20
_HAVE_MADVISE = sys.platform.startswith("linux")
_madvise = types.ExternalFunction("madvise", types.intc(types.uintp, types.uintp, types.intc))


@njit
def advise_huge(array):
    """``array``, with huge pages requested for it when it is at least 4 MiB."""
    size = array.size * array.itemsize
    if _HAVE_MADVISE and size >= _HUGE_MIN_BYTES:
        start = (array.ctypes.data + 4095) & ~4095
        _madvise(start, array.ctypes.data + size - start, _MADV_HUGEPAGE)
    return array
