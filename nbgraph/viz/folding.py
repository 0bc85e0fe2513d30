"""Which cond/while clusters of a graph the view shows unfolded.

Each control-flow node is drawn as a cluster holding its regions, and folds into one
node.  A folded cluster hides everything inside it, so the layout only places the
unfolded part: a large graph starts folded below the depth where the visible part
would outgrow a budget, and the user unfolds what they want to see.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from ..graph.ir import Graph, Node, Region

# Nodes the first view of a graph shows at most (unless the last error is deeper).
VISIBLE_BUDGET = 250


class Nesting:
    """Where each node of a graph sits among its control-flow nodes."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        # node -> the cond/while nodes around it, outermost first
        self.owners: dict[Node, tuple[Node, ...]] = {}
        self._walk(graph.body, ())
        self.controls = [n for n in self.owners if n.regions()]
        innermost = Counter(stack[-1] for stack in self.owners.values() if stack)
        self.direct = {c: innermost[c] for c in self.controls}  # nodes right inside c
        self.inside = Counter(c for stack in self.owners.values() for c in stack)
        self.read = {value for node in self.owners for value in node.inputs}  # used values

    def _walk(self, region: Region, stack: tuple[Node, ...]) -> None:
        for node in (*region.params, *region.nodes):
            self.owners[node] = stack
            for sub in node.regions():
                self._walk(sub, (*stack, node))

    def shown_as(self, node: Node, unfolded: Collection[Node]) -> Node:
        """The node drawn for ``node``: itself, or the outermost folded cluster around it."""
        for owner in self.owners[node]:
            if owner not in unfolded:
                return owner
        return node

    def visible_count(self, unfolded: Collection[Node]) -> int:
        """How many nodes are drawn (a folded cluster counts as one)."""
        return len({self.shown_as(n, unfolded) for n in self.owners})

    def initial_unfolded(self, budget: int = VISIBLE_BUDGET) -> frozenset[Node]:
        """Unfold depth by depth while the visible part stays within ``budget``; the
        clusters around the node of the last error are always unfolded."""
        unfolded: set[Node] = set()
        shown = sum(1 for stack in self.owners.values() if not stack)
        depth = 0
        while True:
            level = [
                c
                for c in self.controls
                if len(self.owners[c]) == depth and unfolded.issuperset(self.owners[c])
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
