"""The backward pass: cotangents flow from a region's results back to its inputs.

Nodes are visited in reverse schedule order; each CALL hands its cotangent to its
inputs through its rule (grad/rules.py), summed where a value is used more than once.
A COND becomes a COND on the same predicate whose branches recompute their forward
values and run this pass on them.  A WHILE becomes a loop running its iterations in
reverse: each recomputes one forward iteration from the state the tape saved, then
passes the cotangent of the iteration's outputs back to its inputs; what flows into
values captured from outside is summed across iterations.
"""

from __future__ import annotations

from typing import Any

from ..errors.exceptions import NotDifferentiableError
from ..graph import runtime
from ..graph.ir import Node, Op, Region
from ..graph.template import Hole, fill
from ..graph.types import TOKEN, ListType, TensorType, TupleType
from ..staging.traced import Traced, TracedList
from ..staging.tracing import current, located, region
from .broadcast import cast, zeros
from .copying import COUNT, Copier, gradient_loc
from .rules import rule_for

Cotangents = dict[Node, Any]


def is_real(node: Node) -> bool:
    """Whether a node's value can carry a gradient (a real floating tensor)."""
    return is_real_type(node.type)


def is_real_type(t: Any) -> bool:
    return isinstance(t, TensorType) and t.dtype.kind == "f"


def free_nodes(node: Node) -> list[Node]:
    """The real-valued nodes from outside a control-flow node that its regions use, in
    order of first use."""
    inside: set[Node] = set()
    used: dict[Node, None] = {}

    def see(n: Node) -> None:
        if n not in inside and is_real(n):
            used[n] = None

    def walk(r: Region) -> None:
        inside.update(r.params)
        for n in r.nodes:
            for i in n.inputs:
                see(i)
            for sub in n.regions():
                walk(sub)
            inside.add(n)
        for res in r.results:
            see(res)

    for sub in node.regions():
        walk(sub)
    return list(used)


