"""What the graph knows about the functions CALL nodes apply.

A CALL node holds a ``Call``: a function and an argument template.  This module gives
each function its display name, its properties (elementwise, effect) and its type
rule.  The default rule runs NumPy itself on small example values, so dtype promotion,
result rank and result flavor are NumPy's by construction; functions whose result rank
depends on argument values (indexing, reshape) have explicit rules below.
"""

from __future__ import annotations

import builtins
import operator
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import runtime
from .numpy_facts import OPERATORS, ufunc_of
from .template import fill, freeze
from .types import (
    ARRAY,
    PYTHON,
    TOKEN,
    GraphType,
    ListType,
    TensorType,
    TupleType,
    result_type_of,
)

EFFECTS = frozenset(
    {
        runtime.print_effect,
        runtime.assert_effect,
        runtime.raise_effect,
        runtime.unbound_effect,
        runtime.refusal_effect,
        runtime.breakpoint_effect,
    }
)


def function_name(fn: Callable) -> str:
    """Display name: '+', 'np.sum', 'exp', 'print'."""
    if fn in OPERATORS:
        return OPERATORS[fn].symbol
    if isinstance(fn, np.ufunc):
        return fn.__name__
    name = getattr(fn, "__name__", type(fn).__name__)
    module = getattr(fn, "__module__", "") or ""
    if module.startswith("numpy"):
        return f"np.{name}"
    return name.removesuffix("_effect")


def is_elementwise(fn: Callable) -> bool:
    """Whether fn maps elements independently with broadcasting (ufuncs, and operators
    that are ufuncs on arrays)."""
    ufunc = ufunc_of(fn)
    return ufunc is not None and ufunc.signature is None


def is_effect(fn: Callable) -> bool:
    """Whether fn has a side effect (ordered by the effect token, never removed)."""
    return fn in EFFECTS


@dataclass(frozen=True, eq=False)
class Call:
    """A function applied to an argument template whose Holes are the node's inputs."""

    fn: Callable
    args: tuple
    kwargs: dict

    @property
    def name(self) -> str:
        return function_name(self.fn)

    def apply(self, values: Any) -> Any:
        """Run the call on concrete input values."""
        return self.fn(*fill(self.args, values), **fill(self.kwargs, values))

    def key(self) -> tuple:
        """Hashable identity for common-subexpression elimination."""
        return (self.fn, freeze(self.args), freeze(self.kwargs))


class TypeInferenceError(Exception):
    """A result type could not be determined (the message says why)."""


def infer(call: Call, input_types: list[GraphType]) -> GraphType:
    """The static type of ``call`` applied to inputs of ``input_types``."""
    _check_shapes(call, input_types)
    rule = _RULES.get(call.fn)
    if rule is not None:
        return rule(call, input_types)
    return _by_example(call, [_example(t) for t in input_types])


# Functions that take a shape: its position and keywords.  The shape's length is the
# result's rank, which a graph must know while tracing.
_SHAPE_PARAMETERS: dict[Callable, tuple[int | None, tuple[str, ...]]] = {
    **{fn: (0, ("shape",)) for fn in (np.zeros, np.ones, np.empty, np.full)},
    **{fn: (None, ("shape",)) for fn in (np.zeros_like, np.ones_like, np.empty_like)},
    np.full_like: (None, ("shape",)),
    np.reshape: (1, ("shape", "newshape")),
    np.broadcast_to: (1, ("shape",)),
    np.tile: (1, ("reps",)),
    np.resize: (1, ("new_shape",)),
}
_SHAPE_METHODS = frozenset({"reshape", "resize"})


def _check_shapes(call: Call, types: list[GraphType]) -> None:
    """Refuse a shape given as a graph array: its length is known only when the graph
    runs (typing by example would take the rank of the array instead)."""
    if call.fn is runtime.call_method:
        shapes = list(call.args[2:]) if call.args[1] in _SHAPE_METHODS else []
    else:
        position, keywords = _SHAPE_PARAMETERS.get(call.fn, (None, ()))
        shapes = [call.kwargs[k] for k in keywords if k in call.kwargs]
        if position is not None and len(call.args) > position:
            shapes.append(call.args[position])
    for shape in shapes:
        filled = fill(shape, types)  # (x.reshape(s) stages as np.reshape(x, (s,)))
        for t in filled if isinstance(filled, (tuple, list)) else (filled,):
            if isinstance(t, TensorType) and t.ndim > 0:
                raise _shape_error(t)


