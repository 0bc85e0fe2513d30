"""Which clusters of a graph the view shows unfolded.

Two kinds of cluster fold into one node each: a control-flow node (cond/while, drawn
with its regions), and a ``Group`` of the nodes one call of a user's helper made (the
backward half of a gradient is a group of its own inside the call that took it).  A
folded cluster hides everything inside it, so the layout only places the unfolded
part: a graph starts folded below the depth where the visible part would outgrow a
budget, and the user unfolds what they want to see.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

from ..graph.ir import Graph, Node, Op, Region
from ..graph.variables import unrolled_runs
from ..source.locations import Loc

# Nodes the graph view first shows at most (unless the last error is deeper): a
# screenful to read, the rest a click away.
VISIBLE_BUDGET = 60
# ... and a drawing that cannot be unfolded (an SVG file, ``Graph.to_dot()``).
DRAWING_BUDGET = 250
SMALLEST_GROUP = 2  # a helper call that made fewer nodes is drawn without a cluster


@dataclass(frozen=True)
class Group:
    """The nodes one call of a user's helper made (``kind`` "call"), or the backward
    half of a gradient ("grad"); ``first`` is its first node in schedule order, ``calls``
    how many calls deep it is.  Equal by ``key`` (the call sites, and the cluster it is
    in), so every ``Nesting`` of one graph has the same groups."""

    key: tuple
    kind: str = field(compare=False)
    label: str = field(compare=False)
    first: Node = field(compare=False)
    calls: int = field(compare=False)


Cluster = Node | Group  # a cond/while node, or a group


class Nesting:
    """Where each node of a graph sits among its clusters."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        # node -> the clusters around it, outermost first
        self.owners: dict[Node, tuple[Cluster, ...]] = {}
        self._groups: dict[tuple, Group] = {}
        # Calls are told apart by their sites and the unrolled iterations around them.
        found = list(_find_calls(graph.body, None, 0))
        runs = unrolled_runs([(node, [call[0] for call in calls]) for node, calls in found])
        self._calls = {
            node: list(zip(keys, calls)) for (node, keys), (_, calls) in zip(runs, found)
        }
        self._walk(graph.body, ())
        self.inside = Counter(c for stack in self.owners.values() for c in stack)
        small = {g for g in self._groups.values() if self.inside[g] < SMALLEST_GROUP}
        if small:
            self.owners = {
                n: tuple(c for c in stack if c not in small) for n, stack in self.owners.items()
            }
            for group in small:
                del self.inside[group]
        self.groups = [g for g in self._groups.values() if g not in small]
        self.controls = [n for n in self.owners if n.regions()]
        # cluster -> the clusters around it, outermost first
        self.above: dict[Cluster, tuple[Cluster, ...]] = {c: self.owners[c] for c in self.controls}
        for stack in self.owners.values():
            for k, c in enumerate(stack):
                if isinstance(c, Group):
                    self.above[c] = stack[:k]
        self.clusters: list[Cluster] = [*self.controls, *self.groups]
        # the boxes right inside each cluster (None: the top level): nodes and clusters
        self.direct = Counter(stack[-1] if stack else None for stack in self.owners.values())
        self.direct.update(self.above[g][-1] if self.above[g] else None for g in self.groups)
        self.read = {value for node in self.owners for value in node.inputs}  # used values

    def _walk(self, region: Region, stack: tuple[Cluster, ...]) -> None:
        """Record the owners of ``region``'s nodes; ``stack``: the clusters around it."""
        for node in region.params:
            self.owners[node] = stack
        for node in region.nodes:
            own = (*stack, *(self._group(node, run, call) for run, call in self._calls[node]))
            self.owners[node] = own
            for sub in node.regions():
                self._walk(sub, (*own, node))

    def _group(self, node: Node, run: tuple, call: tuple) -> Group:
        """The group of one call instance, ``run`` (see ``unrolled_runs``)."""
        group = self._groups.get(run)
        if group is None:
            _, kind, label, calls = call
            group = self._groups[run] = Group(run, kind, label, node, calls)
        return group

    def shown_as(self, node: Node, unfolded: Collection[Cluster]) -> Cluster:
        """What is drawn for ``node``: itself, or the outermost folded cluster around it."""
        for owner in self.owners[node]:
            if owner not in unfolded:
                return owner
        return node

    def visible_count(self, unfolded: Collection[Cluster]) -> int:
        """How many nodes are drawn (a folded cluster counts as one)."""
        return len({self.shown_as(n, unfolded) for n in self.owners})

    def initial_unfolded(self, budget: int = VISIBLE_BUDGET) -> frozenset[Cluster]:
        """Unfold depth by depth while the visible part stays within ``budget``; the
        clusters around the node of the last error are always unfolded."""
        unfolded: set[Cluster] = set()
        shown = self.direct[None]
        depth = 0
        while True:
            level = [
                c
                for c in self.clusters
                if len(self.above[c]) == depth and unfolded.issuperset(self.above[c])
            ]
            extra = sum(self.direct[c] for c in level)
            if not level or shown + extra > budget:
                break
            unfolded.update(level)
            shown += extra
            depth += 1
        failed = self.graph.failed_node
        if failed is not None and failed in self.owners:
            unfolded.update(self.owners[failed])
        return frozenset(unfolded)


def _find_calls(
    region: Region, context: Node | None, calls: int
) -> Iterator[tuple[Node, list[tuple]]]:
    """Each node of ``region`` and the regions in it, with its helper calls below its
    region's own (see ``_calls_of``); ``calls``: how many calls deep ``context`` is."""
    for node in region.nodes:
        yield node, _calls_of(node, context, calls)
        for sub in node.regions():
            yield from _find_calls(sub, node, len(_call_sites(node.loc)))


def _calls_of(node: Node, context: Node | None, calls: int) -> list[tuple]:
    """(key, kind, label, calls deep) of each group ``node`` belongs to below its
    region's own: one per helper call deeper than ``calls``, and the backward group
    right inside the outermost; ``context``: the control node around the region."""
    if node.loc is None or node.op is Op.PARAM:
        return []
    sites = _call_sites(node.loc)
    frames = [*sites[1:], node.loc]  # the function each site called
    gradient = node.loc.gradient
    out: list[tuple] = []
    for k in range(calls, len(sites)):
        backward = gradient and k > 0  # a helper's backward half, apart from its forward
        label = f"{'∂ ' if backward else ''}{frames[k].function}(…) · line {sites[k].lineno}"
        out.append(((context, "call", backward, tuple(sites[: k + 1])), "call", label, k + 1))
        if k == 0 and gradient:
            out.append(((context, "grad", True, tuple(sites[:1])), "grad", "∂ backward", 1))
    return out


def _call_sites(loc: Loc | None) -> list[Loc]:
    """Where the user's functions were called on the way to ``loc``, outermost first."""
    return loc.stack()[:-1] if loc is not None else []
