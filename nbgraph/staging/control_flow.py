"""Staged control flow: the operators converted ``if``/``while``/``for`` call.

Each operator first looks at its condition or iterable.  A Python value decides now, at
trace time, and the statement runs as plain Python (unrolled), exactly like AutoGraph.
A graph value becomes a COND or WHILE node whose regions are traced from the converted
branch and body functions.  Converted code passes every variable the statement assigns
as ``names`` with its current values; branch and body functions take them as arguments
and return their new values.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors.exceptions import LoopTypeError, StagingError
from ..graph import runtime
from ..graph.functions import Call
from ..graph.ir import Node, Op
from ..graph.pytree import field_names, is_dataclass_instance, is_namedtuple
from ..graph.template import Hole
from ..graph.types import ARRAY, PYTHON, SCALAR, TOKEN, ListType, TensorType, TupleType, type_of
from ..source.locations import Loc
from ..source.origins import generated_names, user_location, user_variables
from .aliases import (
    Writes,
    check_loop_body,
    concrete_aliases,
    entering_arrays,
    inherit_arguments,
    merge_branches,
    set_after,
    standing_in,
    take_writes,
    with_outer_arrays,
)
from .containers import fresh, fresh_state, structure, with_fields
from .flavors import (
    TYPE_FLAG,
    CarryFlags,
    FlaggedLoop,
    after_branches,
    flags_to_carry,
    give,
    other_types_of,
    same_value,
)
from .iteration import GraphSequence, as_graph_sequence
from .statements import raise_when_run, user_error_location
from .traced import (
    Traced,
    TracedList,
    Unbound,
    alias_on_one_path,
    call,
    const,
    is_graph_value,
    memory_root,
    visible_alts,
    wrap,
)
from .tracing import RegionBuilder, add_node, current, reenter, region, unrolled_iteration
from .undefined import Deleted, LoopUndefined, Undefined, UndefinedReturn, Unjoinable
from .unify import describe_variable, join_tensor_types

State = Sequence[Any]


# The bases of the names of the flags conversion adds for a break, a continue and a
# return (``convert/converters``), and the kind of statement each is for.
BREAK_FLAG, CONTINUE_FLAG, RETURN_FLAG = "break", "continue", "do_return"
FLAG_NAMES = {BREAK_FLAG: "break", CONTINUE_FLAG: "continue", RETURN_FLAG: "return"}


def flag_kind(name: str, generated: frozenset[str]) -> str | None:
    """Which statement's flag the variable ``name`` is, or "type" for the flag of a
    variable's Python type (``flavors.py``); None: not a flag."""
    if name.startswith(TYPE_FLAG):
        return "type"
    base = name.rpartition("_")[0]
    return FLAG_NAMES.get(base) if name in generated else None


def _where() -> str:
    loc = user_location()
    return f"line {loc.lineno}" if loc else "graph code"


def _line() -> int:
    loc = user_location()
    return loc.lineno if loc else 0


def _is_number(value: Any) -> bool:
    return isinstance(value, Traced) or type_of(value) is not None


def as_predicate(value: Any) -> Traced:
    """A graph value as a Python-bool graph value (bool() applied at run time)."""
    t = value.type
    if isinstance(t, TensorType) and t.flavor == PYTHON and t.dtype.kind == "b":
        return value
    if isinstance(value, TracedList):
        return call(runtime.list_len, value) > 0
    return call(bool, value)


def _to_graph_list(value: Any, target: ListType) -> TracedList:
    """A Python list of numbers/graph values as a graph list of type ``target``."""
    if isinstance(value, TracedList):
        return value
    lst = _placeholder_of_type(target)
    for item in value:
        lst.append(_coerce(item, target.elem))
    return lst


class _Packed:
    """A tuple of graph values packed into one node (a loop variable holding a tuple)."""

    def __init__(self, node: Node) -> None:
        self.node = node


def _pack(items: list[Any], target: TupleType) -> _Packed:
    nodes = tuple(_coerce(v, t).node for v, t in zip(items, target.items))
    the_call = Call(runtime.make_tuple, tuple(Hole(i) for i in range(len(nodes))), {})
    return _Packed(add_node(Op.CALL, nodes, the_call, target))


def _coerce(value: Any, target: Any) -> Any:
    """value (in the current region) as a graph value of exactly type ``target``."""
    if isinstance(target, TupleType):
        return _pack(list(value), target)
    if isinstance(target, ListType):
        if isinstance(value, TracedList) and value.type.elem is not None:
            return value
        if isinstance(value, TracedList) or not value:
            return _placeholder_of_type(target)
        return _to_graph_list(value, target)
    traced = value if isinstance(value, Traced) else const(value)
    if traced.type != target:
        if _scalar_kinds(traced.type, target):
            traced = call(runtime.retype, traced, target.flavor)
        else:
            traced = call(runtime.coerce, traced, target.dtype, target.flavor)
    return traced


def _scalar_kinds(a: TensorType, b: TensorType) -> bool:
    """Whether a and b differ only as Python scalar vs NumPy scalar of one dtype."""
    same = (a.dtype, a.ndim) == (b.dtype, b.ndim)
    return same and {a.flavor, b.flavor} == {PYTHON, SCALAR}


def _placeholder_of_type(t: Any) -> Any:
    """A value of type t for a path whose value is never used (or an empty list)."""
    if isinstance(t, TupleType):
        return _pack([_placeholder_of_type(i) for i in t.items], t)
    if isinstance(t, ListType):
        return TracedList(add_node(Op.CALL, (), Call(runtime.list_new, (), {}), t))
    return const(t.zero())


def _placeholder(like: Any) -> Any:
    """A value of like's type for a path whose value is never used (item by item for
    tuples and lists: their graph values may be defined only on like's path)."""
    if type(like) in (tuple, list):
        return type(like)(_placeholder(item) for item in like)
    return _placeholder_of_type(like.type) if is_graph_value(like) else like


