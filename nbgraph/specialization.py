"""Specializations of a graph function: one per signature of its arguments.

A call's arguments are bound to the function's signature and split into dynamic values
(graph parameters) and static ones (``static_argnames``).  The dynamic values' types and
the static values make the *signature key*; each key has one ``Specialization``: the
traced, optimised graph and the backend's program for it.  ``api.GraphFunction`` keeps
them by key; gradients, Dask and pickling use them through this module's names.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .backend import Program
from .backend.failures.mapping import mark_run
from .backend.failures.numerics import first_non_finite, has_non_finite
from .backend.failures.sites import site_of
from .config import config
from .convert.calls import Binding
from .errors.exceptions import BreakpointReached
from .graph import runtime
from .graph.ir import Graph, Node, Op
from .graph.pytree import LEAF, flatten, tree_key, unflatten
from .graph.runtime import ConsList, in_eager_type
from .graph.types import ListType, is_device_array, type_of
from .writeback import ArgumentWrites


class Bound(NamedTuple):
    """A call's arguments bound to a graph function's signature."""

    args: tuple  # dynamic values by position
    kwargs: dict  # dynamic values by name
    statics: tuple  # (name, value) of each static argument


class Specialization:
    """One traced, optimised and compiled signature of a graph function."""

    def __init__(
        self,
        graph: Graph,
        program: Program,
        locates: bool,
        helpers: list[Binding],
        names: Sequence[str] = (),
        check_numerics: bool = False,
    ) -> None:
        self.graph = graph
        self.check_numerics = check_numerics  # see backend/failures/numerics.py
        self.helpers = helpers  # a helper redefined since (a notebook cell run again)
        self.program = program
        self.run = program.run
        if any(
            n.op is Op.CALL and n.arg.fn is runtime.breakpoint_effect for n in graph.all_nodes()
        ):  # a run that stops runs again as Python: on the arguments as they were
            self.run = lambda leaves: program.run([_copy(leaf) for leaf in leaves])
        self.locates = locates  # the backend tags its errors with the failing node
        # Arguments the function writes into get their final values after the run.
        self.writes = ArgumentWrites(graph, names) if graph.writes else None
        results = graph.body.results[:-1]  # the last result is the effect token
        self.fix_lists = [i for i, r in enumerate(results) if isinstance(r.type, ListType)]
        self.leaf = graph.out_tree is LEAF and not self.fix_lists and not graph.flavors
        self.own = len(graph.own_results())
        # np.array of a list a graph loop builds, returned as it is: when the list stays
        # empty, eager's empty array (float64 of shape (0,), or the dtype asked for), not
        # one of the items' type and rank, which the graph's static type says.
        self.empty_lists = [
            (i, r.arg.args[1], r.arg.args[2])
            for i, r in enumerate(results[: self.own])
            if r.op is Op.CALL
            and r.arg.fn is runtime.list_to_array
            and r.arg.args[1] in (np.array, np.asarray)
        ]
        self.single = self.leaf and self.writes is None and not self.empty_lists
        self.failed_node: Node | None = None  # where the last failing call raised
        self._shown: tuple[tuple, Graph] | None = None  # annotations -> annotated_graph()

    def failed(self, node: Node | None) -> None:
        """Note the node the last failing call raised in (known after mapping)."""
        self.failed_node = node

    def annotated_graph(self) -> Graph:
        """The graph with what is known beside it: the nodes the program runs in
        Python, its copies inside loops, its fused groups, and the last failure (one
        copy while these stay the same)."""
        notes = (
            self.failed_node,
            tuple(self.program.python_nodes.items()),
            tuple(self.program.copies.items()),
            tuple(map(tuple, self.program.fused)),
        )
        if self._shown is None or self._shown[0] != notes:
            shown = self.graph.annotated(
                failed_node=notes[0],
                python_nodes=dict(notes[1]),
                copies=dict(notes[2]),
                fused=notes[3],
            )
            self._shown = (notes, shown)
        return self._shown[1]

    def _raise_non_finite(self, leaves: Sequence[Any]) -> None:
        """A NaN or an infinity came out: raise where the first was made from finite
        operands (nothing where they came in with the arguments; the arguments are as
        before the run: written ones get their values after this)."""
        found = first_non_finite(self.graph, leaves)
        if found is not None:
            mark_run(found, self.graph, leaves, True, self.failed)
            raise found

    def out_of_date(self) -> bool:
        """Whether a function the graph called has been redefined: trace again."""
        return any(b.changed() for b in self.helpers)

    def __call__(
        self,
        leaves: Sequence[Any],
        given: tuple[tuple, dict] | None = None,
        interpreter: Callable[[Sequence[Any]], list[Any]] | None = None,
    ) -> Any:
        """The results for the argument ``leaves`` (``given``: the call's ``(args, kwargs)``,
        for the argument containers the function returns as they came), run by the
        program or by ``interpreter`` (an ``Interpreter``'s ``run``: its errors carry
        their nodes)."""
        if self.writes is not None:
            self.writes.check(leaves)
        try:
            outputs = (interpreter or self.run)(leaves)
        except BreakpointReached:
            raise
        except Exception as exc:
            mark_run(exc, self.graph, leaves, self.locates or interpreter is not None, self.failed)
            raise
        except KeyboardInterrupt as exc:  # at a graph loop's line, when a backend knows it
            if site_of(exc) is not None:
                mark_run(exc, self.graph, leaves, True, self.failed)
            raise
        if (self.check_numerics or config.check_numerics) and has_non_finite(outputs):
            self._raise_non_finite(leaves)
        if self.single:
            return outputs[0]
        if self.empty_lists:
            outputs = list(outputs)
            for i, how, kwargs in self.empty_lists:
                if isinstance(outputs[i], np.ndarray) and outputs[i].shape[:1] == (0,):
                    outputs[i] = how([], **kwargs)
        if self.writes is not None:
            outputs = self.writes.finish(leaves, outputs)
            if self.leaf:
                return outputs[0]
        outputs = list(outputs)
        for i in self.fix_lists:
            outputs[i] = outputs[i].to_list() if isinstance(outputs[i], ConsList) else outputs[i]
        for i, found in self.graph.flavors:
            outputs[i] = in_eager_type(outputs[i], [(outputs[j], t) for j, t in found])
        return unflatten(self.graph.out_tree, outputs[: self.own], given)


def _copy(leaf: Any) -> Any:
    return leaf.copy() if type(leaf) is np.ndarray else leaf


# Trace-cache keys: an array's (dtype, ndim); a scalar's (dtype, flavor), fixed per type,
# so the per-call key is a dict lookup (this runs on every call).
SCALAR_KEYS: dict[type, Any] = {}
for _type in (bool, int, float, complex, *set(np.sctypeDict.values())):
    if _type in (bool, int, float, complex) or issubclass(_type, np.number | np.bool_):
        _t = type_of(_type(0))
        SCALAR_KEYS[_type] = (_t.dtype, _t.flavor)


def leaf_key(value: Any) -> Any:
    """An argument leaf's part of the key: (dtype, ndim) or a scalar type's key."""
    key = SCALAR_KEYS.get(type(value))
    if key is None and (type(value) is np.ndarray or is_device_array(value)):
        return (np.dtype(value.dtype), len(value.shape))
    return key


def signature_key(bound: Bound) -> Any:
    """The trace-cache key of a bound call: its leaves' types and the static values."""
    keys = [leaf_key(a) for a in bound.args]
    if None in keys or bound.kwargs:
        leaves, tree = flatten((bound.args, bound.kwargs))
        return (tree_key(tree), tuple(leaf_key(leaf) for leaf in leaves), bound.statics)
    return (tuple(keys), bound.statics)


