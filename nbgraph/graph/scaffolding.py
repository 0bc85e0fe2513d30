"""What conversion added to a graph beyond the user's code, for the views that hide it
(the listing and the graph view, unless asked for everything).

Hidden: the flags that carry a ``break``, ``continue`` or ``return`` (loop variables
and branch results conversion added, ``Region.flags``), the constants and ``not``s
computed only for them, the ``... and not flag`` a loop's test gets (it stands for the
user's own test), and the effect token's plumbing (its start, the loop variables and
branch results carrying it).  The branches that skip the rest of a body once a flag is
set stay, since they hold the user's code: ``guards`` says which flag each tests.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

from . import runtime
from .ir import Graph, Node, Op, Region
from .types import TokenType

# Operations conversion computes flags with (`not flag`, `flag | False`, `bool(flag)`,
# a flag retagged as a NumPy bool).
_FLAG_LOGIC = frozenset({operator.not_, operator.or_, operator.and_, bool, runtime.retype})


@dataclass
class Scaffolding:
    """The hidden nodes of one graph, and what the views say in their place."""

    hidden: set[Node] = field(default_factory=set)
    # A hidden value that passes a value of the user's on (a loop test's `and not
    # flag`): edges from it leave from that value instead.
    stands_for: dict[Node, Node] = field(default_factory=dict)
    # The hidden `test and not flag` branches (their users use the test).
    passing: set[Node] = field(default_factory=set)
    # A branch that runs the rest of a body unless a flag is set -> that flag's kind.
    guards: dict[Node, str] = field(default_factory=dict)
    # The kind of each hidden flag value ("break", "continue", "return").
    kinds: dict[Node, str] = field(default_factory=dict)

    def type_of(self, node: Node) -> str:
        """A cond's or while's type without the flags and token it carries."""
        items = node.type.items
        return f"({', '.join(str(items[k]) for k in self.kept(node))})"

    def kept(self, node: Node) -> list[int]:
        """The positions of a cond's or while's results that are not scaffolding."""
        if not self.hidden:
            return list(range(len(node.type.items)))
        flags = _flags_of(node)
        return [
            k
            for k, t in enumerate(node.type.items)
            if k not in flags and not isinstance(t, TokenType)
        ]

    def results(self, region: Region, owner: Node | None) -> list[Node]:
        """The results of ``region`` (of the cond or while ``owner``, None for a graph's
        top region) that are not scaffolding."""
        if not self.hidden:
            return list(region.results)
        if owner is None or owner.op is Op.COND:
            kept = range(len(region.results)) if owner is None else self.kept(owner)
        else:  # a loop: its body carries the loop's variables, its test the condition
            kept = self.kept(owner) if region is owner.arg[1] else range(len(region.results))
        return [
            v
            for k, v in enumerate(region.results)
            if k in kept and not isinstance(v.type, TokenType)
        ]

    def exits(self, node: Node) -> list[str]:
        """The kinds of break, continue and return a cond or while sets flags for."""
        flags = node.arg[1 if node.op is Op.WHILE else 0].flags.values()
        return sorted({kind for kind in flags if kind != "type"})

    def shown(self, value: Node) -> Node | None:
        """The value an edge carrying ``value`` shows (None: no edge)."""
        while value in self.stands_for:
            value = self.stands_for[value]
        return None if value in self.hidden else value


def scaffolding(graph: Graph) -> Scaffolding:
    """The ``Scaffolding`` of ``graph``."""
    found = Scaffolding()
    sinks: set[tuple[int, int]] = set()  # (id of a node or region, position): a flag's
    uses: dict[Node, list[tuple[int, int, Node | None]]] = {}  # (sink key, pos, user)

    def use(value: Node, key: int, position: int, user: Node | None) -> None:
        uses.setdefault(value, []).append((key, position, user))

    def seed(node: Node, kind: str) -> None:
        found.hidden.add(node)
        found.kinds[node] = kind

    for region in graph.body.walk():
        for node in region.nodes:
            for k, value in enumerate(node.inputs):
                use(value, id(node), k, node)
            if isinstance(node.type, TokenType) and node.op is not Op.CALL:
                found.hidden.add(node)
            if node.op is Op.PROJ:
                owner, k = node.inputs[0], node.arg
                flags = _flags_of(owner)
                if k in flags:
                    seed(node, flags[k])
            if node.op is Op.WHILE:
                test, body = node.arg
                for k, kind in body.flags.items():
                    seed(test.params[k], kind)
                    seed(body.params[k], kind)
                    sinks |= {(id(node), k), (id(body), k)}
            if node.op is Op.COND:
                for k in node.arg[0].flags:
                    sinks |= {(id(branch), k) for branch in node.arg}
            for sub in node.regions():
                for k, value in enumerate(sub.results):
                    use(value, id(sub), k, None)
                found.hidden |= {p for p in sub.params if isinstance(p.type, TokenType)}
    changed = True
    while changed:
        changed = False
        for region in graph.body.walk():
            for node in region.nodes:
                if node in found.hidden:
                    continue
                kind = _hidden_kind(node, found, uses.get(node, ()), sinks)
                if kind is not None:
                    found.hidden.add(node)
                    if kind:
                        found.kinds[node] = kind
                    changed = True
    for node in graph.all_nodes():
        if node.op is Op.COND and node.inputs[0] in found.hidden and node not in found.hidden:
            found.guards[node] = found.kinds.get(node.inputs[0], "")
    return found


def _flags_of(node: Node) -> dict[int, str]:
    """The flag positions among a loop's or branch's results."""
    if node.op is Op.WHILE:
        return node.arg[1].flags
    if node.op is Op.COND:
        return node.arg[0].flags
    return {}


def _hidden_kind(
    node: Node, found: Scaffolding, uses: list | tuple, sinks: set[tuple[int, int]]
) -> str | None:
    """Whether ``node`` is scaffolding, given what is hidden so far: the kind of flag it
    serves ("" when unknown), or None when it is the user's."""
    flags = [i for i in node.inputs if i in found.hidden and found.shown(i) is None]
    kind = next((found.kinds[i] for i in flags if found.kinds.get(i)), "")
    logic = node.op is Op.CALL and node.arg.fn in _FLAG_LOGIC
    if (  # computed from flags only
        logic and flags and all(i in flags or i.op is Op.CONST for i in node.inputs)
    ):
        return kind
    if node.op is Op.COND and _tests_and_not_a_flag(node, found):
        found.passing.add(node)
        found.hidden.update(n for r in node.arg for n in r.nodes)
        kept = [k for k in range(len(node.arg[0].results)) if k not in node.arg[0].flags]
        for proj in (u for _, _, u in uses if u is not None and u.op is Op.PROJ):
            if proj.arg in kept:
                found.stands_for[proj] = node.inputs[0]
            found.hidden.add(proj)
        return kind
    if node.op not in (Op.CONST, Op.CALL) or not uses:
        return None
    if node.op is Op.CALL and not logic:
        return None
    if all(
        (key, position) in sinks
        or (user is not None and user in found.hidden and user not in found.passing)
        for key, position, user in uses
    ):
        return kind
    return None


def _tests_and_not_a_flag(node: Node, found: Scaffolding) -> bool:
    """Whether a branch is a loop test's ``test and not flag``: one result besides its
    flags, only hidden operations on the then path, the test (or what it is the truth
    of) on the else path."""
    then, other = node.arg
    kept = [k for k in range(len(then.results)) if k not in then.flags]
    if len(kept) != 1 or not all(n in found.hidden for n in then.nodes):
        return False
    test, passed = node.inputs[0], other.results[kept[0]]
    truth_of = test.op is Op.CALL and test.arg.fn in _FLAG_LOGIC and test.inputs == (passed,)
    return then.results[kept[0]] in found.hidden and (passed is test or truth_of)
