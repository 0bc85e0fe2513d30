"""Traced values: what a converted function computes with while it is traced.

A ``Traced`` stands for an array or scalar that exists only when the graph runs.  Every
operator, NumPy ufunc (``__array_ufunc__``), NumPy function (``__array_function__``) and
array method applied to it records a CALL node.  Whatever would need its run-time value
in Python (``bool()``, ``int()``, iteration) raises a StagingError naming the line: in
converted code those uses were rewritten to graph operators and never get here.
"""

from __future__ import annotations

import itertools
import math
import operator
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors.exceptions import StagingError
from ..graph import runtime
from ..graph.functions import Call, TypeInferenceError, infer, is_effect
from ..graph.ir import Node, Op
from ..graph.numpy_facts import AXIS_FUNCTIONS, VIEW_FUNCTIONS, VIEW_METHODS, method_name
from ..graph.runtime import call_method
from ..graph.template import split
from ..graph.types import ARRAY, PYTHON, ListType, TensorType, TupleType, type_of
from ..source.origins import user_location
from .tracing import add_node, current, is_staged

Alts = tuple[tuple["Traced", Any], ...]  # (graph bool, type) pairs: Traced.alts


class Unbound:
    """The "type" of variable ``name`` on runs where it has no value yet (assigned only
    in a loop body that may not run): an alt of this type makes each use check at run
    time, and raise UnboundLocalError as eager code does."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unbound) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("unbound", self.name))

    def __repr__(self) -> str:
        return f"<{self.name} unbound>"


def check_bound(value: Any) -> None:
    """Record the run-time check a use of value makes: on the runs where it has no
    value, the UnboundLocalError eager code raises here."""
    if isinstance(value, Traced):
        for when, t in visible_alts(value):
            if isinstance(t, Unbound):
                effect(runtime.unbound_effect, when, t.name)


def _binary(op: Any) -> tuple[Any, Any]:
    def forward(self: Traced, other: Any) -> Any:
        return call(op, self, other)

    def reverse(self: Traced, other: Any) -> Any:
        return call(op, other, self)

    return forward, reverse


def _inplace(op: Any) -> Any:
    """x op= y: arrays update in place (aliases see it), scalars rebind like Python."""

    def method(self: Traced, other: Any) -> Any:
        result = call(op, self, other)
        if self.type.flavor != ARRAY:
            return result
        if result.type.ndim != self.type.ndim:
            raise StagingError(
                f"in-place operation would change a {self.type.ndim}-d array into "
                f"{result.type.ndim}-d, as NumPy would refuse (non-broadcastable output)",
                user_location(),
            )
        if result.type.dtype != self.type.dtype:
            if not np.can_cast(result.type.dtype, self.type.dtype, "same_kind"):
                raise StagingError(
                    f"in-place operation cannot cast {result.type.dtype} to "
                    f"{self.type.dtype} (same_kind casting), as NumPy would refuse",
                    user_location(),
                )
            result = call(runtime.astype, result, self.type.dtype)
        if self.argument:  # written into the caller's array now, as eagerly
            result = call(runtime.setitem, self, Ellipsis, result)
        self.rebind(result.node)
        return self

    return method


# Array methods recorded as ``call_method`` calls: the reductions and scans arrays have
# as methods (x.sum(), x.cumsum()), and these.
_METHODS = frozenset(f.method for f in AXIS_FUNCTIONS.values() if f.method) | {
    "ravel",
    "flatten",
    "clip",
    "round",
    "dot",
    "nonzero",
    "item",
    "conj",
    "conjugate",
    "repeat",
    "trace",
    "diagonal",
}


def _ufunc_outer(ufunc: np.ufunc, a: Any, b: Any) -> Any:
    """``np.add.outer(a, b)`` as NumPy defines it, ``a`` with an axis of length one per
    axis of ``b`` (``a[:, None] + b`` for vectors): a broadcast that fuses with what
    uses it, rather than a call back into NumPy."""
    a, b = (_as_array(v) for v in (a, b))  # (as NumPy's: a number is a 0-d array there)
    if a.type.ndim == 0:
        return call(ufunc, a, b)
    return call(ufunc, a[(Ellipsis,) + (None,) * b.type.ndim], b)


def _as_array(value: Any) -> Traced:
    """np.asarray(value) as a graph value (a Python number becomes a 0-d array)."""
    if not isinstance(value, Traced):
        return const(np.asarray(value))
    return value if value.type.flavor == ARRAY else call(np.asarray, value)


def _ufunc_at(ufunc: np.ufunc, target: Any, index: Any, values: Any = None) -> None:
    """``np.add.at(x, index, values)``: x updated in place, repeated indices adding up;
    refused for other ufuncs and for an array made while tracing."""
    if ufunc is not np.add or values is None:
        raise StagingError(
            f"np.{ufunc.__name__}.at is not supported in graph mode (np.add.at is); "
            "call the function's .eager(...) to run it as plain Python",
            user_location(),
        )
    if not (isinstance(target, Traced) and target.type.flavor == ARRAY):
        raise StagingError(
            "np.add.at into an array that is not a graph array (made from constants "
            "while tracing), at indices or with values known only when the graph runs: "
            "make the array from the function's arguments (np.zeros_like(x)), or call "
            "the function's .eager(...) to run it as plain Python",
            user_location(),
        )
    result = call(runtime.add_at, target, index, values)
    if target.argument:  # written into the caller's array now, as eagerly
        result = call(runtime.setitem, target, Ellipsis, result)
    target.rebind(result.node)


def write_out(fn: Any, args: tuple, kwargs: dict) -> Any:
    """``fn(..., out=a)``: the result written into the array ``a`` in place, as NumPy
    does (same_kind casting, broadcast to ``a``'s shape); returns ``a``."""
    kwargs = dict(kwargs)
    out = kwargs.pop("out")
    if type(out) is tuple and len(out) == 1:
        out = out[0]
    name = getattr(fn, "__name__", "the function")
    if not isinstance(out, Traced) or out.type.flavor != ARRAY:
        raise StagingError(
            f"{name}(..., out=...) into a {type(out).__name__} that is not an array of "
            "the graph (an argument or an array the function made): graph mode can only "
            "write into those; assign the result instead (a = ...)",
            user_location(),
        )
    result = call(fn, *args, **kwargs)
    if (
        isinstance(result, Traced)
        and result.type.dtype != out.type.dtype
        and not np.can_cast(result.type.dtype, out.type.dtype, "same_kind")
    ):
        raise StagingError(
            f"{name}(..., out=...) cannot cast {result.type.dtype} to {out.type.dtype} "
            "(same_kind casting), as NumPy would refuse",
            user_location(),
        )
    out[...] = result
    return out


class Traced:
    """A graph value during tracing.  ``node`` may be rebound by in-place updates.

    Basic slicing makes a view, as in NumPy: ``sliced`` is (base, index) and the base
    lists its views, so a write through either side reaches the other.  Other views
    (``x.T``, ``x.reshape(...)``: ``made_from`` their base) are not followed: a write
    into either side makes the other ``stale``, and reading a stale value is refused.
    """

    __array_priority__ = 1000
    argument = False  # an argument of the graph function: its writes reach the caller
    made_from: Traced | None = None  # the base of a view made by a function,
    maker: Node | None = None  # and the call that made it
    stale: str | None = None  # why this value is no longer what eager code reads
    # Where this array is another one (or part of it) on one path of a graph if only
    # (``y = x if c else x.copy()``): the if's place, for messages; writes are refused.
    alias_if: str | None = None
    # A scalar's other types at run time, each with the graph bool that selects it
    # (see ``flavors``): eager code's Python int where the graph's is a NumPy int64...
    alts: Alts = ()
    # The length of the first axis where it is known while tracing (np.mgrid's: one item
    # per slice), so that ``x, y = np.mgrid[...]`` unpacks.
    leading: int | None = None

    def __init__(self, node: Any, sliced: tuple[Traced, Any] | None = None) -> None:
        self.node = node
        self.sliced = sliced
        self._views: list[weakref.ref[Traced]] = []
        self._made: list[weakref.ref[Traced]] = []  # views made by functions

    @property
    def views(self) -> list[Traced]:
        """The live views of this array: those of regions still being traced (not of a
        finished branch or an abandoned trace of a loop body)."""
        alive = _alive(self._views)
        self._views = [weakref.ref(v) for v in alive]
        return [v for v in alive if current().owner_of(v.node) is not None]

    @property
    def made_views(self) -> list[Traced]:
        """The live views of this array made by functions (``x.T``, ``x.reshape(...)``)."""
        alive = _alive(self._made)
        self._made = [weakref.ref(v) for v in alive]
        return [v for v in alive if current().owner_of(v.node) is not None]

    def rebind(self, node: Any, write_back: bool = True, skip: Traced | None = None) -> None:
        """Give this value a new node after an in-place update, keeping views in sync:
        views are re-read from it, and a view writes itself back into its base."""
        check_view_write(self)
        if self.alias_if is not None:
            raise StagingError(
                f"this writes into an array that is another array (or part of one) on one "
                f"path of the if at {self.alias_if} and a new array on the other; eagerly "
                "the write reaches that other array on one path only, which graph mode "
                "cannot follow. Make it a copy on every path (.copy()), or write into the "
                "other array under the same if; or call the function's .eager(...) to run "
                "it as plain Python",
                user_location(),
            )
        note_write(self)
        self.node = node
        for view in self.views:
            if view is not skip:
                view.rebind(call(operator.getitem, self, view.sliced[1]).node, write_back=False)
        line = _line()
        for made in self.made_views:
            made.outdate(f"it is {_made(made)} of an array written after it{line}")
        if self.made_from is not None and self.made_from is not skip:
            self.made_from.outdate(f"it was written{line} through {_made(self)}", skip=self)
        if self.sliced is not None and write_back:
            base, index = self.sliced
            base.rebind(call(runtime.setitem, base, index, self).node, skip=self)

    def add_view(self, view: Traced, index: Any) -> None:
        """Record that ``view`` is ``self[index]`` sharing memory."""
        view.sliced = (self, index)
        self._views.append(weakref.ref(view))

    def add_made_view(self, view: Traced) -> None:
        """Record that ``view`` was made from this array by a function that may return
        a view (``np.transpose``, ``x.reshape``...)."""
        view.made_from, view.maker = self, view.node
        self._made.append(weakref.ref(view))

    def outdate(self, why: str, skip: Traced | None = None) -> None:
        """Mark this value, and every view of it, as differing from what eager code
        would read: a write reached their memory through a view graph mode does not
        follow."""
        if self.stale is None:
            self.stale = why
        for view in (*self.views, *self.made_views):
            if view is not skip:
                view.outdate(why)

    @property
    def type(self) -> TensorType:
        return self.node.type

    def __repr__(self) -> str:
        return f"<traced {self.type.describe()}>"

    def __hash__(self) -> int:
        """A graph value has no hash: eagerly an array has none either, and a scalar's
        hash depends on its value, which is not known while tracing (as a dict key or a
        set item it would stand for itself, not for its value)."""
        if self.type.ndim:
            raise TypeError("unhashable type: 'numpy.ndarray'")
        raise StagingError(
            f"a graph value ({self.type.describe()}) is used as a dict key or a set item "
            "here; its value is only known when the graph runs. Use a Python value known "
            "while tracing as the key (a constant, or a static argument: "
            "static_argnames), or call the function's .eager(...) to run it as plain "
            "Python",
            user_location(),
        )

    # --- operators ---------------------------------------------------------------
    __add__, __radd__ = _binary(operator.add)
    __sub__, __rsub__ = _binary(operator.sub)
    __mul__, __rmul__ = _binary(operator.mul)
    __truediv__, __rtruediv__ = _binary(operator.truediv)
    __floordiv__, __rfloordiv__ = _binary(operator.floordiv)
    __mod__, __rmod__ = _binary(operator.mod)
    __pow__, __rpow__ = _binary(operator.pow)
    __matmul__, __rmatmul__ = _binary(operator.matmul)
    __and__, __rand__ = _binary(operator.and_)
    __or__, __ror__ = _binary(operator.or_)
    __xor__, __rxor__ = _binary(operator.xor)
    __lshift__, __rlshift__ = _binary(operator.lshift)
    __rshift__, __rrshift__ = _binary(operator.rshift)
    __iadd__ = _inplace(operator.add)
    __isub__ = _inplace(operator.sub)
    __imul__ = _inplace(operator.mul)
    __itruediv__ = _inplace(operator.truediv)
    __ifloordiv__ = _inplace(operator.floordiv)
    __imod__ = _inplace(operator.mod)
    __ipow__ = _inplace(operator.pow)
    __iand__ = _inplace(operator.and_)
    __ior__ = _inplace(operator.or_)
    __ixor__ = _inplace(operator.xor)

    def __lt__(self, other: Any) -> Any:
        return call(operator.lt, self, other)

    def __le__(self, other: Any) -> Any:
        return call(operator.le, self, other)

    def __gt__(self, other: Any) -> Any:
        return call(operator.gt, self, other)

    def __ge__(self, other: Any) -> Any:
        return call(operator.ge, self, other)

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        return call(operator.eq, self, other)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        return call(operator.ne, self, other)

    def __neg__(self) -> Any:
        return call(operator.neg, self)

    def __pos__(self) -> Any:
        return call(operator.pos, self)

    def __invert__(self) -> Any:
        return call(operator.invert, self)

    def __abs__(self) -> Any:
        return call(abs, self)

    def __divmod__(self, other: Any) -> Any:
        return call(divmod, self, other)

    def __rdivmod__(self, other: Any) -> Any:
        return call(divmod, other, self)

    # --- indexing ------------------------------------------------------------------
    def __getitem__(self, index: Any) -> Any:
        result = call(operator.getitem, self, index)
        if result.type.flavor == ARRAY and _is_basic_index(index):
            self.add_view(result, index)
        return result

    def __setitem__(self, index: Any, value: Any) -> None:
        self.rebind(call(runtime.setitem, self, index, value).node)

    # --- NumPy protocols -------------------------------------------------------------
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method == "at":
            return _ufunc_at(ufunc, *inputs, **kwargs)
        if method == "outer" and len(inputs) == 2 and not kwargs and ufunc.nin == 2:
            return _ufunc_outer(ufunc, *inputs)
        fn = ufunc if method == "__call__" else getattr(ufunc, method)
        return call(fn, *inputs, **kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        special = ARRAY_FUNCTIONS.get(func)
        if special is not None:
            return special(*args, **kwargs)
        return call(func, *args, **kwargs)

    # --- attributes ------------------------------------------------------------------
    def _require_array(self, what: str) -> None:
        if self.type.flavor == PYTHON:
            raise AttributeError(f"'{self.type.python_kind}' object has no attribute '{what}'")

    @property
    def shape(self) -> tuple:
        self._require_array("shape")
        return tuple(call(runtime.shape_dim, self, axis) for axis in range(self.type.ndim))

    @property
    def ndim(self) -> int:
        self._require_array("ndim")
        return self.type.ndim

    @property
    def size(self) -> Any:
        self._require_array("size")
        return call(np.size, self)

    @property
    def dtype(self) -> np.dtype:
        self._require_array("dtype")
        return self.type.dtype

    @property
    def T(self) -> Any:
        self._require_array("T")
        return call(np.transpose, self)

    @property
    def real(self) -> Any:
        return call(np.real, self)

    @property
    def imag(self) -> Any:
        return call(np.imag, self)

    def reshape(self, *shape: Any, **kwargs: Any) -> Any:
        self._require_array("reshape")
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return call(np.reshape, self, shape, **kwargs)

    def transpose(self, *axes: Any) -> Any:
        self._require_array("transpose")
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return call(np.transpose, self, axes or None)

    def astype(self, dtype: Any, copy: bool = True) -> Any:
        self._require_array("astype")
        return call(runtime.astype, self, np.dtype(dtype), copy=copy)

    def view(self, dtype: Any = None) -> Any:
        """``x.view()``: the same memory, followed as a basic slice ``x[...]`` is."""
        self._require_array("view")
        if dtype is not None and _as_dtype(dtype) != self.type.dtype:
            raise StagingError(
                f"x.view({getattr(dtype, '__name__', dtype)}) reads the array's bytes as "
                "another type, which graph mode cannot do; convert the values with "
                "x.astype(...), or call .eager(...) to run the function as written",
                user_location(),
            )
        return self[...]

    def copy(self) -> Any:
        self._require_array("copy")
        return call(call_method, self, "copy")

    def squeeze(self, axis: Any = None) -> Any:
        self._require_array("squeeze")
        return call(np.squeeze, self, axis=axis)

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self._require_array("sort")
        self.rebind(call(np.sort, self, *args, **kwargs).node)

    def fill(self, value: Any) -> None:
        self._require_array("fill")
        self.rebind(call(np.full_like, self, value).node)

    def __getattr__(self, name: str) -> Any:
        if name in _METHODS:
            self._require_array(name)
            return lambda *args, **kwargs: call(call_method, self, name, *args, **kwargs)
        if not name.startswith("_") and hasattr(self.type.example(), name):
            # (eagerly it exists: an AttributeError would make hasattr() say otherwise)
            raise StagingError(
                f"{name!r} of a graph value ({self.type.describe()}) is not supported in "
                "graph mode: use a NumPy function or operator instead, or call the "
                "function's .eager(...) to run it as plain Python",
                user_location(),
            )
        raise AttributeError(
            f"graph value of type {self.type.describe()} has no attribute {name!r}"
        )

    # --- uses that need the run-time value -------------------------------------------
    def _needs_value(self, what: str) -> StagingError:
        return StagingError(
            f"{what} needs the value of this graph value ({self.type.describe()}), which is "
            "only known when the graph runs. In converted code use graph operations "
            "(if/while on it become graph control flow; index a Python list with a number "
            "known while tracing, or use an array); code nbgraph does not convert cannot do "
            "this. Or call the function's .eager(...) to run it as plain Python.",
            user_location(),
        )

    def __bool__(self) -> bool:
        raise self._needs_value("bool()/if/while")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        kind = "numpy.ndarray" if self.type.ndim else f"numpy.{self.type.dtype}"
        raise TypeError(f"'{kind}' object is not callable")

    def __len__(self) -> int:
        raise self._needs_value("len()")

    def __iter__(self) -> Any:
        if self.leading is not None:
            return iter([self[k] for k in range(self.leading)])
        raise self._needs_value("iteration")

    def __index__(self) -> int:
        raise self._needs_value("use as a Python integer (index, range, shape)")

    def __int__(self) -> int:
        raise self._needs_value("int()")

    def __float__(self) -> float:
        raise self._needs_value("float()")

    def __complex__(self) -> complex:
        raise self._needs_value("complex()")

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise self._needs_value("conversion to a NumPy array")

    def __format__(self, spec: str) -> str:
        raise self._needs_value("string formatting")


class TracedList:
    """A list built inside a graph loop (its length is known at run time only)."""

    def __init__(self, node: Any) -> None:
        self.node = node

    @property
    def type(self) -> ListType:
        return self.node.type

    def __repr__(self) -> str:
        return f"<traced {self.type.describe()}>"

    def append(self, item: Any) -> None:
        if isinstance(item, Traced):
            _refuse_mixed_item_types(item)
        self.node = call(runtime.list_append, self, item).node

    def __getitem__(self, index: Any) -> Any:
        return call(runtime.list_getitem, self, index)

    def __len__(self) -> int:
        raise StagingError(
            "len() of a list built in a graph loop: use it in converted code", user_location()
        )

    def __iter__(self) -> Any:
        raise StagingError(
            "iterating a list built in a graph loop is not supported; convert it with "
            "np.array(...) or np.stack(...) first",
            user_location(),
        )

    def __bool__(self) -> bool:
        raise StagingError("truth value of a list built in a graph loop", user_location())

    def extend(self, items: Any) -> None:
        if type(items) not in (list, tuple):
            raise StagingError(
                "list.extend() of a list a graph loop carries, with a value known only when "
                "the graph runs: append the items one by one",
                user_location(),
            )
        for item in items:
            self.append(item)

    def __add__(self, other: Any) -> TracedList:
        out = TracedList(self.node)
        out.extend(other)
        return out

    def __iadd__(self, other: Any) -> TracedList:
        self.extend(other)
        return self

    def __radd__(self, other: Any) -> Any:
        raise StagingError(
            "a Python list + a list that a graph loop changes: a graph list grows at its "
            "end only; write lst + [...] (or append), or call the function's .eager(...) "
            "to run it as plain Python",
            user_location(),
        )

    def __setitem__(self, index: Any, value: Any) -> None:
        raise StagingError(
            "item assignment (lst[i] = ...) on a list that a graph loop changes: there it is "
            "a graph list, which graph mode builds with append only. Use an array "
            "(np.zeros(n) and a[i] = ...) or separate variables, or call the function's "
            ".eager(...) to run it as plain Python",
            user_location(),
        )

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise StagingError(
            f"list.{name}() on a list that a graph loop or branch changes: there it is a "
            "graph list, whose length is known only when the graph runs, and graph mode "
            f"supports append, extend, indexing and len on it, not {name}(). Build the "
            "list with append and index it, use an array, or call the function's "
            ".eager(...) to run it as plain Python",
            user_location(),
        )


def _is_basic_index(index: Any) -> bool:
    """Whether NumPy returns a view for this index (slices, ints, None, ...)."""
    items = index if type(index) is tuple else (index,)
    for item in items:
        if isinstance(item, Traced):
            if item.type.ndim != 0 or item.type.dtype.kind not in "iu":
                return False
        elif not (item is None or item is Ellipsis or type(item) in (int, slice)):
            return False
    return True


def _shape(x: Any) -> Any:
    return x.shape if isinstance(x, Traced) else np.shape(x)


def _ndim(x: Any) -> Any:
    return x.ndim if isinstance(x, Traced) else np.ndim(x)


def _reshape(x: Any, shape: Any, *args: Any, **kwargs: Any) -> Any:
    return call(np.reshape, x, tuple(shape) if isinstance(shape, list) else shape, *args, **kwargs)


ARRAY_FUNCTIONS = {np.shape: _shape, np.ndim: _ndim, np.reshape: _reshape}


def is_graph_value(value: Any) -> bool:
    """Whether value is a traced graph value (array/scalar or list)."""
    return isinstance(value, (Traced, TracedList))


def wrap(node: Node) -> Any:
    """The Python-side handle for a node's result."""
    if isinstance(node.type, TensorType):
        return Traced(node)
    if isinstance(node.type, ListType):
        return TracedList(node)
    if isinstance(node.type, TupleType):
        loc = node.loc
        return tuple(
            wrap(current().add(Node(Op.PROJ, (node,), i, t, loc)))
            for i, t in enumerate(node.type.items)
        )
    raise TypeError(f"cannot wrap a {node.type}")


def _refuse_mixed_item_types(item: Traced) -> None:
    """A graph list holds one type per item, with no record of which Python type each
    item had eagerly: a value whose Python type depends on the run (a Python number
    that becomes a NumPy scalar only when a loop runs) is refused, not stored as
    the other type."""
    eager = {
        t
        for when, t in visible_alts(item)
        if not isinstance(t, Unbound) and not (when.node.op is Op.CONST and not when.node.arg)
    }
    if not eager:
        return
    names = " or ".join(sorted({_type_name(t) for t in (*eager, item.type)}))
    raise StagingError(
        "a value appended to a list built in a graph loop has a Python type that depends "
        f"on the run ({names}: a Python number becomes a NumPy scalar only where a loop "
        "runs or a branch is taken), and a graph list cannot keep each item's own type: "
        "append one type, "
        f"e.g. list.append({_type_name(item.type)}(value)), or start the variable as "
        "that type",
        user_location(),
    )


def _type_name(t: TensorType) -> str:
    """How eager code names a scalar of this type: int, np.int32, a 0-d array..."""
    if t.flavor == PYTHON:
        return type(t.example()).__name__
    return "0-d array" if t.flavor == ARRAY else f"np.{t.dtype.name}"


def call(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Record ``fn(*args, **kwargs)`` on graph values; returns the traced result."""
    if kwargs.get("out") is not None:
        return write_out(fn, args, kwargs)
    (arg_t, kwarg_t), leaves = split((args, kwargs), _is_input)
    if fn not in _SHAPE_ONLY:  # a view's shape stays what it was
        for leaf in leaves:
            check_current(leaf)
    if any(isinstance(leaf, np.ndarray) for leaf in leaves):  # concrete arrays: constants
        leaves = [const(leaf) if isinstance(leaf, np.ndarray) else leaf for leaf in leaves]
    if fn not in _CARRYING:
        for leaf in leaves:
            if isinstance(leaf, Traced) and leaf.alts:
                check_bound(leaf)
    the_call = Call(fn, arg_t, kwarg_t)
    builder = current()
    inputs = tuple(builder.token if leaf is _TOKEN else leaf.node for leaf in leaves)
    try:
        rtype = infer(the_call, [n.type for n in inputs])
    except TypeInferenceError as exc:
        raise StagingError(f"{the_call.name}: {exc}", user_location()) from None
    if fn is operator.pow and len(args) == 2:
        _refuse_negative_int_power(*args)
    node = add_node(Op.CALL, inputs, the_call, rtype)
    if is_effect(fn):
        builder.token = node
        return None
    result = wrap(node)
    if isinstance(result, Traced) and rtype.ndim == 0:
        result.alts = _passed_alts(the_call, leaves, inputs, rtype)
    elif isinstance(result, Traced) and _makes_view(node) and isinstance(leaves[0], Traced):
        leaves[0].add_made_view(result)
    return result


def _refuse_negative_int_power(base: Any, exponent: Any) -> None:
    """Python ints to a graph int's power are ints, but floats where the exponent is
    negative (2 ** -1 == 0.5): refuse the runs where it is."""
    if not (isinstance(exponent, Traced) and _python_int(exponent) and _python_int(base)):
        return
    effect(
        runtime.refusal_effect,
        call(operator.lt, exponent, 0),
        "a Python int to the power of a negative int is a float (2 ** -1 == 0.5), but "
        "graph mode gives this power one type on every run: the int it had while "
        "tracing. Write the base as a float (2.0 ** k) where a float is meant, or call "
        "the function's .eager(...) to run it as plain Python",
    )


def _python_int(value: Any) -> bool:
    if isinstance(value, Traced):
        return value.type.flavor == PYTHON and value.type.dtype.kind in "bi"
    return isinstance(value, int)


def check_current(value: Any) -> None:
    """Refuse reading a value that a write through a view graph mode does not follow
    has changed eagerly (``y = x.T``, then ``x[0] = 1``, then a read of ``y``)."""
    if isinstance(value, Traced) and value.stale is not None:
        raise StagingError(
            f"this reads an array that eager code would see changed: {value.stale}. "
            "Graph mode follows writes through basic slices only (x[1:], x[:, 0]); make "
            "the view after the write, make it a copy (.copy()), write through a slice, "
            "or call .eager(...) to run the function as written",
            user_location(),
        )


_SHAPE_ONLY = frozenset({runtime.shape_dim, np.shape, np.size, np.ndim, len})


def _as_dtype(dtype: Any) -> np.dtype | None:
    try:
        return np.dtype(dtype)
    except TypeError:
        return None


def _makes_view(node: Node) -> bool:
    """Whether a call may return a view of its first argument other than by slicing."""
    return node.arg.fn in VIEW_FUNCTIONS or _method_view(node)


def _alive(refs: list[weakref.ref[Traced]]) -> list[Traced]:
    return [v for v in (ref() for ref in refs) if v is not None]


def _line() -> str:
    """`` at line N`` of the user's code being traced, or nothing."""
    loc = user_location()
    return f" at line {loc.lineno}" if loc is not None else ""


def _made(view: Traced) -> str:
    """How a view was made, for messages: ``a view (np.transpose, made at line 3)``."""
    if view.alias_if is not None:
        return f"the same memory on one path of the if at {view.alias_if}"
    loc = view.maker.loc
    at = f", made at line {loc.lineno}" if loc is not None else ""
    return f"a view ({view.maker.label()}{at})"


def memory_root(value: Traced) -> Traced:
    """The array whose memory ``value`` is (or is a view of)."""
    while True:
        if value.sliced is not None:
            value = value.sliced[0]
        elif value.made_from is not None and value.alias_if is None:
            value = value.made_from
        else:
            return value


def alias_on_one_path(merged: Traced, roots: Sequence[Traced], where: str) -> None:
    """``merged`` (an if's result) is the memory of ``roots`` on one path only: a write
    into it is refused, and one into a root makes it stale (see ``Traced.alias_if``)."""
    merged.alias_if = where
    for root in roots:
        root.add_made_view(merged)


def visible_alts(value: Traced, here: Any = None) -> Alts:
    """The alts of value whose flags the region being traced (or ``here``) can read."""
    here = here or current()
    return tuple((w, t) for w, t in value.alts if here.owner_of(w.node) is not None)


def _passed_alts(the_call: Call, leaves: list, inputs: tuple, rtype: TensorType) -> Alts:
    """A call's result, where operands carry alts: on the runs where they have their
    other types, the type the call gives (kept only if it differs from ``rtype`` in
    Python flavor alone: a value of another dtype cannot be converted afterwards).

    With several such operands (``r += s``, both Python ints until the loop changes
    them), every combination of their types counts, in order: each operand's alts
    first, its static type last, so the first flag that holds decides, as for one."""
    carriers = [k for k, leaf in enumerate(leaves) if isinstance(leaf, Traced) and leaf.alts]
    choices = [
        [
            *((w, t) for w, t in visible_alts(leaves[k]) if not isinstance(t, Unbound)),
            (None, inputs[k].type),  # (its alts' flags are checked above: it exists)
        ]
        for k in carriers
    ]
    if not carriers or math.prod(map(len, choices)) > _MOST_COMBINATIONS:
        return ()
    alts = []
    for combination in itertools.product(*choices):
        flags = [w for w, _ in combination if w is not None]
        if not flags:  # every operand of its static type: the result's
            break
        types = [n.type for n in inputs]
        for k, (_, t) in zip(carriers, combination):
            types[k] = t
        try:
            other = infer(the_call, types)
        except TypeInferenceError:
            other = rtype
        same_dtype = isinstance(other, TensorType) and (other.dtype, other.ndim) == (rtype.dtype, 0)
        when = flags[0]
        for flag in flags[1:]:
            when = call(operator.and_, when, flag)
        alts.append((when, other if same_dtype else rtype))
    return trimmed(alts, rtype)


_MOST_COMBINATIONS = 16  # of the operands' types: beyond, the result has its static type


def trimmed(alts: list, static: TensorType) -> Alts:
    """alts without the trailing ones that give the static type anyway (earlier ones
    stay: the first whose flag is true decides)."""
    while alts and alts[-1][1] == static:
        alts.pop()
    return tuple(alts)


_TOKEN = object()  # stands for the effect token in an effect's arguments
# Calls that carry a value along (into a branch's or loop's result) and do not use it.
_CARRYING = frozenset({runtime.retype, runtime.coerce, runtime.make_tuple})


def _is_input(value: Any) -> bool:
    return value is _TOKEN or is_graph_value(value) or isinstance(value, np.ndarray)


def effect(fn: Any, *args: Any, **kwargs: Any) -> None:
    """Record a side effect (print, assert, raise) in program order."""
    call(fn, _TOKEN, *args, **kwargs)


def const(value: Any) -> Traced:
    """A graph constant holding a concrete number or array (an array as it is now)."""
    vtype = type_of(value)
    if vtype is None:
        raise StagingError(f"a {type(value).__name__} cannot be a graph value", user_location())
    if isinstance(value, np.ndarray):
        value = _snapshot(value)
    return Traced(add_node(Op.CONST, (), value, vtype))


def _snapshot(array: np.ndarray) -> np.ndarray:
    """A copy of an array made while tracing, as it is now: code traced later may still
    write into it (``y = x + c; c[0] = 5``), which the graph's earlier read must not see.
    One copy per array while its contents stay the same."""
    if not array.flags.writeable and array.base is None:
        return array
    key = id(array)
    held = _snapshots.get(key)
    if held is not None and held[0]() is array and _same_contents(array, held[1]):
        return held[1]
    copy = array.copy()
    _snapshots[key] = (weakref.ref(array, lambda _, key=key: _snapshots.pop(key, None)), copy)
    return copy


def _same_contents(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


_snapshots: dict[int, tuple[weakref.ref, np.ndarray]] = {}


def lift(value: Any) -> Any:
    """value as a graph value: graph values unchanged, numbers and arrays as constants."""
    if is_graph_value(value):
        return value
    return const(value)


# --- writes into arrays while tracing -----------------------------------------------------
# Refused through views the graph cannot follow; noted when they reach outside the
# staged region being traced (see ``aliases``).

_FOLLOWED = {runtime.setitem, operator.getitem}


def check_view_write(handle: Traced) -> None:
    """Refuse a write into an array that may be a view of an argument made other than by
    basic slicing (``x.T``, ``x.reshape(...)``): eagerly it changes the caller's array,
    which graph mode cannot follow."""
    if handle.sliced is not None:
        return
    node, maker = handle.node, None
    while (
        node.op is Op.CALL
        and node.inputs
        and (node.arg.fn in VIEW_FUNCTIONS or node.arg.fn in _FOLLOWED or _method_view(node))
    ):
        if node.arg.fn not in _FOLLOWED and maker is None:
            maker = node
        node = node.inputs[0]
    if (
        maker is None
        or node.op is not Op.PARAM
        or current().owner_of(node) is None
        or current().owner_of(node).parent is not None
    ):
        return
    made = f" (made at line {maker.loc.lineno})" if maker.loc else ""
    raise StagingError(
        f"this writes into an array that is a {maker.label()} view of an argument{made}; "
        "eagerly the write would change the caller's array through the view, and graph "
        "mode follows writes through basic slices only (x[1:], x[:, 0]). Write through the "
        "argument or a slice of it, make the view a copy (.copy()), or call .eager(...) "
        "to run the function as written",
        user_location(),
    )


def _method_view(node: Node) -> bool:
    return method_name(node.arg) in VIEW_METHODS


def note_write(handle: Traced) -> None:
    """Record, before an in-place update, that it writes an array from outside the
    staged region being traced."""
    if not is_staged():
        return
    builder = current()
    if builder.owner_of(handle.node) is not builder:
        noted = builder.__dict__.setdefault("outer_writes", {})  # aliases.Writes
        noted.setdefault(id(handle), (handle, handle.node))