def _value_type(value: Any) -> Any:
    if isinstance(value, (Traced, TracedList)):
        return value.type
    if type(value) is list:
        return ListType(_value_type(value[0]) if value else None)
    if type(value) is tuple:
        items = tuple(_value_type(v) for v in value)
        return TupleType(items) if all(isinstance(t, TensorType) for t in items) else None
    return type_of(value)


def _carriable(value: Any) -> bool:
    """Whether a loop can carry value: a number, array, list or tuple of numbers."""
    if type(value) is tuple:
        return isinstance(_value_type(value), TupleType)
    return _is_number(value) or isinstance(value, (list, TracedList))


def _join_types(a: Any, b: Any, name: str, where: str, in_loop: bool) -> Any:
    if isinstance(a, TupleType) or isinstance(b, TupleType):
        if not (isinstance(a, TupleType) and isinstance(b, TupleType)) or len(a.items) != len(
            b.items
        ):
            raise LoopTypeError(
                f"{describe_variable(name)} holds tuples of different lengths or a "
                f"tuple on one path only ({where})",
                user_location(),
            )
        return TupleType(
            tuple(
                _join_types(x, y, f"{name}[{i}]", where, in_loop)
                for i, (x, y) in enumerate(zip(a.items, b.items))
            )
        )
    if isinstance(a, ListType) or isinstance(b, ListType):
        if not (isinstance(a, ListType) and isinstance(b, ListType)):
            raise LoopTypeError(
                f"{describe_variable(name)} is a list on one path only ({where})", user_location()
            )
        if a.elem is None or b.elem is None:
            return a if b.elem is None else b
        _join_types(a.elem, b.elem, f"{name}[...]", where, in_loop)
        return a
    return join_tensor_types(a, b, name, where, in_loop=in_loop)