def _shape_error(t: TensorType) -> TypeInferenceError:
    return TypeInferenceError(
        f"the shape is a graph value ({t.describe()}), whose length (the result's "
        "number of dimensions) is known only when the graph runs; give the shape as a "
        "tuple, whose length is known while tracing (pass the argument as a tuple, or "
        "write (int(s[0]), int(s[1])))"
    )


def _example(t: GraphType) -> Any:
    if isinstance(t, TensorType):
        return t.example()
    raise TypeInferenceError(f"a {t.describe()} cannot be used here")


def _by_example(call: Call, examples: list[Any], args: Any = None) -> GraphType:
    """Run the call on example values and read off the result's type."""
    args = call.args if args is None else args
    sizes = _EXAMPLE_SIZES[1:] if call.fn in _RANK_OF_ONE_ROW else _EXAMPLE_SIZES
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k, size in enumerate(sizes):
            sized = _sized(examples, size)
            try:
                result = call.fn(*fill(args, sized), **fill(call.kwargs, sized))
                break
            except ArithmeticError:  # e.g. `a // 0` on a path that may never run: type it
                result = call.fn(*_ones(fill(args, sized)), **call.kwargs)
                break
            except ValueError:  # e.g. np.split(x, 3): arrays of other sizes may do
                if k == len(sizes) - 1 or not any(isinstance(e, np.ndarray) for e in sized):
                    raise
    rtype = result_type_of(result)
    if rtype is None:
        raise TypeInferenceError(
            f"{call.name} returned a {type(result).__name__}, which graph mode cannot hold"
        )
    return rtype


# The sizes of example arrays' dimensions, tried in turn where a call refuses the smaller
# (np.split(x, 3) needs a length divisible by 3), and functions whose result has another
# rank for inputs of size 1 (np.cov of one variable is 0-d), typed on size 2 first.
_EXAMPLE_SIZES = (1, 2, 6, 12, 60)
_RANK_OF_ONE_ROW = frozenset({np.cov, np.corrcoef})


def _sized(examples: list[Any], size: int) -> list[Any]:
    """The example arrays (all of size 1) with every dimension of ``size`` instead."""
    if size == 1:
        return examples
    return [
        np.ones((size,) * e.ndim, dtype=e.dtype) if isinstance(e, np.ndarray) and e.ndim <= 3 else e
        for e in examples
    ]


def _ones(values: Any) -> Any:
    """Numbers replaced by ones of the same type (to type an operation that would fail
    on its constants, like a division by a constant zero)."""
    if type(values) in (tuple, list):
        return type(values)(_ones(v) for v in values)
    if isinstance(values, (bool, int, float, complex, np.generic)):
        return type(values)(1)
    return values


def _index_example(t: GraphType) -> Any:
    """An example index value that is valid on size-1 dimensions."""
    if isinstance(t, TensorType) and t.dtype.kind in "iu":
        return t.example() * 0
    return _example(t)


def _zero_python_ints(template: Any) -> Any:
    """Replace constant integer indices by 0 / -1 so they fit example arrays of size 1,
    and slice steps by 1 (the rank of a slice does not depend on its step)."""
    if type(template) is int:
        return 0 if template >= 0 else -1
    if type(template) is slice:
        return slice(template.start, template.stop, None if template.step is None else 1)
    if type(template) is tuple:
        return tuple(_zero_python_ints(x) for x in template)
    if type(template) is list:
        return [_zero_python_ints(x) for x in template]
    return template


def _rule_getitem(call: Call, types: list[GraphType]) -> GraphType:
    if isinstance(types[0], ListType):
        return types[0].elem
    args = (call.args[0], _zero_python_ints(call.args[1]))
    return _by_example(call, [_index_example(t) for t in types], args)


def _rule_setitem(call: Call, types: list[GraphType]) -> GraphType:
    target = types[0]
    index_args = (call.args[0], _zero_python_ints(call.args[1]), call.args[2])
    examples = [_index_example(t) for t in types]
    examples[0] = target.example() if isinstance(target, TensorType) else _example(target)
    _by_example(call, examples, index_args)
    return TensorType(target.dtype, target.ndim, ARRAY)


def _rule_reshape(call: Call, types: list[GraphType]) -> GraphType:
    x = types[0]
    shape = fill(call.args[1], types)
    ndim = len(shape) if isinstance(shape, (tuple, list)) else 1
    return TensorType(x.dtype, ndim, ARRAY)


def _rule_squeeze(call: Call, types: list[GraphType]) -> GraphType:
    if call.kwargs.get("axis") is None and len(call.args) < 2:
        raise TypeInferenceError(
            "np.squeeze without axis depends on run-time shapes; pass axis= explicitly"
        )
    return _by_example(call, [_example(t) for t in types])