def describe_key(key: Any) -> str:
    """A signature key as argument types: ``(float64 2-d array, Python float)``."""
    try:
        return "(" + ", ".join(_leaf_text(leaf) for leaf in _leaves_and_statics(key)[0]) + ")"
    except (TypeError, ValueError):
        return repr(key)


def _leaf_text(leaf: Any) -> str:
    """One leaf key in words: ``float64 2-d array``, ``Python int``, ``np.float32``."""
    dtype, kind = leaf
    if isinstance(kind, int):
        return f"{dtype} {kind}-d array"
    if kind == "python":
        return f"Python {np.dtype(dtype).type(0).item().__class__.__name__}"
    return f"np.{dtype}"


def retrace_reason(key: Any, earlier: Sequence[Any], names: Sequence[str]) -> str:
    """Why ``key`` needed a new trace, against the ``earlier`` keys: each argument whose
    type or static value differs from the closest earlier key's, by name (``names``,
    one per flat argument; positions where empty)."""
    if not earlier:
        return "first call"
    leaves, statics = _leaves_and_statics(key)

    def changes(other: Any) -> list[str]:
        old_leaves, old_statics = _leaves_and_statics(other)
        if len(old_leaves) != len(leaves) or _structure(other) != _structure(key):
            return ["the arguments' structure changed (containers, lengths, keys)"]
        found = []
        for k, (new, old) in enumerate(zip(leaves, old_leaves)):
            if new != old:
                name = names[k] if k < len(names) else f"argument {k + 1}"
                found.append(f"{name} is a {_leaf_text(new)} (before: {_leaf_text(old)})")
        for (name, value), (_, old) in zip(statics, old_statics):
            if value != old or type(value) is not type(old):
                found.append(f"static {name}={value!r} (before: {old!r})")
        return found

    return "; ".join(min((changes(k) for k in earlier), key=len))


