"""Which clusters of a graph the view shows unfolded.

Three kinds of cluster fold into one node each: a control-flow node (cond/while, drawn
with its regions); a ``Group`` of the nodes one call of a user's helper made (the
backward half of a gradient is a group of its own inside the call that took it); and a
loop unrolled while tracing, its iterations in ranges of 10, 100, ... (so a loop of
2000 iterations unfolds ten boxes at a time).  A folded cluster hides everything inside
it, so the layout only places the unfolded part: a graph starts folded below the depth
where the visible part would outgrow a budget, and the user unfolds what they want to
see.
"""

from __future__ import annotations

import weakref
from collections import Counter
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

from ..graph.calls import CallSites
from ..graph.ir import Graph, Node, Op, Region

# Nodes the graph view first shows at most (unless the last error is deeper): a
# screenful to read, the rest a click away.
VISIBLE_BUDGET = 60
# ... and a drawing that cannot be unfolded (an SVG file, ``Graph.to_dot()``).
DRAWING_BUDGET = 250
SMALLEST_GROUP = 2  # a helper call that made fewer nodes is drawn without a cluster
LOOP_FANOUT = 10  # an unrolled loop's iterations fold into ranges of 10, 100, ...
# Groups dropped where they hold exactly one group (an iteration that is one call).
WRAPPERS = ("range", "iteration")


@dataclass(frozen=True, eq=False)
class Group:
    """The nodes one call of a user's helper made (``kind`` "call"), the backward half
    of a gradient ("grad"), a loop unrolled while tracing ("loop"), a range of its
    iterations ("range") or one iteration ("iteration"); ``first`` is its first node in
    schedule order, ``calls`` how many calls deep it is.  One object per ``key`` (what
    made it, and the cluster it is in) in the graph whose top region is ``body``, while
    it is in use: every ``Nesting`` of one graph has the same groups, and a group
    compares and hashes by identity (a graph of thousands of nodes hashes its groups
    millions of times)."""

    key: tuple
    kind: str
    label: str
    first: Node
    calls: int
    body: Region = field(repr=False)  # (held: its id is in the group's entry below)


# Every group in use, by its graph's top region (id) and key.
_GROUPS: weakref.WeakValueDictionary[tuple, Group] = weakref.WeakValueDictionary()


Cluster = Node | Group  # a cond/while node, or a group


class Nesting:
    """Where each node of a graph sits among its clusters."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self._groups: dict[tuple, Group] = {}
        self._iterations: Counter[tuple] = Counter()  # unrolled loop -> its iterations
        found = dict(_Entries(graph).of(graph.body, None))
        for entries in found.values():
            for entry in entries:
                if entry[0] == "loop":
                    key, iteration = entry[1], entry[3]
                    self._iterations[key] = max(self._iterations[key], iteration)
        # node -> the clusters around it, outermost first
        self.owners: dict[Node, tuple[Cluster, ...]] = {}
        self._walk(graph.body, (), found)
        small = {g for g, size in self._sizes().items() if size < SMALLEST_GROUP}
        self._drop(small | self._wrappers(small))
        self.inside = self._sizes()
        self.groups = [c for c in self.inside if isinstance(c, Group)]
        self.controls = [n for n in self.owners if n.regions()]
        # cluster -> the clusters around it, outermost first
        self.above: dict[Cluster, tuple[Cluster, ...]] = {c: self.owners[c] for c in self.controls}
        for stack in set(self.owners.values()):
            for k, c in enumerate(stack):
                if isinstance(c, Group):
                    self.above[c] = stack[:k]
        self.clusters: list[Cluster] = [*self.controls, *self.groups]
        # the boxes right inside each cluster (None: the top level): nodes and clusters
        self.direct = Counter(stack[-1] if stack else None for stack in self.owners.values())
        self.direct.update(self.above[g][-1] if self.above[g] else None for g in self.groups)
        self.read = {value for node in self.owners for value in node.inputs}  # used values

    def _walk(
        self, region: Region, stack: tuple[Cluster, ...], found: dict[Node, list[tuple]]
    ) -> None:
        """Record the owners of ``region``'s nodes; ``stack``: the clusters around it."""
        for node in region.params:
            self.owners[node] = stack
        for node in region.nodes:
            own = (*stack, *self._clusters_of(node, found[node]))
            self.owners[node] = own
            for sub in node.regions():
                self._walk(sub, (*own, node), found)

    def _clusters_of(self, node: Node, entries: list[tuple]) -> Iterator[Group]:
        """The groups of ``entries`` (see ``_Entries``): a loop's entry is the loop, the
        ranges its iteration is in, and the iteration."""
        calls = 0
        for entry in entries:
            if entry[0] != "loop":
                _, key, label, calls = entry
                yield self._group(key, entry[0], label, node, calls)
                continue
            _, key, line, iteration = entry
            total = self._iterations[key]
            count = f"{total} iteration{'s' if total != 1 else ''}"
            yield self._group(key, "loop", f"unrolled loop · line {line} · {count}", node, calls)
            for size in _range_sizes(total):
                low = (iteration - 1) // size * size + 1
                high = min(low + size - 1, total)
                label = f"iterations {low}-{high}"
                yield self._group((key, size, low), "range", label, node, calls)
            yield self._group((key, iteration), "iteration", f"iteration {iteration}", node, calls)

    def _group(self, key: tuple, kind: str, label: str, node: Node, calls: int) -> Group:
        group = self._groups.get(key)
        if group is None:
            body = self.graph.body
            group = _GROUPS.get((id(body), key))
            if group is None:
                group = _GROUPS[id(body), key] = Group(key, kind, label, node, calls, body)
            self._groups[key] = group
        return group

    def _sizes(self) -> Counter[Cluster]:
        """How many nodes each cluster holds (counted over the distinct stacks)."""
        sizes: Counter[Cluster] = Counter()
        for stack, count in Counter(self.owners.values()).items():
            for cluster in stack:
                sizes[cluster] += count
        return sizes

    def _wrappers(self, small: set[Group]) -> set[Group]:
        """The ranges and iterations that hold exactly one group other than a loop (an
        iteration that is one helper call), ``small`` groups left out: a cluster around
        it would only add a click."""
        inner: dict[Group, set] = {}
        for stack in set(self.owners.values()):
            stack = tuple(c for c in stack if c not in small) if small else stack
            for k, c in enumerate(stack):
                if isinstance(c, Group) and c.kind in WRAPPERS:
                    inner.setdefault(c, set()).add(stack[k + 1] if k + 1 < len(stack) else None)
        return {
            g
            for g, below in inner.items()
            if len(below) == 1
            and isinstance(only := next(iter(below)), Group)
            and only.kind != "loop"  # (an iteration holding a loop says which one it is)
        }

    def _drop(self, groups: set[Group]) -> None:
        if groups:
            self.owners = {
                n: tuple(c for c in stack if c not in groups) for n, stack in self.owners.items()
            }

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