class Backward:
    """Emits the backward pass of copied regions into the region being traced."""

    def __init__(self, copier: Copier) -> None:
        self.copier = copier
        self.env = copier.env

    def value(self, node: Node) -> Any:
        """The graph value of a forward node's copy."""
        copy = self.env[node]
        return TracedList(copy) if isinstance(copy.type, ListType) else Traced(copy)

    def add(self, cot: Cotangents, node: Node, g: Any) -> None:
        """Add g to node's cotangent (integers and booleans take none)."""
        if g is None or not is_real(node):
            return
        with located(gradient_loc(node.loc)):
            g = cast(g, node.type)
            cot[node] = g if node not in cot else cot[node] + g

    def region(self, region: Region, cot: Cotangents) -> None:
        """Propagate ``cot`` (cotangents of region's nodes and results) to the nodes the
        region reads: its params and the values it captures."""
        parts: dict[Node, dict[int, Any]] = {}
        for node in reversed(region.nodes):
            if node.op is Op.PROJ:
                g = cot.pop(node, None)
                if g is not None:
                    mine = parts.setdefault(node.inputs[0], {})
                    mine[node.arg] = g if node.arg not in mine else mine[node.arg] + g
            elif node.op is Op.CALL and node.arg.fn is runtime.make_tuple and node in parts:
                for k, g in parts.pop(node).items():
                    self.add(cot, node.inputs[k], g)
            elif node.op is Op.CALL and node in cot:
                self.call(node, cot.pop(node), cot)
            elif node.op is Op.COND and node in parts:
                self.cond(node, parts.pop(node), cot)
            elif node.op is Op.WHILE and node in parts:
                self.loop(node, parts.pop(node), cot)

    def call(self, node: Node, g: Any, cot: Cotangents) -> None:
        """A CALL node: its rule gives each input its share of g."""
        inputs = [self.value(i) for i in node.inputs]
        args, kwargs = fill(node.arg.args, inputs), fill(node.arg.kwargs, inputs)
        rule = rule_for(node.arg.fn, args)
        if rule is None:
            if any(is_real(i) or _real_list(i) for i in node.inputs):
                name = (
                    node.arg.name
                    if node.arg.fn is not runtime.list_to_array
                    else f"np.{node.arg.args[1].__name__} of a list built in a graph loop"
                )
                raise NotDifferentiableError(
                    f"{name} has no gradient: a gradient would have to flow "
                    "through it (compute it outside the differentiated function, or "
                    "pass its result in as an argument)",
                    node.loc,
                )
            return
        with located(gradient_loc(node.loc)):
            grads = rule(g, Traced(self.env[node]), *args, **kwargs)
        self._assign(node.arg.args, grads, node.inputs, cot)

    def _assign(self, template: Any, grads: Any, inputs: tuple[Node, ...], cot: Cotangents) -> None:
        """Give the inputs standing at template's holes the matching grads."""
        for t, g in zip(template, grads):
            if g is None:
                continue
            if type(t) is Hole:
                self.add(cot, inputs[t.index], g)
            elif type(t) in (list, tuple):
                self._assign(t, g, inputs, cot)

    def _zeros(self, node: Node) -> Any:
        return zeros(self.value(node))

    def cond(self, node: Node, outs: dict[int, Any], cot: Cotangents) -> None:
        """A COND: the same choice, each branch recomputed and run backwards."""
        captures = free_nodes(node)
        if not captures:
            return
        builder = current()
        branches = []
        with located(gradient_loc(node.loc)):
            for branch in node.arg:
                with region() as inner:
                    self.copier.here(branch, effects=False)
                    mine: Cotangents = {}
                    for k, g in outs.items():
                        self.add(mine, branch.results[k], g)
                    self.region(branch, mine)
                    inner.region.results = tuple(
                        (mine[c] if c in mine else self._zeros(c)).node for c in captures
                    )
                branches.append(inner.region)
            choice = builder.add(
                Node(
                    Op.COND,
                    (self.env[node.inputs[0]],),
                    tuple(branches),
                    TupleType(tuple(c.type for c in captures)),
                    gradient_loc(node.loc),
                )
            )
            for k, c in enumerate(captures):
                self.add(
                    cot, c, Traced(builder.add(Node(Op.PROJ, (choice,), k, c.type, choice.loc)))
                )

    def loop(self, node: Node, outs: dict[int, Any], cot: Cotangents) -> None:
        """A WHILE: its iterations in reverse, each recomputed from its saved state."""
        tape = self.copier.tapes[node]
        body = node.arg[1]
        carried = node.type.items[:-1]
        real = [j for j, t in enumerate(carried) if is_real_type(t)]
        captures = free_nodes(node)
        _check_lists(node, tape)
        builder = current()
        loc = gradient_loc(node.loc)
        with located(loc):
            init = [Traced(tape.count)]
            for j in real:
                init.append(
                    cast(outs[j], carried[j]) if j in outs else zeros(Traced(tape.outputs[j]))
                )
            init += [self._zeros(c) for c in captures]
            types = (COUNT, *(carried[j] for j in real), *(c.type for c in captures), TOKEN)
            regions = []
            for part in ("test", "body"):
                with region() as inner:
                    params = [inner.add_param(t) for t in types]
                    inner.token = params[-1]
                    step = Traced(params[0])
                    if part == "test":
                        inner.region.results = ((step > 0).node,)
                    else:
                        inner.region.results = (
                            *self._iteration(body, tape, real, captures, step - 1, params),
                            params[-1],
                        )
                regions.append(inner.region)
            back = builder.add(
                Node(
                    Op.WHILE,
                    (*(v.node for v in init), builder.token),
                    tuple(regions),
                    TupleType(types),
                    loc,
                )
            )
            ends = [
                Traced(builder.add(Node(Op.PROJ, (back,), k, t, loc)))
                for k, t in enumerate(types[:-1])
            ]
        for k, j in enumerate(real):
            self.add(cot, node.inputs[j], ends[1 + k])
        for k, c in enumerate(captures):
            self.add(cot, c, ends[1 + len(real) + k])

    def _iteration(
        self,
        body: Region,
        tape: Any,
        real: list[int],
        captures: list[Node],
        step: Traced,
        params: list[Node],
    ) -> tuple[Node, ...]:
        """One reverse iteration (inside the backward loop's body): the state before
        forward iteration ``step``, that iteration recomputed and run backwards.  Gives
        the new backward state: step, state cotangents, capture sums."""
        for j, p in enumerate(body.params[:-1]):
            if j in tape.saved:
                item = TracedList(tape.saved[j])[step]
                self.env[p] = item.node
            else:  # lists carried by the loop: only appended to (checked)
                self.env[p] = tape.outputs[j]
        self.env[body.params[-1]] = current().token
        self.copier.here(body, effects=False)
        mine: Cotangents = {}
        for k, j in enumerate(real):
            self.add(mine, body.results[j], Traced(params[1 + k]))
        self.region(body, mine)
        state = [
            cast(mine[body.params[j]], body.params[j].type).node
            if body.params[j] in mine
            else self._zeros(body.params[j]).node
            for j in real
        ]
        sums = []
        for k, c in enumerate(captures):
            total = Traced(params[1 + len(real) + k])
            sums.append((total + mine[c]).node if c in mine else total.node)
        return (step.node, *state, *sums)


def _real_list(node: Node) -> bool:
    """Whether a node is a graph list of real values (gradients cannot flow through)."""
    return (
        isinstance(node.type, ListType)
        and node.type.elem is not None
        and is_real_type(node.type.elem)
    )


def _check_lists(node: Node, tape: Any) -> None:
    """Lists and tuples a loop carries are not saved per iteration: refuse loops that
    read one."""
    body = node.arg[1]
    unsaved = {p for j, p in enumerate(body.params[:-1]) if j not in tape.saved}
    for n in body.nodes:
        if n.op is Op.CALL and n.arg.fn is runtime.list_append and n.inputs[0] in unsaved:
            unsaved.add(n)  # the list, one item longer
            readers = n.inputs[1:]
        else:
            readers = n.inputs
        if any(i in unsaved for i in readers):
            raise NotDifferentiableError(
                "the gradient of a loop that reads a list or tuple it carries is not "
                "supported; build the list in a loop of its own",
                n.loc,
            )
