"""Build a Graph by running a converted function on traced parameters."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from ..errors.exceptions import StagingError
from ..graph import runtime
from ..graph.ir import Graph, Node, Op, Region
from ..graph.pytree import container_paths, flatten, unflatten
from ..graph.types import type_of
from .flavors import flags
from .statements import raise_when_run, something_happened
from .traced import check_bound, check_current, is_graph_value, lift, wrap
from .tracing import (
    argument_containers,
    changed_argument,
    check_visible,
    top_region,
    traced_calls,
)
from .undefined import check_defined


def trace(
    name: str, converted: Callable, args: tuple, kwargs: dict, names: Sequence[str] = ()
) -> Graph:
    """Trace ``converted(*args, **kwargs)``: numbers and arrays become parameters, named
    ``names`` (the user's names of the argument leaves, where known).

    An argument array the function writes into (in place, through an alias or a view)
    is left with a new value: the graph returns it after the function's own results
    (``Graph.writes``), and the backend puts it into the caller's array.  A number whose
    Python type depends on the run gets its flags returned between the two
    (``Graph.flavors``).
    """
    leaves, in_tree = flatten((args, kwargs))
    with top_region() as top:
        params = [wrap(top.add_param(type_of(leaf))) for leaf in leaves]
        if len(names) == len(params):
            top.region.names = tuple(names)
        for param in params:
            param.argument = True
        call_args, call_kwargs = unflatten(in_tree, params)
        given = [c for i, a in enumerate(call_args) for c in _containers(a, f"argument {i + 1}")]
        given += [c for k, a in call_kwargs.items() for c in _containers(a, f"argument {k!r}")]
        with argument_containers([(where, c) for where, c, _ in given]):
            try:
                result = converted(*call_args, **call_kwargs)
            except Exception as exc:  # an error of values known while tracing
                if not (something_happened() and raise_when_run(exc)):
                    raise
                result = None  # (never returned: the graph raises before)
        check_defined(result)
        _check_unchanged(name, given)
        # An argument's tuple, list or dict returned as it came is the caller's object.
        given_at = container_paths((call_args, call_kwargs))
        out_leaves, out_tree = flatten(result, is_leaf=_result_leaf(name), given=given_at)
        for leaf in out_leaves:
            check_bound(leaf)  # returning a variable is a use of it
            check_current(leaf)
        nodes = [lift(leaf).node for leaf in out_leaves]
        flavors = []  # results whose Python type depends on the run: their flags follow
        for i, alts in flags(out_leaves):
            flavors.append((i, tuple((len(nodes) + j, t) for j, (_, t) in enumerate(alts))))
            nodes += [when.node for when, _ in alts]
        writes = tuple(k for k, p in enumerate(params) if p.node is not top.region.params[k])
        nodes += [params[k].node for k in writes]
        for node in nodes:
            check_visible(top, node)
        top.region.results = (*_unchecked_returns(top.region, nodes), top.token)
        calls = traced_calls()
    return Graph(
        name, top.region, in_tree, out_tree, writes=writes, flavors=tuple(flavors), calls=calls
    )


def _unchecked_returns(region: Region, results: list[Node]) -> list[Node]:
    """``results`` where an np.array of a graph list that nothing else uses is returned:
    the run gives an empty one eager's array back, so it need not raise (the check of
    ``runtime.list_to_array``)."""
    checked = {
        node
        for node in results
        if node.op is Op.CALL and node.arg.fn is runtime.list_to_array and node.arg.args[4]
    }
    if not checked:
        return results
    nested = region.walk()[1:]
    checked -= {i for r in region.walk() for n in r.nodes for i in n.inputs}
    checked -= {result for r in nested for result in r.results}
    unchecked = {}
    for k, node in enumerate(region.nodes):
        if node in checked:
            call = dataclasses.replace(node.arg, args=(*node.arg.args[:4], False))
            unchecked[node] = Node(Op.CALL, node.inputs, call, node.type, node.loc)
            region.nodes[k] = unchecked[node]
    return [unchecked.get(node, node) for node in results]


def _result_leaf(name: str) -> Callable[[Any], bool]:
    """Whether a part of ``name``'s result is a leaf (a number or array); refuses what
    a graph cannot return."""

    def is_leaf(value: Any) -> bool:
        if is_graph_value(value) or type_of(value) is not None:
            return True
        if hasattr(value, "render"):
            raise StagingError(
                f"{name} returns a string made from graph values (an f-string, str(), "
                ".format or %), which is known only when the graph runs, and a graph "
                "returns numbers and arrays: return the numbers and format them outside "
                f"{name}, print the string inside it, or call {name}.eager(...) to run it "
                "as plain Python"
            )
        if hasattr(value, "__array_function__"):
            raise StagingError(
                f"{name} returns a {type(value).__name__}, which a graph cannot return; "
                f"return NumPy arrays, or call {name}.eager(...) to run it as plain Python"
            )
        return False

    return is_leaf


def _containers(value: Any, where: str) -> list[tuple[str, Any, tuple]]:
    """The lists, dicts and sets among a call's arguments, each with where it is and
    what it holds (the identity of each item), to tell later whether it was changed."""
    found = []
    if type(value) in (list, dict, set):
        items = value.items() if type(value) is dict else value
        found.append(
            (
                where,
                value,
                tuple(map(id, items))
                if type(value) is not dict
                else tuple((k, id(v)) for k, v in items),
            )
        )
    if type(value) in (list, tuple):
        for i, item in enumerate(value):
            found += _containers(item, f"{where}[{i}]")
    elif type(value) is dict:
        for key, item in value.items():
            found += _containers(item, f"{where}[{key!r}]")
    return found


def _check_unchanged(name: str, given: list[tuple[str, Any, tuple]]) -> None:
    """Refuse a function that changes a list, dict or set it was given: graph mode
    passes it a copy, so the caller's container would not change as it does eagerly."""
    for where, container, items in given:
        now = (
            tuple(map(id, container))
            if type(container) is not dict
            else tuple((k, id(v)) for k, v in container.items())
        )
        if now != items:
            raise StagingError(changed_argument(name, where, container))