def _range_sizes(total: int) -> list[int]:
    """The sizes of the ranges a loop of ``total`` iterations folds into, largest first."""
    sizes = []
    size = LOOP_FANOUT
    while size < total:
        sizes.append(size)
        size *= LOOP_FANOUT
    return sizes[::-1]


class _Entries:
    """What each node sits in below the clusters of its region: the helper calls (and
    gradient halves) and unrolled loops, outermost first.  An entry is ``(kind, key,
    label, calls deep)`` for a call or a gradient's backward half, ``("loop", key,
    line, iteration)`` for an unrolled loop."""

    def __init__(self, graph: Graph) -> None:
        self.sites = CallSites(graph)

    def of(self, region: Region, context: Node | None) -> Iterator[tuple[Node, list[tuple]]]:
        """Each node of ``region`` and the regions in it, with its entries below those
        of ``context`` (the control node around the region)."""
        for node in region.nodes:
            yield node, self._entries(node, context)
            for sub in node.regions():
                yield from self.of(sub, node)

    def _entries(self, node: Node, context: Node | None) -> list[tuple]:
        loc = node.loc
        if loc is None or node.op is Op.PARAM:
            return []
        outer = context.loc if context is not None else None
        skip_calls = len(outer.stack()) - 1 if outer else 0  # the region's own
        skip_loops = len(outer.unrolled) if outer else 0
        calls = self.sites.around(loc)
        sites = tuple(site for site, _ in calls)
        frames = [*sites[1:], loc]  # the function each site called
        out: list[tuple] = []
        start = 0
        for k in range(len(calls) + 1):  # the loops of frame k, then the call it makes
            end = max(start, len(calls[k][1]) if k < len(calls) else len(loc.unrolled))
            backward = loc.gradient and k > 0  # in a gradient's backward half
            for j in range(max(start, skip_loops), end):
                line, iteration = loc.unrolled[j]
                key = (context, "loop", backward, sites[:k], loc.unrolled[:j], line)
                out.append(("loop", key, line, iteration))
            start = end
            if k == len(calls) or k < skip_calls:
                continue
            label = f"{'∂ ' if backward else ''}{frames[k].function}(…) · line {sites[k].lineno}"
            key = (context, "call", backward, sites[: k + 1], calls[k][1])
            out.append(("call", key, label, k + 1))
            if k == 0 and loc.gradient:
                key = (context, "grad", sites[:1], calls[0][1])
                out.append(("grad", key, "∂ backward", 1))
        return out