def _rule_python_int(call: Call, types: list[GraphType]) -> GraphType:
    return TensorType(np.dtype(np.int64), 0, PYTHON)


def _rule_token(call: Call, types: list[GraphType]) -> GraphType:
    return TOKEN


def _rule_list_new(call: Call, types: list[GraphType]) -> GraphType:
    return ListType(None)


def _item_type(item: Any) -> GraphType | None:
    """The type of a list item: a number/array, or a tuple of them."""
    if isinstance(item, TensorType):
        return item
    if type(item) is tuple:
        parts = tuple(_item_type(i) for i in item)
        return TupleType(parts) if all(isinstance(p, TensorType) for p in parts) else None
    return result_type_of(item) if not isinstance(item, (ListType, TupleType)) else None


def _shape_key(t: GraphType) -> Any:
    if isinstance(t, TupleType):
        return tuple(_shape_key(i) for i in t.items)
    return (t.dtype, t.ndim)


def _rule_list_append(call: Call, types: list[GraphType]) -> GraphType:
    lst, raw = fill(call.args, types)
    item = _item_type(raw)
    if not isinstance(item, (TensorType, TupleType)):
        raise TypeInferenceError(
            f"cannot append a {type(raw).__name__} to a list built in a graph loop; items "
            "must be numbers, arrays or tuples of them"
        )
    if lst.elem is not None and _shape_key(lst.elem) != _shape_key(item):
        raise TypeInferenceError(
            f"the list holds {lst.elem.describe()} items but a {item.describe()} is appended; "
            "all items of a list built in a graph loop need one dtype and rank"
        )
    return ListType(item if lst.elem is None else lst.elem)


def _rule_list_to_array(call: Call, types: list[GraphType]) -> GraphType:
    elem = types[0].elem
    if elem is None:
        raise TypeInferenceError("cannot make an array from a list that is never appended to")
    how, kwargs = call.args[1], call.args[2]
    example = (
        tuple(i.example() for i in elem.items) if isinstance(elem, TupleType) else elem.example()
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return result_type_of(how([example], **kwargs))


def _rule_list_item(call: Call, types: list[GraphType]) -> GraphType:
    return types[0].elem


def _rule_extremum(call: Call, types: list[GraphType]) -> GraphType:
    values = fill(call.args[1:], [_example(t) for t in types])
    return result_type_of(runtime.extremum(call.args[0], *values))


def _rule_retype(call: Call, types: list[GraphType]) -> GraphType:
    return TensorType(types[0].dtype, types[0].ndim, call.args[1])


def _rule_coerce(call: Call, types: list[GraphType]) -> GraphType:
    return TensorType(call.args[1], types[0].ndim, call.args[2])


def _rule_broadcast_to(call: Call, types: list[GraphType]) -> GraphType:
    shape = fill(call.args[1], types)
    ndim = len(shape) if isinstance(shape, (tuple, list)) else 1
    return TensorType(types[0].dtype, ndim, ARRAY)


_RULES: dict[Callable, Callable[[Call, list[GraphType]], GraphType]] = {
    operator.getitem: _rule_getitem,
    runtime.setitem: _rule_setitem,
    runtime.add_at: _rule_setitem,
    np.reshape: _rule_reshape,
    np.squeeze: _rule_squeeze,
    np.broadcast_to: _rule_broadcast_to,
    runtime.shape_dim: _rule_python_int,
    runtime.list_len: _rule_python_int,
    runtime.list_getitem: _rule_list_item,
    runtime.list_extremum: _rule_list_item,
    runtime.list_new: _rule_list_new,
    runtime.list_append: _rule_list_append,
    runtime.list_to_array: _rule_list_to_array,
    runtime.make_tuple: lambda call, types: TupleType(tuple(fill(call.args, types))),
    runtime.coerce: _rule_coerce,
    runtime.retype: _rule_retype,
    runtime.extremum: _rule_extremum,
    runtime.range_len: _rule_python_int,
    **{fn: _rule_token for fn in EFFECTS},
}

# Python builtins that graph code may apply to graph values; all others are rejected.
STAGEABLE_BUILTINS = frozenset(
    {
        builtins.abs,
        builtins.int,
        builtins.float,
        builtins.bool,
        builtins.complex,
        builtins.round,
        builtins.min,
        builtins.max,
        builtins.pow,
        builtins.divmod,
        builtins.len,
    }
)
