"""The calls of the user's helpers a graph's nodes were made in.

A node's location has the call sites on the way to it (``Loc.stack``) and the
iterations of every loop unrolled while tracing around it (``Loc.unrolled``), but not
which of those loops were around which call: ``Graph.calls`` recorded that when each
call was made, so the loops of each function (and each call in an unrolled loop) can
be told apart.
"""

from __future__ import annotations

from ..source.locations import Loc
from .ir import Graph


class CallSites:
    """The helper calls of one graph, by call site."""

    def __init__(self, graph: Graph) -> None:
        # (call site, the unrolled iterations around a call made there)
        self._entered = {site for site, _ in graph.calls}

    def around(self, loc: Loc) -> list[tuple[Loc, tuple]]:
        """The calls on the way to ``loc``, outermost first: each its site and the
        iterations of the loops unrolled around the call (a prefix of ``loc.unrolled``)."""
        return [(site, self._unrolled_at(site, loc.unrolled)) for site in loc.stack()[:-1]]

    def _unrolled_at(self, site: Loc, around: tuple) -> tuple:
        """The longest prefix of ``around`` a call at ``site`` was made in."""
        for end in range(len(around), 0, -1):
            if (site, around[:end]) in self._entered:
                return around[:end]
        return ()