def _same_python_value(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is not type(b) or is_graph_value(a):
        return False
    try:
        if isinstance(a, np.ndarray):
            return a.dtype == b.dtype and a.shape == b.shape and bool(np.all(a == b))
        return bool(a == b)
    except Exception:
        return False


# --- cond ---------------------------------------------------------------------------


class _Branch:
    def __init__(
        self,
        builder: RegionBuilder,
        kept: list[bool],
        inputs: list[Any],
        outputs: list[Any],
        writes: Writes,
    ) -> None:
        self.builder = builder
        self.kept = kept  # per variable: whether it names the array it named before
        self.inputs = inputs  # per variable: the branch's handle or private copy
        self.outputs = outputs
        self.writes = writes  # arrays from outside the if it wrote: their final values


def _wrote(branch: _Branch, array: Any) -> bool:
    return id(array) in branch.writes


def _trace_branch(fn: Callable, init: State, description: str) -> _Branch:
    with region(description) as builder:
        # Arrays enter as themselves, so that every name for one sees its writes; what
        # the branch wrote is taken back after it (take_writes) and merged.
        inputs = [v if isinstance(v, Traced) else f for v, f in zip(init, fresh_state(init))]
        try:
            outputs = list(fn(*inputs))
        except Exception as exc:
            if not raise_when_run(exc):
                raise
            outputs = list(inputs)
        kept = [isinstance(i, Traced) and o is i for i, o in zip(inputs, outputs)]
        writes = take_writes(builder, (), outputs)
    return _Branch(builder, kept, inputs, outputs, writes)


def _changes_concrete_alias(
    names: Sequence[str], init: State, branches: Sequence[_Branch], where: str
) -> None:
    """Refuse an if that writes into a variable naming an array made from constants
    while tracing that other variables name too (or computes its new value from it):
    each branch works on its own copy of such an array, so eagerly visible writes would
    not reach the others."""
    for k, (name, value) in enumerate(zip(names, init)):
        others = concrete_aliases(name, value)
        if not others:
            continue
        for branch in branches:
            out, copy = branch.outputs[k], branch.inputs[k]
            if out is copy and np.array_equal(copy, value, equal_nan=True):
                continue
            if out is copy or (isinstance(out, Traced) and _computed_from(out.node, copy)):
                raise StagingError(
                    _written_alias(name, f"the if at {where}", others), user_location()
                )


def _computed_from(node: Node, array: np.ndarray) -> bool:
    """Whether ``node`` reads ``array`` (a constant: an array made while tracing),
    through at most a few hundred nodes."""
    seen, todo = set(), [node]
    while todo and len(seen) < 256:
        node = todo.pop()
        if node.op is Op.CONST and node.arg is array:
            return True
        if id(node) not in seen:
            seen.add(id(node))
            todo += node.inputs
    return False


def _same_array(
    name: str, old: Any, new: Any, kept: list[bool], written: list[bool], where: str
) -> Any:
    """A variable's value after a staged statement.  Where every path leaves the name on
    the array it named before (``kept``, per path; ``written``: whether the path wrote
    into that array), that array itself is updated (in place, as eagerly: its aliases,
    its views and the caller's argument see the writes)."""
    if not isinstance(old, Traced) or not isinstance(new, Traced):
        return new
    if all(kept):
        if any(written) and new is not old:
            old.rebind(new.node)
        return old
    if any(w and not k for w, k in zip(written, kept)) and old.argument:
        raise StagingError(
            f"the function writes into its argument array '{name}' in the staged branch or "
            f"loop at {where} and also assigns '{name}' a new array there, so which array "
            f"'{name}' names depends on the run; graph mode cannot write that back into the "
            f"caller's array. Write into a copy ({name} = {name}.copy() first) or assign "
            "the new array to another name, or call .eager(...) to run it as written",
            user_location(),
        )
    return new


class _Merge:
    """Collects the (then, else) result pairs of a cond and rebuilds Python values."""

    def __init__(self, pred: Traced, then: _Branch, other: _Branch, where: str) -> None:
        self.pred, self.then, self.other, self.where = pred, then, other, where
        self.pairs: list[tuple[Node, Node]] = []
        self.type_flags: list[int] = []  # the pairs that are flags of a Python type

    def merge(self, name: str, a: Any, b: Any) -> Callable[[list[Any]], Any]:
        """Return a function that rebuilds the merged value from the cond's outputs."""
        then, other = self.then, self.other
        if then.builder.diverged and not other.builder.diverged:
            with reenter(then.builder):
                a = _placeholder(b)
        elif other.builder.diverged and not then.builder.diverged:
            with reenter(other.builder):
                b = _placeholder(a)
        if a is b or (is_graph_value(a) and is_graph_value(b) and a.node is b.node):
            return lambda outs: a if not is_graph_value(a) else same_value(a, wrap(a.node))
        if isinstance(a, Deleted) or isinstance(b, Deleted):
            line = (a if isinstance(a, Deleted) else b).line
            both = isinstance(a, Deleted) and isinstance(b, Deleted)
            reason = (
                f"was deleted (del at line {line})"
                if both
                else f"is deleted (del at line {line}) on one path of the if at {self.where} "
                "only, so whether it exists after the if is known only when the graph "
                "runs; delete it on both paths or on none, or call the function's "
                ".eager(...) to run it as plain Python"
            )
            return lambda outs: Undefined(name, reason)
        if (_first_assigned_in_loop(a, b) and _made_in(self.other.builder, b)) or (
            _first_assigned_in_loop(b, a) and _made_in(self.then.builder, a)
        ):
            return self._maybe_unbound(name, a, b)
        for value in (a, b):  # (not joined inside: why not, not "assigned in one branch")
            if isinstance(value, Unjoinable):
                return functools.partial(_unjoinable, value)
        if isinstance(a, Undefined) or isinstance(b, Undefined):
            reason = (
                f"is assigned in only one branch of the if at {self.where}, so it has no "
                "value after the if on the other path; assign it in both branches or "
                "before the if"
            )
            return lambda outs: Undefined(name, reason)
        if isinstance(a, UndefinedReturn) and isinstance(b, UndefinedReturn):
            return lambda outs: a
        if isinstance(a, UndefinedReturn):
            with reenter(then.builder):
                a = _placeholder(b)
        if isinstance(b, UndefinedReturn):
            with reenter(other.builder):
                b = _placeholder(a)
        try:
            structure = self._merge_structure(name, a, b)
        except _UnjoinableKeys as keys:
            return functools.partial(_unjoinable, Unjoinable(name, keys.error))
        if structure is not None:
            return structure
        if _same_python_value(a, b):
            return lambda outs: a
        if not (_is_number(a) or isinstance(a, (list, TracedList))) or not (
            _is_number(b) or isinstance(b, (list, TracedList))
        ):
            raise StagingError(
                f"{describe_variable(name)} holds different Python values in the two branches "
                f"of the if at {self.where} ({_short(a)} / {_short(b)}); a graph can only choose "
                "between numbers, arrays and lists at run time (not None or other objects): "
                "give it a number or array on both paths, or call the function's "
                ".eager(...) to run it as plain Python",
                user_location(),
            )
        try:
            target = _join_types(_value_type(a), _value_type(b), name, self.where, in_loop=False)
        except LoopTypeError as error:  # (refused where the variable is used)
            return functools.partial(_unjoinable, Unjoinable(name, error))
        with reenter(then.builder):
            na = _coerce(a, target).node
        with reenter(other.builder):
            nb = _coerce(b, target).node
        index = len(self.pairs)
        self.pairs.append((na, nb))
        exported = (self._export(a, then, other), self._export(b, other, then))
        outer = [_outer_memory(v, here.builder) for v, here in ((a, then), (b, other))]
        roots = [root for root in outer if root is not None]
        concrete = bool(concrete_aliases(name, a) or concrete_aliases(name, b))

        def rebuild(outs: list[Any]) -> Any:
            flags = [[(outs[k], t) for k, t in found] for found in exported]
            merged = after_branches(self.pred, a, b, outs[index], flags)
            if (roots or concrete) and isinstance(merged, Traced) and merged.type.flavor == ARRAY:
                alias_on_one_path(merged, roots, self.where)
            return merged

        return rebuild

    def _export(self, value: Any, here: _Branch, there: _Branch) -> list[tuple[int, Any]]:
        """The alts of a branch's value, their flags made outputs of the if (false when
        the other branch runs): (output index, type) pairs."""
        found = []
        for when, t in visible_alts(value, here.builder) if isinstance(value, Traced) else ():
            with reenter(there.builder):
                never = const(False).node
            found.append((len(self.pairs), t))
            self.type_flags.append(len(self.pairs))
            self.pairs.append((when.node, never) if here is self.then else (never, when.node))
        return found

    def _maybe_unbound(self, name: str, a: Any, b: Any) -> Callable[[list[Any]], Any]:
        """A loop body's variable assigned on one path of this if only: after the if it
        has the value of that path, and no value on the other (``flavors.Unbound``)."""
        then, other = self.then, self.other
        if isinstance(a, LoopUndefined):
            with reenter(other.builder):
                b = b if is_graph_value(b) else const(b)
            with reenter(then.builder):
                a = _placeholder(b)
            unbound = self.pred
        else:
            with reenter(then.builder):
                a = a if is_graph_value(a) else const(a)
            with reenter(other.builder):
                b = _placeholder(a)
            unbound = call(operator.not_, self.pred)
        merged = self.merge(name, a, b)

        def rebuild(outs: list[Any]) -> Any:
            value = merged(outs)
            return give(value, (*value.alts, (unbound, Unbound(name))))

        return rebuild

    def _merge_structure(self, name: str, a: Any, b: Any) -> Callable | None:
        """Merge two containers item by item (None if a and b are not containers of one
        structure); a dict must have the same keys, in the same order, on both paths."""
        kind = type(a)
        if kind is not type(b):
            return None
        if kind in (tuple, list) and len(a) == len(b):
            parts = [self.merge(f"{name}[{i}]", x, y) for i, (x, y) in enumerate(zip(a, b))]
            return lambda outs: kind(p(outs) for p in parts)
        if is_namedtuple(a):
            parts = [self.merge(f"{name}.{f}", x, y) for f, x, y in zip(a._fields, a, b)]
            return lambda outs: kind(*(p(outs) for p in parts))
        if kind is dict:
            if list(a) != list(b):
                error = StagingError(_dict_keys_differ(name, a, b, self.where), user_location())
                raise _UnjoinableKeys(error)
            items = {k: self.merge(f"{name}[{k!r}]", a[k], b[k]) for k in a}
            return lambda outs: {k: p(outs) for k, p in items.items()}
        if is_dataclass_instance(a):
            fields = {
                f: self.merge(f"{name}.{f}", getattr(a, f), getattr(b, f)) for f in field_names(a)
            }
            return lambda outs: with_fields(a, {f: p(outs) for f, p in fields.items()})
        return None


def _outer_memory(value: Any, builder: RegionBuilder) -> Traced | None:
    """The array from outside a branch whose memory the branch's value is (itself, or a
    view of it), if any: an argument or an array the function made (a loop's own
    variable is not one: the loop carries its value, and its aliases as twins)."""
    if not isinstance(value, Traced) or value.type.flavor != ARRAY:
        return None
    root = memory_root(value)
    if builder.owner_of(root.node) is builder or (root.node.op is Op.PARAM and not root.argument):
        return None
    return root


def _unjoinable(value: Unjoinable, outs: list[Any]) -> Unjoinable:
    return value


class _UnjoinableKeys(Exception):
    """A dict (maybe inside another container) with other keys on the other path."""

    def __init__(self, error: StagingError) -> None:
        super().__init__(str(error))
        self.error = error


def _made_in(builder: RegionBuilder, value: Any) -> bool:
    """Whether value is a number, or an array this region computed (not a view or
    another name of an array from outside, which a loop carrying it would detach)."""
    if not isinstance(value, Traced) or value.type.ndim == 0:
        return True
    node = value.node
    return value.sliced is None and node.op is not Op.PARAM and builder.owner_of(node) is builder


def _first_assigned_in_loop(missing: Any, value: Any) -> bool:
    """Whether a loop body's variable has no value on one path of an if (``missing``)
    and a number or array on the other (a graph value, or a constant the body made:
    ``v = np.zeros(3)``)."""
    if isinstance(value, np.ndarray):
        return isinstance(missing, LoopUndefined) and value.dtype.kind in "biufc"
    return isinstance(missing, LoopUndefined) and isinstance(
        value, Traced | int | float | complex | np.generic
    )


def _dict_keys_differ(name: str, a: dict, b: dict, where: str) -> str:
    only = [k for k in a if k not in b] or [k for k in b if k not in a]
    if only:
        what = f"has the key {only[0]!r} on one path of the if at {where} and not on the other"
    else:
        what = f"gets its keys in a different order on the two paths of the if at {where}"
    return (
        f"dict '{name}' {what}; a graph chooses values when it runs, but not which keys "
        "a dict has: set the key on both paths (or before the if), or call the "
        "function's .eager(...) to run it as plain Python"
    )


def _short(value: Any) -> str:
    if is_graph_value(value):
        return f"a {value.type.describe()} known when the graph runs"
    if structure(value) is not None and any(is_graph_value(v) for v in structure(value)[1]):
        return f"a {type(value).__name__} of values known when the graph runs"
    text = repr(value)
    return text if len(text) < 40 else text[:37] + "..."


def staged_cond(
    pred: Any, then_fn: Callable, else_fn: Callable, init: State, names: Sequence[str]
) -> list[Any]:
    """Trace both branches into a COND node; return the variables' values after it."""
    where = _where()
    pred = as_predicate(pred)
    outer = current()
    entry_token = outer.token
    then = _trace_branch(then_fn, init, f"the if branch at {where}")
    other = _trace_branch(else_fn, init, f"the else branch at {where}")
    _changes_concrete_alias(names, init, (then, other), where)
    merger = _Merge(pred, then, other, where)
    flags: dict[int, str] = {}  # result position -> a break's, continue's or return's
    kept = [a and b for a, b in zip(then.kept, other.kept)]  # (a ternary's has none)
    hidden = generated_names()
    rebuild = []
    for k, (n, a, b) in enumerate(zip(names, then.outputs, other.outputs)):
        if k < len(kept) and kept[k]:
            rebuild.append(lambda outs, same=init[k]: same)
            continue
        first = len(merger.pairs)
        rebuild.append(merger.merge(n, a, b))
        kind = flag_kind(n, hidden)
        if kind is not None:
            flags.update(dict.fromkeys(range(first, len(merger.pairs)), kind))
    pairs = list(merger.pairs)
    written = merge_branches(then.writes, other.writes)
    pairs += [(a, b) for _, a, b in written]
    effects = then.builder.token is not entry_token or other.builder.token is not entry_token
    if effects:
        pairs.append((then.builder.token, other.builder.token))
    then.builder.region.results = tuple(a for a, _ in pairs)
    other.builder.region.results = tuple(b for _, b in pairs)
    then.builder.region.flags = {**flags, **dict.fromkeys(merger.type_flags, "type")}
    node = add_node(
        Op.COND,
        (pred.node,),
        (then.builder.region, other.builder.region),
        TupleType(tuple(a.type for a, _ in pairs)),
    )
    projs = [
        outer.add(Node(Op.PROJ, (node,), i, a.type, node.loc)) for i, (a, _) in enumerate(pairs)
    ]
    if effects:
        outer.token = projs.pop()
    set_after([handle for handle, _, _ in written], projs[len(merger.pairs) :])
    outs = [wrap(p) for p in projs]
    if then.builder.diverged and other.builder.diverged:
        outer.diverged = True
    values = [r(outs) for r in rebuild]
    for k, old in enumerate(init):
        values[k] = _same_array(
            names[k],
            old,
            values[k],
            [b.kept[k] for b in (then, other)],
            [_wrote(b, old) for b in (then, other)],
            where,
        )
    return values


def if_stmt(
    cond: Any, body: Callable, orelse: Callable, names: Sequence[str], init: State
) -> tuple:
    """``if cond: body else: orelse`` over the variables ``names``."""
    if isinstance(cond, Undefined):
        raise cond.error()
    if not is_graph_value(cond):
        return tuple(body(*init) if cond else orelse(*init))
    return tuple(staged_cond(cond, body, orelse, init, names))


def if_exp(cond: Any, if_true: Callable, if_false: Callable) -> Any:
    """``if_true() if cond else if_false()``."""
    if not is_graph_value(cond):
        return if_true() if cond else if_false()
    return staged_cond(cond, lambda: (if_true(),), lambda: (if_false(),), (), ("<if-exp>",))[0]


def and_(first: Callable, second: Callable) -> Any:
    """``first() and second()`` with short-circuit evaluation of second."""
    a = first()
    if not is_graph_value(a):
        return a and second()
    return staged_cond(a, lambda: (second(),), lambda: (a,), (), ("<and>",))[0]


def or_(first: Callable, second: Callable) -> Any:
    """``first() or second()`` with short-circuit evaluation of second."""
    a = first()
    if not is_graph_value(a):
        return a or second()
    return staged_cond(a, lambda: (a,), lambda: (second(),), (), ("<or>",))[0]


def not_(value: Any) -> Any:
    """``not value``."""
    if isinstance(value, TracedList):
        return call(runtime.list_len, value) == 0
    if is_graph_value(value):
        return call(operator.not_, value)
    return not value


# --- while ----------------------------------------------------------------------------

GRAPH, LIST, UNDEF, RETURN, STATIC = "graph", "list", "undefined", "return", "static"


class _Slot:
    """How one loop variable is carried: as a graph value, or not at all."""

    def __init__(self, name: str, value: Any) -> None:
        self.name = name
        self.init = value
        self.type: Any = None
        if isinstance(value, Undefined):
            self.kind = UNDEF
        elif isinstance(value, UndefinedReturn):
            self.kind = RETURN
        elif (
            isinstance(value, (Traced, TracedList))
            or _is_number(value)
            or (type(value) is tuple and _carriable(value))
        ):
            self.kind, self.type = GRAPH, _value_type(value)
        elif type(value) is list:
            self.kind, self.type = LIST, ListType(None)
        else:
            self.kind = STATIC
        # A list, dict, namedtuple or dataclass instance whose structure (length, keys,
        # fields) the body keeps is carried as a tuple of its items, and rebuilt from it
        # in the body and after the loop: item assignment and mixed item types work.
        self.rebuild: Callable | None = None
        # The earlier loop variable whose array this one names all through the loop.
        self.twin_of: int | None = None

    @property
    def carried(self) -> bool:
        if self.twin_of is not None:  # its twin carries the array
            return False
        return self.kind == GRAPH or (self.kind == LIST and self.type.elem is not None)

    def value(self, carried: Any) -> Any:
        """The variable's value from its carried graph value."""
        return self.rebuild(carried) if self.rebuild else carried

    def items(self, value: Any) -> Any:
        """What the loop carries of value: its items, for a value carried by structure."""
        return structure(value)[1] if self.rebuild else value

    def items_type(self, out: Any) -> TupleType | None:
        """The tuple type of out's items, if out has the structure of the variable's
        value before the loop (and its items are numbers and arrays)."""
        before, after = structure(self.init), structure(out)
        if before is None or after is None or before[0] != after[0] or not before[1]:
            return None
        types = _value_type(before[1]), _value_type(after[1])
        return types[1] if all(isinstance(t, TupleType) for t in types) else None


def _pair_twins(slots: list[_Slot], shared: dict[int, Traced]) -> None:
    """Loop variables that enter naming one array (``a = x`` before a loop writing
    through both) and keep naming it: the first carries it, the others are its twins."""
    first: dict[int, int] = {}
    for k, slot in enumerate(slots):
        j = first.setdefault(id(shared[k]), k) if k in shared else k
        slot.twin_of = j if j != k else None


def _body_args(builder: RegionBuilder, slots: list[_Slot]) -> list[Any]:
    args = []
    memo: dict[int, Any] = {}
    for slot in slots:
        if slot.twin_of is not None:
            args.append(None)  # the array stands in for it (standing_in)
        elif slot.carried:
            args.append(slot.value(wrap(builder.add_param(slot.type))))
        elif slot.kind == LIST:
            args.append(list(slot.init))
        else:
            args.append(fresh(slot.init, memo))
    builder.token = builder.add_param(TOKEN)
    return args


def _refine(slots: list[_Slot], outputs: Sequence[Any], where: str, own: list[bool]) -> bool:
    """Update slot types from one traced body (``own``: per output, whether the body
    made it, see ``_made_in``); return whether anything changed."""
    changed = False
    for slot, out, made in zip(slots, outputs, own):
        if slot.twin_of is not None:
            continue
        if slot.kind == UNDEF and made and _first_assigned_in_loop(slot.init, out):
            # First assigned in the body: carried, with a flag for whether it has a value
            # yet (flavors.Unbound), so a use where it has none raises as eagerly.
            slot.kind, slot.type, changed = GRAPH, _value_type(out), True
            continue
        if slot.kind == UNDEF or (slot.kind == RETURN and isinstance(out, UndefinedReturn)):
            continue
        if slot.kind == RETURN:
            if not _carriable(out):
                raise StagingError(
                    f"a return value inside the graph loop at {where} is a "
                    f"{type(out).__name__}; a graph loop can only return numbers, arrays, "
                    "lists and tuples of numbers",
                    user_location(),
                )
            slot.kind, slot.type, changed = GRAPH, _value_type(out), True
            continue
        if slot.kind == STATIC and slot.rebuild is None:
            if _same_python_value(slot.init, out):
                continue
            items = slot.items_type(out)
            if items is None:
                raise StagingError(_changes_in_loop(slot, out, where), user_location())
            slot.kind, slot.type, slot.rebuild, changed = GRAPH, items, structure(out)[2], True
            continue
        if isinstance(out, Undefined):
            raise out.error()
        if not _carriable(out) and slot.rebuild is None:
            raise StagingError(
                f"{describe_variable(slot.name)} becomes a {type(out).__name__} inside the "
                f"graph loop at {where}; a graph loop carries numbers, arrays, and lists, "
                "tuples, dicts and dataclasses of them; or call the function's .eager(...) "
                "to run it as plain Python",
                user_location(),
            )
        if slot.kind == LIST and type(out) is list and _same_python_value(slot.init, out):
            continue
        if slot.kind == LIST and slot.type.elem is None:
            items = slot.items_type(out)
            if items is not None:
                slot.kind, slot.type, slot.rebuild, changed = GRAPH, items, list, True
                continue
        if slot.rebuild is not None:
            after = structure(out)
            if after is None or after[0] != structure(slot.init)[0]:
                if type(out) is not list or type(slot.init) is not list:
                    raise StagingError(_changes_in_loop(slot, out, where), user_location())
                slot.kind, slot.type, slot.rebuild = LIST, ListType(None), None
        if type(out) is list and out and _value_type(out).elem is None:
            raise StagingError(_changes_in_loop(slot, out, where), user_location())
        origin = out.node.loc if isinstance(out, Traced) else None
        found_at = where
        if origin is not None and origin.lineno != user_location().lineno:
            found_at = f"{where}; the new value is computed at line {origin.lineno}"
        out_type = _value_type(slot.items(out))
        joined = _join_types(slot.type, out_type, slot.name, found_at, in_loop=True)
        if joined != slot.type:
            slot.type, changed = joined, True
            slot.kind = LIST if isinstance(joined, ListType) else GRAPH
    return changed


def _changes_in_loop(slot: _Slot, out: Any, where: str) -> str:
    """Why a loop variable cannot be carried: what the body made of it, and the fix."""
    before, after = structure(slot.init), structure(out)
    if type(out) is dict and type(slot.init) is dict and before[0] != after[0]:
        what = (
            f"dict '{slot.name}' gets different keys inside the graph loop at {where} "
            f"({list(slot.init)} before, {list(out)} after an iteration); a graph loop "
            "carries a dict whose keys stay the same: set every key before the loop"
        )
    elif type(out) is list:
        what = (
            f"list '{slot.name}' gets items that are not numbers or arrays inside the "
            f"graph loop at {where}; a graph list holds numbers and arrays only"
        )
    else:
        what = (
            f"{describe_variable(slot.name)} changes its Python value ({_short(slot.init)} "
            f"-> {_short(out)}) inside the graph loop at {where}; a graph loop carries "
            "numbers, arrays, and lists, tuples, dicts and dataclasses of them"
        )
    return f"{what}; or call the function's .eager(...) to run it as plain Python"


def staged_while(
    test: Callable, body: Callable, names: Sequence[str], init: State, unrolled: int = 0
) -> list:
    """Trace a WHILE node; return the variables' values after the loop (``unrolled``:
    iterations that already ran while tracing)."""
    alone: frozenset[int] = frozenset()
    flagged: list[tuple[int, TensorType]] = []
    state = tuple(init)
    while True:
        loop = FlaggedLoop(test, body, names, state, flagged)
        try:
            result = with_outer_arrays(
                _trace_while, *loop.traced(), unrolled, alone, frozenset(flagged)
            )
        except _FirstIteration as first:
            state = if_stmt(test(*state), body, lambda *s: s, names, state)
            alone |= first.slots
            continue
        except CarryFlags as more:
            flagged += more.found
            continue
        except Exception as exc:
            if user_error_location(exc) is None:
                raise
            return list(_raising_first_iteration(test, body, names, state, exc))
        return loop.finish(result)


def _raising_first_iteration(
    test: Callable, body: Callable, names: Sequence[str], state: State, exc: Exception
) -> tuple:
    """A loop whose body raised ``exc`` while tracing (an error of values known then,
    such as ``1 / 0``): eagerly, the first iteration raises it, if the loop runs at all,
    after what comes before it in the body. Traced as an ``if`` of that iteration;
    ``exc`` is raised now if the first iteration (traced with the types the loop
    starts with) does not raise."""
    raised = False

    def first(*values: Any) -> Any:
        nonlocal raised
        try:
            return body(*values)
        except Exception:
            raised = True
            raise

    after = if_stmt(test(*state), first, lambda *values: values, names, state)
    if not raised:
        raise exc
    return after


class _FirstIteration(Exception):
    """A loop body writes into the array a variable enters with, then assigns the
    variable another array: only the first iteration writes into the entering array
    (which other names may name), so it is traced on its own, as an ``if``."""

    def __init__(self, slots: frozenset[int]) -> None:
        super().__init__()
        self.slots = slots


def _refuse_writes_into_other_memory(
    slots: list[_Slot],
    args: list[Any],
    outputs: list[Any],
    kept: list[bool],
    written: list[bool],
    builder: RegionBuilder,
    where: str,
) -> None:
    """A variable the body writes into and then assigns an array that is not the loop's
    own (a view, another variable's array): eagerly the next iteration writes into that
    array, which graph mode, carrying the variable's value, would not. Swapping the
    loop's own arrays (``a, b = b, a``) is fine."""
    swapped = [a for k, a in enumerate(args) if not kept[k] and isinstance(a, Traced)]
    for k, out in enumerate(outputs):
        if not written[k]:
            continue
        name = slots[k].name
        others = concrete_aliases(name, slots[k].init) or (
            [] if kept[k] else concrete_aliases(name, out)
        )
        if others:
            place = f"the loop at {where}"
            raise StagingError(_written_alias(name, place, others), user_location())
        if kept[k]:
            continue
        if not isinstance(out, Traced) or out.type.ndim == 0:
            continue
        root = memory_root(out)
        if root is args[k] or any(root is a for a in swapped):
            continue
        if _made_in(builder, root) and not any(root is a for a in args):
            continue
        what = "a view of another array" if root is not out else "an array another name names"
        raise StagingError(
            f"'{name}' is written into in the loop at {where} and then assigned {what}: "
            f"eagerly the next iteration writes through '{name}' into that array, which "
            f"graph mode cannot follow. Write into that array by its own name, assign "
            f"'{name}' a copy of it (.copy()), or call the function's .eager(...) to run it "
            "as plain Python",
            user_location(),
        )


def _refuse_swapped_aliases(
    names: Sequence[str], init: State, outputs: list[Any], rebound: list[int], where: str
) -> None:
    """A loop that writes into arrays it passes between its variables (``a, b = b, a``)
    carries them from the second iteration on, so no other name may hold one of them:
    eagerly, its writes would show there."""
    held = {
        id(memory_root(v)): n
        for n, v in user_variables().items()
        if n not in names and isinstance(v, Traced) and v.type.flavor == ARRAY
    }
    for k in rebound:
        for j, value in enumerate(init):
            if j != k and outputs[k] is value and id(value) in held:
                raise StagingError(
                    f"the loop at {where} writes into the arrays it passes between its "
                    f"variables ('{names[k]}' takes the array of '{names[j]}'), and "
                    f"'{held[id(value)]}' also names one of them: from the second iteration "
                    "on graph mode carries the arrays as the loop's own values, so the "
                    f"writes would not reach '{held[id(value)]}'. Copy it before the loop "
                    f"({held[id(value)]} = {names[j]}.copy()) or call the function's "
                    ".eager(...) to run it as plain Python",
                    user_location(),
                )


def _written_alias(name: str, place: str, others: list[str]) -> str:
    """Why a graph if or loop cannot change ``name``, an array made from constants
    while tracing that other variables name too."""
    listed = ", ".join(f"'{n}'" for n in others)
    return (
        f"{place} writes into '{name}', an array made from constants while tracing "
        f"that {listed} also name{'s' * (len(others) == 1)}; graph mode carries the "
        "variable's value through the statement, so eagerly visible writes would not "
        f"reach {listed}. Write into the array by one name only, assign '{name}' a copy "
        "(.copy()), or call the function's .eager(...) to run it as plain Python"
    )


def _trace_while(
    test: Callable,
    body: Callable,
    names: Sequence[str],
    init: State,
    unrolled: int,
    alone: frozenset[int],
    flagged: frozenset[tuple[int, TensorType]],
) -> list:
    """staged_while, with every array the body writes among ``names``; the variables
    ``alone`` enter naming an array no other name names; ``flagged``: the variables
    (and their other types) whose Python type is carried beside them (``flavors``)."""
    where = _where()
    slots = [
        _Slot(n, LoopUndefined(n, where) if type(v) is Undefined else v)
        for n, v in zip(names, init)
    ]
    shared = {k: v for k, v in entering_arrays(init).items() if k not in alone}
    _pair_twins(slots, shared)
    for _ in range(len(slots) + len(shared) + 2):
        with region(f"the loop at {where}") as body_b:
            args = _body_args(body_b, slots)
            with standing_in(args, shared):
                entries = [a.node if isinstance(a, Traced) else None for a in args]
                inherit_arguments(args, init)
                outputs = list(body(*args))
                kept = [o is a for o, a in zip(outputs, args)]
                written = [isinstance(a, Traced) and a.node is not e for a, e in zip(args, entries)]
                outputs = [
                    Traced(o.node) if k in shared and kept[k] else o for k, o in enumerate(outputs)
                ]
                check_loop_body(body_b, args, outputs)
                other_types = [other_types_of(o) for o in outputs]
                nodes = [o.node for o in outputs if isinstance(o, Traced)]
                own = [
                    _made_in(body_b, o)
                    and (not isinstance(o, Traced) or o.type.ndim == 0 or nodes.count(o.node) == 1)
                    for o in outputs
                ]
        # A variable the body assigns another array names the entering array in the
        # first iteration only: it gets a handle of its own.
        rebound = [k for k in shared if not kept[k]]
        if any(written[k] for k in rebound):
            _refuse_swapped_aliases(names, init, outputs, rebound, where)
            raise _FirstIteration(frozenset(rebound))
        _refuse_writes_into_other_memory(slots, args, outputs, kept, written, body_b, where)
        for k in rebound:
            del shared[k]
        _pair_twins(slots, shared)
        if not _refine(slots, outputs, where, own) and not rebound:
            break
    else:
        raise LoopTypeError(
            f"the types of the loop variables at {where} do not settle", user_location()
        )
    flags = []  # numbers whose Python type depends on the run: carried beside them
    for k, slot in enumerate(slots):
        if slot.carried and isinstance(slot.type, TensorType):
            types = other_types_of(slot.init) + other_types[k]
            flags += flags_to_carry(k, slot.type, types, flagged)
    if flags:
        raise CarryFlags(flags)
    carried = [i for i, s in enumerate(slots) if s.carried]
    hidden = generated_names()
    body_b.region.names = tuple(
        None if slots[i].name in hidden or slots[i].name.startswith("<") else slots[i].name
        for i in carried
    )
    body_b.region.flags = {
        k: kind
        for k, i in enumerate(carried)
        if (kind := flag_kind(slots[i].name, hidden)) is not None
    }
    body_b.region.unrolled = unrolled
    body_b.region.undefined = frozenset(
        slots[i].name for i in carried if isinstance(slots[i].init, UndefinedReturn | Undefined)
    )
    with reenter(body_b):
        body_b.region.results = (
            *(_coerce(slots[i].items(outputs[i]), slots[i].type).node for i in carried),
            body_b.token,
        )
    with region(f"the loop condition at {where}") as test_b:
        test_args = _body_args(test_b, slots)
        entry = test_b.token
        with standing_in(test_args, shared):
            pred = test(*test_args)
        if not is_graph_value(pred):
            pred = const(bool(pred))
        test_b.region.results = (as_predicate(pred).node,)
        if test_b.token is not entry:
            raise StagingError(
                f"the condition of the loop at {where} has side effects "
                "(print/assert); move them into the loop body",
                user_location(),
            )
    outer = current()
    inputs = tuple(_initial(slots[i]).node for i in carried)
    types = (*(slots[i].type for i in carried), TOKEN)
    node = add_node(
        Op.WHILE, (*inputs, outer.token), (test_b.region, body_b.region), TupleType(types)
    )
    projs = [outer.add(Node(Op.PROJ, (node,), k, t, node.loc)) for k, t in enumerate(types)]
    outer.token = projs.pop()
    result = []
    values = iter(projs)
    for k, slot in enumerate(slots):
        if slot.carried:
            new = slot.value(wrap(next(values)))
            result.append(_same_array(slot.name, slot.init, new, [kept[k]], [written[k]], where))
        elif slot.kind == UNDEF:
            result.append(
                Undefined(
                    slot.name,
                    (
                        f"is assigned only inside the graph loop at {where}, so it has no value "
                        "after the loop; assign it before the loop"
                    ),
                )
            )
        else:
            result.append(slot.init)
    return result


def _initial(slot: _Slot) -> Any:
    """The graph value a carried loop variable enters the loop with."""
    if isinstance(slot.init, UndefinedReturn | Undefined):
        return _placeholder_of_type(slot.type)
    return _coerce(slot.items(slot.init), slot.type)


def while_stmt(test: Callable, body: Callable, names: Sequence[str], init: State) -> tuple:
    """``while test(): body()`` over the loop variables ``names``."""
    state = tuple(init)
    unrolled, line = 0, _line()
    while True:
        cond = test(*state)
        if isinstance(cond, Undefined):
            raise cond.error()
        if is_graph_value(cond):
            return tuple(staged_while(test, body, names, state, unrolled))
        if not cond:
            return state
        unrolled += 1
        with unrolled_iteration(line, unrolled):
            state = tuple(body(*state))


# --- for ------------------------------------------------------------------------------


def for_stmt(
    iterable: Any, extra_test: Callable | None, body: Callable, names: Sequence[str], init: State
) -> tuple:
    """``for target in iterable: body(target)``; ``extra_test`` ends it early (break)."""
    sequence = as_graph_sequence(iterable)
    if sequence is None:
        return _python_for(iterable, extra_test, body, names, init)
    length = sequence.length()

    def test(index: Any, *state: Any) -> Any:
        more = index < length
        if extra_test is None:
            return more
        return and_(lambda: more, lambda: extra_test(*state))

    # A loop variable naming an array the loop runs over: each item is read from that
    # variable's current value, so writes the body makes into the array are seen, as
    # eagerly (unless the body makes the name another array: then from the array as it was).
    iterated = [k for k, v in enumerate(init) if any(v is a for a in sequence.arrays())]
    while True:
        step = _iteration_step(sequence, body, names, init, iterated, user_location())
        try:
            out = staged_while(test, step, ("<index>", *names), (0, *init))
        except _Rebound as rebound:
            iterated.remove(rebound.slot)
            continue
        return tuple(out[1:])


class _Rebound(Exception):
    """A graph loop's body assigns another array to a name the loop iterates over."""

    def __init__(self, slot: int) -> None:
        super().__init__()
        self.slot = slot


def _iteration_step(
    sequence: GraphSequence,
    body: Callable,
    names: Sequence[str],
    init: State,
    iterated: list[int],
    loc: Loc | None,
) -> Callable:
    """A for loop's body as a while loop's: read the item at ``index``, then run it.
    ``iterated``: the loop variables whose current value the item is read from; ``loc``:
    the loop's line."""

    def step(index: Any, *state: Any) -> tuple:
        handles = {k: state[k] for k in iterated if isinstance(state[k], Traced)}
        entries = {k: h.node for k, h in handles.items()}
        current = sequence.rebased({id(init[k]): h for k, h in handles.items()})
        out = tuple(body(current.item(index), *state))
        for k, handle in handles.items():
            if out[k] is handle:
                continue
            if handle.node is not entries[k]:
                raise StagingError(
                    f"this loop runs over the array '{names[k]}', and its body both writes "
                    f"into that array and assigns '{names[k]}' another array: "
                    "graph mode cannot follow which array the loop reads. Assign the new "
                    f"array to another name, loop over indices (for i in range(len({names[k]})))"
                    ", or call .eager(...) to run it as written",
                    loc,
                )
            raise _Rebound(k)
        return (index + 1, *out)

    return step


def _python_for(
    iterable: Any, extra_test: Callable | None, body: Callable, names: Sequence[str], init: State
) -> tuple:
    state = tuple(init)
    line = _line()
    for iteration, item in enumerate(iterable, 1):
        with unrolled_iteration(line, iteration):
            if extra_test is not None:
                go_on = extra_test(*state)
                if is_graph_value(go_on):
                    state = tuple(
                        staged_cond(
                            go_on, lambda *s, item=item: body(item, *s), lambda *s: s, state, names
                        )
                    )
                    continue
                if not go_on:
                    break
            state = tuple(body(item, *state))
    return state


def list_comp(
    iterable: Any, element: Callable, conditions: Sequence[Callable] = (), unpack: bool = False
) -> Any:
    """``[element(x) for x in iterable if all(c(x) for c in conditions)]``.

    Over a graph iterable this is a graph loop building a graph list.
    """

    def apply(fn: Callable, item: Any) -> Any:
        return fn(*item) if unpack else fn(item)

    def body(item: Any, acc: Any) -> tuple:
        def add(acc: Any) -> tuple:
            acc.append(apply(element, item))
            return (acc,)

        if not conditions:
            return add(acc)
        keep = apply(conditions[0], item)
        for condition in conditions[1:]:
            keep = and_(lambda keep=keep: keep, lambda c=condition: apply(c, item))
        return if_stmt(keep, add, lambda acc: (acc,), ("<comprehension>",), (acc,))

    return for_stmt(iterable, None, body, ("<comprehension>",), ([],))[0]
