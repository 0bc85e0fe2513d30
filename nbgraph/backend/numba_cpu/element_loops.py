"""Counted loops that update arrays element by element, computed one block at a time.

``for c in coeffs: out = out * x + c`` makes a pass over ``out`` and ``x`` per
iteration, eagerly and as a plain compiled loop.  Each element's value depends only on
the same element of the arrays and on the iteration's scalars, so the loop can run
inside out: for a block of elements that stays in the L1 cache, every iteration, then
the next block.  One pass over memory instead of one per iteration, and the loop over a
block's elements vectorizes.  Each element goes through the same operations in the same
order as eagerly, so the values are the same bit for bit.

A loop qualifies when its test is ``counter < bound`` (``bound`` from outside the loop,
the counter stepping by 1: ``for`` over a range or an array), every other state is an
array the body replaces or the effect token it leaves alone, and every body node is
either an elementwise operation (``fusion``'s kind, computed by a compiled scalar loop)
or a scalar computed from the counter and values from outside the loop (an item of an
array, Python arithmetic).  The scalars are computed first, iteration by iteration, so
errors among them are raised as before; then the kernel computes the arrays.  At run time
the loop takes this path only when it has an iteration, every array involved is
C-contiguous and of one shape, and (where scalars are stored) at most ``MAX_STORED``
iterations; otherwise the loop runs as written.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

from ...graph.ir import Node, Op, Region
from ...graph.template import Hole
from ...graph.types import ARRAY, PYTHON, TensorType, TokenType
from ..common.fusion import Group, is_fusable
from .kernels import HEADER, Lines, Lowering, indent

BLOCK = 512  # elements a block: a few arrays of it stay in the L1 cache
MAX_STORED = 1 << 16  # iterations whose scalars are computed first and stored


@dataclass
class ElementLoop:
    """A loop computed block by block: the while node, its counter state and bound, the
    array states, the body nodes computed per iteration (``scalars``) and per element
    (``elements``), and what the elements read from those scalars and from outside."""

    node: Node
    counter: int
    bound: Node
    states: list[int]
    scalars: list[Node]
    elements: list[Node]
    per_iteration: list[Node]
    outside: list[Node]

    @property
    def outside_arrays(self) -> list[Node]:
        return [n for n in self.outside if n.type.ndim > 0]


def match(node: Node, per_element: Callable[[Node], bool]) -> ElementLoop | None:
    """The loop's plan if it qualifies (see the module docstring); ``per_element`` says
    whether the backend computes a fusable node with a compiled scalar loop."""
    test, body = node.arg
    found = _counter(test, body)
    if found is None:
        return None
    counter, bound = found
    inside = _nodes_of(test) | _nodes_of(body)
    if bound in inside:
        return None
    states = []
    for k, (t, result) in enumerate(zip(node.type.items, body.results)):
        if k == counter:
            continue
        if isinstance(t, TokenType):
            if result is not body.params[k]:
                return None
        elif isinstance(t, TensorType) and t.flavor == ARRAY and t.ndim > 0:
            states.append(k)
        else:
            return None
    if not states:
        return None
    ndim = node.type.items[states[0]].ndim
    by_element = {body.params[k] for k in states}
    by_iteration = {body.params[counter]}
    scalars: list[Node] = []
    elements: list[Node] = []
    for n in body.nodes:
        if n.regions():
            return None
        if is_fusable(n) and per_element(n):
            if n.type.ndim != ndim or not all(
                _readable(i, by_element, inside, ndim) for i in n.inputs
            ):
                return None
            elements.append(n)
            by_element.add(n)
        elif _is_scalar(n) and not by_element.intersection(n.inputs):
            scalars.append(n)
            by_iteration.add(n)
        else:
            return None
    if not elements or not Group(elements[-1], elements).scalar_loop_safe:
        return None
    for k in states:
        result = body.results[k]
        if result not in elements or result.type != node.type.items[k]:
            return None
    read = [i for n in elements for i in n.inputs]
    per_iteration = [n for n in [body.params[counter], *scalars] if n in read]
    if any(n.type.flavor == PYTHON and n.type.dtype.kind != "f" for n in per_iteration):
        return None  # (Python ints and bools: their range and kind checks stay per pass)
    outside = list(dict.fromkeys(i for i in read if i not in inside))
    if any(i.type.flavor == PYTHON and i.type.dtype.kind != "f" for i in outside):
        return None
    return ElementLoop(node, counter, bound, states, scalars, elements, per_iteration, outside)


def _counter(test: Region, body: Region) -> tuple[int, Node] | None:
    """The counter's state index and the bound of a ``counter < bound`` loop whose body
    adds 1 to the counter."""
    if len(test.nodes) != 1 or test.results[0] is not test.nodes[0]:
        return None
    less = test.nodes[0]
    if not _is_call(less, operator.lt, (Hole(0), Hole(1))):
        return None
    param, bound = less.inputs
    if param not in test.params:
        return None
    counter = test.params.index(param)
    step = body.results[counter]
    if not _is_call(step, operator.add, (Hole(0), 1)) or step.inputs[0] is not body.params[counter]:
        return None
    return counter, bound


def _is_call(node: Node, fn: Callable, args: tuple) -> bool:
    return (
        node.op is Op.CALL
        and node.arg.fn is fn
        and node.arg.args == args
        and not node.arg.kwargs
        and len(node.inputs) == sum(isinstance(a, Hole) for a in args)
    )


def _is_scalar(node: Node) -> bool:
    t = node.type
    return node.op in (Op.CALL, Op.CONST) and isinstance(t, TensorType) and t.ndim == 0


def _readable(value: Node, by_element: set[Node], inside: set[Node], ndim: int) -> bool:
    """Whether an element node's operand is a state, another element node, a scalar, or
    an array from outside of the loop's rank (its shape is checked at run time)."""
    if value in by_element or value.type.ndim == 0:
        return True
    return value not in inside and value.type.ndim == ndim


