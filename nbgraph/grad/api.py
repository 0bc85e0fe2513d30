"""``nbgraph.grad`` and ``nbgraph.value_and_grad``: gradients of scalar functions.

The function is traced on the arguments' types into a graph of its own, copied into the
graph being built (the forward pass) and followed by its backward pass, so a gradient
is an ordinary graph: called inside a graph function it becomes part of that graph (a
whole training step compiles to one graph); called directly it runs as a graph
function of its own.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from ..api import GraphFunction
from ..convert.conversion import convert
from ..graph.ir import Graph, Node
from ..graph.passes import optimize
from ..graph.pytree import LEAF, flatten, unflatten
from ..graph.types import type_of
from ..staging.traced import Traced, is_graph_value, lift, wrap
from ..staging.tracing import current, is_tracing, top_region
from ..staging.undefined import check_defined
from .backward import Backward, is_real
from .broadcast import cast, zeros
from .copying import Copier


class Gradient:
    """The gradient of ``fn`` with respect to positional arguments ``argnums``; see
    ``grad``."""

    def __init__(
        self, fn: Callable, argnums: int | Sequence[int], with_value: bool, backend: str | None
    ) -> None:
        if not callable(fn):
            raise TypeError(f"nbgraph.grad needs a function, got {type(fn).__name__}")
        single = isinstance(argnums, int)
        numbers = (argnums,) if single else tuple(argnums)
        if not numbers or not all(isinstance(a, int) and a >= 0 for a in numbers):
            raise ValueError(
                f"argnums must be a non-negative int or a tuple of them, got {argnums!r}"
            )
        graph_fn = fn if isinstance(fn, GraphFunction) else None
        self.python_function = graph_fn.python_function if graph_fn else fn
        self.argnums = numbers
        self.single = single
        self.with_value = with_value
        self.__name__ = getattr(self.python_function, "__name__", "function")
        self.__doc__ = getattr(self.python_function, "__doc__", None)
        backend = backend or (graph_fn.backend if graph_fn else "interpret")
        parallel = graph_fn.parallel if graph_fn else False
        # One graph function per gradient: a gradient made anew in an eager loop
        # (``value_and_grad(f)(w)`` each step) reuses the compiled one.
        key = (self.argnums, single, with_value, backend, parallel)
        made = _FUNCTIONS.setdefault(self.python_function, {})
        if key not in made:
            made[key] = _gradient_function(self, backend, parallel)
        self.function = made[key]

    def __repr__(self) -> str:
        kind = "value_and_grad" if self.with_value else "grad"
        return f"<nbgraph.{kind} of {self.__name__} ({self.function.backend})>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if is_tracing():  # inside a graph function: part of its graph
            return self.trace(args, kwargs)
        return self.function(*args, **kwargs)

    def graph(self, *args: Any, **kwargs: Any) -> Graph:
        """The forward and backward graph for these arguments' signature."""
        return self.function.graph(*args, **kwargs)

    def trace(self, args: tuple, kwargs: dict) -> Any:
        """Emit the forward and backward pass into the graph being traced."""
        for a in self.argnums:
            if a >= len(args):
                raise TypeError(
                    f"gradient of {self.__name__} with respect to "
                    f"{self._argument(a)}, but it was called with {len(args)} "
                    "positional arguments"
                )
        leaves, in_tree = flatten((args, kwargs), is_leaf=_is_leaf)
        graph = self._forward_graph(leaves, in_tree)
        params = graph.body.params
        copier = Copier({p: lift(leaf).node for p, leaf in zip(params, leaves)})
        outer = current()
        copier.here(graph.body, effects=True)
        outer.token = copier.env[graph.body.results[-1]]
        out = graph.body.results[0]
        t = out.type
        if not (is_real(out) and t.ndim == 0):
            raise TypeError(
                f"{self.__name__} must return a real floating scalar to be "
                f"differentiated; it returns a {t.describe()}"
            )
        cotangents = {out: cast(lift(1.0), t)}
        Backward(copier).region(graph.body, cotangents)
        grads = []
        start = 0
        for number, arg in enumerate(args):
            count = len(flatten(arg, is_leaf=_is_leaf)[0])
            if number in self.argnums:
                grads.append(
                    self._gradient(number, arg, params[start : start + count], cotangents, copier)
                )
            start += count
        grads = [grads[sorted(self.argnums).index(a)] for a in self.argnums]
        result = grads[0] if self.single else tuple(grads)
        return (Traced(copier.env[out]), result) if self.with_value else result

    def _forward_graph(self, leaves: list[Any], in_tree: Any) -> Graph:
        """fn traced on the arguments' types, in a graph of its own."""
        converted = convert(self.python_function)
        with top_region() as top:
            params = [
                wrap(top.add_param(leaf.type if isinstance(leaf, Traced) else type_of(leaf)))
                for leaf in leaves
            ]
            call_args, call_kwargs = unflatten(in_tree, params)
            result = converted(*call_args, **call_kwargs)
            check_defined(result)
            if not isinstance(result, Traced) and type_of(result) is None:
                raise TypeError(
                    f"{self.__name__} must return a real floating scalar to be "
                    f"differentiated; it returns a {type(result).__name__}"
                )
            top.region.results = (lift(result).node, top.token)
        return optimize(Graph(self.__name__, top.region, in_tree, LEAF))

    def _argument(self, number: int) -> str:
        """A positional argument as the user wrote it: its parameter's name and position."""
        try:
            parameters = list(inspect.signature(self.python_function).parameters.values())
        except (TypeError, ValueError):
            parameters = []
        positional = [
            p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        if number < len(positional):
            return f"'{positional[number].name}' (argument {number})"
        return f"argument {number}"

    def _gradient(
        self, number: int, arg: Any, params: list[Node], cotangents: dict, copier: Copier
    ) -> Any:
        """The gradient for one argument, in the argument's structure."""
        _, tree = flatten(arg, is_leaf=_is_leaf)
        out = []
        for p in params:
            if not is_real(p):
                raise TypeError(
                    f"gradient of {self.__name__} with respect to "
                    f"{self._argument(number)}: "
                    f"{p.type.describe()} values carry no gradient; pass floating-point "
                    "values"
                )
            g = cotangents.get(p)
            out.append(cast(g, p.type) if g is not None else zeros(Traced(copier.env[p])))
        return unflatten(tree, out)


def _is_leaf(value: Any) -> bool:
    """Arguments' leaves: graph values, numbers and arrays."""
    return is_graph_value(value) or type_of(value) is not None


_FUNCTIONS: weakref.WeakKeyDictionary[Callable, dict[tuple, GraphFunction]] = (
    weakref.WeakKeyDictionary()
)


def _gradient_function(gradient: Gradient, backend: str, parallel: bool) -> GraphFunction:
    """The gradient run as a graph function of its own (a call outside any graph)."""

    def traced() -> Callable:
        return lambda *args, **kwargs: gradient.trace(args, kwargs)

    return GraphFunction(
        gradient.python_function, backend=backend, parallel=parallel, traced=traced
    )


def grad(fn: Callable, argnums: int | Sequence[int] = 0, backend: str | None = None) -> Gradient:
    """The gradient of ``fn``'s real scalar result with respect to its positional
    argument(s) ``argnums`` (an int: one gradient; a tuple: a tuple of them), each in
    its argument's structure, shape and dtype.  ``fn`` may be a plain function (run on
    ``backend``, default "interpret") or a graph function (run on its backend); the
    gradient can be called inside a graph function, where it joins that graph."""
    return Gradient(fn, argnums, with_value=False, backend=backend)


def value_and_grad(
    fn: Callable, argnums: int | Sequence[int] = 0, backend: str | None = None
) -> Gradient:
    """Like ``grad``, but calls return ``(fn's value, gradient)``."""
    return Gradient(fn, argnums, with_value=True, backend=backend)