def _leaves_and_statics(key: Any) -> tuple[tuple, tuple]:
    return (key[0], key[1]) if len(key) == 2 else (key[1], key[2])


def _structure(key: Any) -> Any:
    return None if len(key) == 2 else key[0]


def split_dynamic(signature: inspect.Signature, arguments: dict) -> tuple[tuple, dict]:
    """Bound arguments (statics taken out) as positional values while they can be, then
    values by parameter name (``*args`` as a tuple under its name) and ``**kwargs``'s."""
    args: list = []
    kwargs: dict = {}
    positional = True
    for p in signature.parameters.values():
        if p.name not in arguments:  # a static argument: what follows goes by name
            positional = False
        elif positional and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            args.append(arguments[p.name])
        elif positional and p.kind is p.VAR_POSITIONAL:
            args.extend(arguments[p.name])
        elif p.kind is p.VAR_KEYWORD:
            kwargs.update(arguments[p.name])
        else:
            kwargs[p.name] = arguments[p.name]
    return tuple(args), kwargs


def rebind(
    signature: inspect.Signature, args: tuple, kwargs: dict, statics: dict
) -> inspect.BoundArguments:
    """The call's arguments again, from the dynamic ones (see ``split_dynamic``) and
    the static values."""
    positional, named, arguments = list(args), dict(kwargs), {}
    for p in signature.parameters.values():
        if p.name in statics:
            arguments[p.name] = statics[p.name]
        elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            if positional:
                arguments[p.name] = positional.pop(0)
            elif p.name in named:
                arguments[p.name] = named.pop(p.name)
        elif p.kind is p.VAR_POSITIONAL:
            if p.name in named:
                arguments[p.name] = tuple(named.pop(p.name))
            else:
                arguments[p.name], positional = tuple(positional), []
        elif p.kind is p.KEYWORD_ONLY:
            if p.name in named:
                arguments[p.name] = named.pop(p.name)
        else:
            arguments[p.name] = named
    return inspect.BoundArguments(signature, arguments)
