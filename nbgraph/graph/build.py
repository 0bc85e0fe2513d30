"""Build a Graph by running a converted function on traced parameters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors.exceptions import StagingError
from .ir import Graph
from .pytree import flatten, unflatten
from .tracing import check_visible, is_graph_value, lift, top_region, wrap
from .types import type_of
from .undefined import check_defined


def trace(name: str, converted: Callable, args: tuple, kwargs: dict) -> Graph:
    """Trace ``converted(*args, **kwargs)``: numbers and arrays become parameters.

    An argument array the function writes into (in place, through an alias or a view)
    is left with a new value: the graph returns it after the function's own results
    (``Graph.writes``), and the backend puts it into the caller's array.
    """
    leaves, in_tree = flatten((args, kwargs))
    with top_region() as top:
        params = [wrap(top.add_param(type_of(leaf))) for leaf in leaves]
        for param in params:
            param.argument = True
        call_args, call_kwargs = unflatten(in_tree, params)
        result = converted(*call_args, **call_kwargs)
        check_defined(result)
        out_leaves, out_tree = flatten(result, is_leaf=_is_result_leaf)
        nodes = [lift(leaf).node for leaf in out_leaves]
        writes = tuple(k for k, p in enumerate(params) if p.node is not top.region.params[k])
        nodes += [params[k].node for k in writes]
        for node in nodes:
            check_visible(top, node)
        top.region.results = (*nodes, top.token)
    return Graph(name, top.region, in_tree, out_tree, writes=writes)


def _is_result_leaf(value: Any) -> bool:
    if is_graph_value(value) or type_of(value) is not None:
        return True
    if hasattr(value, "__array_function__") or hasattr(value, "render"):
        raise StagingError(f"a graph function cannot return a {type(value).__name__}")
    return False