def _nodes_of(region: Region) -> set[Node]:
    found = set(region.params)
    for n in region.nodes:
        found.add(n)
        for sub in n.regions():
            found |= _nodes_of(sub)
    return found


def kernel(loop: ElementLoop, lowering: Lowering, number: int, handed_over: set[int]) -> Lines:
    """The kernel's source, named ``KERNEL``: parameters ``trip`` (iterations, at least
    one), one array per scalar read per iteration, the states' initial arrays, then the
    values from outside; returns the states' final arrays as a tuple.  The states in
    ``handed_over`` (indices into the node's states) are computed in their initial array,
    which nothing else reads; the rest in new ones."""
    body = loop.node.arg[1]
    states = [f"c{j}" for j in range(len(loop.states))]
    steps = [f"q{j}" for j in range(len(loop.per_iteration))]
    outside = [f"v{j}" for j in range(len(loop.outside))]
    lines = [HEADER, f"def KERNEL(trip, {', '.join(steps + states + outside)}):"]
    setup: Lines = ["n = c0.size"]
    names: dict[Node, str] = {}
    copy_in: Lines = []
    for j, k in enumerate(loop.states):
        names[body.params[k]] = f"b{j}[i]"
        if k in handed_over:
            setup += [f"o{j} = c{j}", f"r{j} = o{j}.reshape(n)"]
            continue
        dtype = loop.node.type.items[k].dtype
        setup += [
            f"o{j} = helpers.advise_huge(np.empty(c0.shape, {lowering.literal(dtype)}))",
            f"r{j} = o{j}.reshape(n)",
            f"f{j} = pairwise.flat(c{j})",
        ]
        copy_in.append(f"r{j}[start:stop] = f{j}[start:stop]")
    blocks: Lines = [f"b{j} = r{j}[start:stop]" for j in range(len(loop.states))]
    for j, value in enumerate(loop.outside):
        if value.type.ndim:
            setup.append(f"w{j} = pairwise.flat(v{j})")
            blocks.append(f"x{j} = w{j}[start:stop]")
            names[value] = f"x{j}[i]"
        else:
            names[value] = f"v{j}"
    for j, value in enumerate(loop.per_iteration):
        names[value] = f"s{j}"
    element: Lines = []
    for n, member in enumerate(loop.elements):
        expr = lowering.element_expression(member, [names[i] for i in member.inputs])
        element.append(f"e{n} = {expr}")
        names[member] = f"e{n}"
    stores = [f"b{j}[i] = {names[body.results[k]]}" for j, k in enumerate(loop.states)]
    lines += indent(
        [
            *setup,
            "ticks = 0",
            f"for start in range(0, n, {BLOCK}):",
            f"    stop = min(start + {BLOCK}, n)",
            *indent(copy_in + blocks),
            "    for t in range(trip):",
            "        ticks += 1",
            "        if helpers.interrupted(ticks):",
            f"            raise helpers.Interrupted({number}, t)",
            *indent([f"s{j} = q{j}[t]" for j in range(len(steps))], 2),
            "        for i in range(stop - start):",
            *indent(element + stores, 3),
            f"return ({', '.join(f'o{j}' for j in range(len(states)))},)",
        ]
    )
    return lines
