"""Per-function rules of the CUDA backend: how getitem, setitem, matmul, creation and
views become steps.  Each rule returns the node's step, or None when the node is not
a case it handles (the program then tries its general rules, and refuses the node if
none applies)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from ...graph import runtime
from ...graph.functions import Call
from ...graph.ir import Node, Op
from ...graph.numpy_facts import axis_function, call_operands
from ...graph.runtime import compiled_sum_to
from ...graph.template import Hole, fill
from ...graph.types import ARRAY, PYTHON, TensorType, host_value, is_device_array, type_of
from ..common.indexing import basic_rank
from ..common.ownership import Ownership
from . import checks, creation, scan, views
from .device import as_device, empty
from .elementwise import Elementwise
from .layout import contiguous
from .matmul import matmul
from .reductions import reduce
from .scalar_ops import UnsupportedElement
from .steps import Env, Step, is_array


class Program(Protocol):
    """What the rules ask of the program being planned (``program.CudaGraph``)."""

    numbers: dict[Node, int]  # each node's number in device error reports
    on_device: dict[Node, Any]  # where each planned node's value lives
    ownership: Ownership  # which updates may write into their array
    err: Any  # the device error array (set when the program first runs)
    may_fail: bool  # whether a step may record a device error

    def lives_on_device(self, node: Node) -> bool:
        """Whether the node's value lives on the device."""

    def host_reader(self, node: Node) -> Callable[[Env], Any]:
        """How the host reads the node's value (fetched from the device if there)."""

    def device_reader(self, node: Node) -> Callable[[Env], Any]:
        """The node's value as a device array (uploaded if on the host)."""

    def arguments(self, node: Node) -> Callable[[Env], Any]:
        """The node's filled argument template at run time."""


MATMUL = frozenset({operator.matmul, np.matmul, np.dot})
_FILLS = {np.zeros: 0, np.ones: 1, np.empty: 0, np.zeros_like: 0, np.ones_like: 1, np.empty_like: 0}


def _static(node: Node) -> bool:
    """Whether the node's arguments other than its array are all known on the host."""
    return all(
        not isinstance(i.type, TensorType) or i.type.flavor != ARRAY for i in node.inputs[1:]
    )


def _getitem(program: Program, node: Node) -> Step | None:
    source = node.inputs[0]
    if not program.lives_on_device(source) or node.arg.args[0] != Hole(0):
        return None
    template = node.arg.args[1]
    rest = node.inputs[1:]
    on = [program.lives_on_device(i) for i in rest]
    if _advanced(template):  # a list of indices: uploaded once, then a gather
        if not isinstance(template, list) or rest:
            return None
        program.may_fail = True
        number = program.numbers[node]
        index = np.asarray(template)
        if index.dtype.kind not in "iu":
            return None
        held: list[Any] = []

        def gather_constant(env: Env) -> None:
            if not held:
                held.append(as_device(index))
            env[node] = checks.take(program.err, env[source], held[0], number, contiguous)

        return gather_constant
    if not any(on):

        def basic(env: Env) -> None:
            key = fill(template, [env[source], *(env[i] for i in rest)])
            env[node] = views.index(env[source], key)

        return basic
    if template == Hole(1) and rest[0].type.dtype.kind == "b" and rest[0].type.ndim >= 1:
        mask = rest[0]

        def select(env: Env) -> None:  # a boolean mask: a scan, then a compaction
            env[node] = scan.masked(env[source], env[mask])

        return select
    if template == Hole(1) and rest[0].type.dtype.kind in "iu" and rest[0].type.ndim >= 1:
        program.may_fail = True
        number = program.numbers[node]
        index = rest[0]

        def gather(env: Env) -> None:
            env[node] = checks.take(program.err, env[source], env[index], number, contiguous)

        return gather
    if all(i.type.ndim == 0 and i.type.dtype.kind in "iu" for i in rest):
        readers = [program.host_reader(i) for i in rest]

        def scalar_index(env: Env) -> None:  # an index computed on the device: read it
            key = fill(template, [env[source], *(read(env) for read in readers)])
            env[node] = views.index(env[source], key)

        return scalar_index
    return None


def _advanced(template: Any) -> bool:
    """Whether an index template has NumPy's advanced indices as constants (lists)."""
    items = template if isinstance(template, tuple) else (template,)
    return any(isinstance(i, (list, np.ndarray)) for i in items)


def _setitem(program: Program, node: Node) -> Step | None:
    """``x[key] = value`` as a functional update: into ``x`` itself where the graph
    no longer needs the old ``x`` (``Ownership``), else into a copy."""
    call = node.arg
    target = node.inputs[0]
    if call.args[0] != Hole(0) or not program.lives_on_device(target):
        return None
    key_template, value_template = call.args[1], call.args[2]
    if _advanced(key_template):
        return None
    value = node.inputs[value_template.index] if isinstance(value_template, Hole) else None
    keys = [i for i in node.inputs[1:] if i is not value]
    if (
        key_template == Hole(1)
        and len(keys) == 1
        and keys[0].type.dtype.kind == "b"
        and keys[0].type.ndim == target.type.ndim
    ):
        return _masked_setitem(program, node, keys[0], value, value_template)
    if any(program.lives_on_device(i) and i.type.ndim > 0 for i in keys):
        return None  # advanced-index assignment
    get = {i: program.host_reader(i) for i in keys}
    for i in (target, value):
        if i is not None:
            get[i] = lambda env, i=i: env[i]
    readers = [get[i] for i in node.inputs]
    rank = basic_rank(node)  # of the view written: the value is broadcast to it
    assign = None if rank is None else _assigner(program, node, value, value_template, rank)
    if assign is None:
        return None
    in_place = node in program.ownership.in_place

    def setitem(env: Env) -> None:
        holes = [read(env) for read in readers]
        array = holes[0] if in_place else copy_of(holes[0])
        view, backwards = views.written(array, fill(key_template, holes))
        item = fill(value_template, holes)
        if is_device_array(item):  # NumPy reads all of the value before writing
            if backwards and item.ndim:
                item = views.flipped(item, backwards, view.ndim)
            elif views.may_share(item, array):
                item = copy_of(item)
        assign(view, item)
        env[node] = array

    return setitem


def _add_at(program: Program, node: Node) -> Step | None:
    """The functional ``np.add.at(x, index, values)`` (a gradient of ``x[index]``): a
    copy of x, then the values added row by row in NumPy's order, for an integer array
    index (on the device, or a list of constants uploaded once) and values of the
    gathered shape (other shapes, which NumPy broadcasts, go through NumPy on the host)."""
    args = node.arg.args
    if len(node.arg.args) != 3 or args[0] != Hole(0) or not isinstance(args[2], Hole):
        return None
    source, values = node.inputs[0], node.inputs[args[2].index]
    template = args[1]
    if isinstance(template, list):
        constant = np.asarray(template)
        if constant.dtype.kind not in "iu":
            return None
        held: list[Any] = []

        def index(env: Env) -> Any:
            if not held:
                held.append(as_device(constant))
            return held[0]

        shape = constant.shape
    elif isinstance(template, Hole):
        index_node = node.inputs[template.index]
        t = index_node.type
        if not (t.flavor == ARRAY and t.ndim >= 1 and t.dtype.kind in "iu"):
            return None

        def index(env: Env) -> Any:
            return env[index_node]

        shape = None
    else:
        return None
    if not all(program.lives_on_device(i) for i in (source, values)):
        return None
    program.may_fail = True
    number = program.numbers[node]
    program.on_device[node] = True

    def add_at(env: Env) -> None:
        where, gathered = index(env), env[values]
        out = copy_of(env[source])
        if tuple(gathered.shape) != (*(shape or where.shape), *out.shape[1:]):
            # Values to broadcast: NumPy's own np.add.at on host copies (its errors too).
            host = out.copy_to_host()
            np.add.at(host, host_value(where), gathered.copy_to_host())
            env[node] = as_device(host)
            return
        checks.add_at(program.err, out, where, gathered, number, contiguous)
        env[node] = out

    return add_at


def _assigner(
    program: Program, node: Node, value: Node | None, template: Any, rank: int | None = None
) -> Callable[[Any, Any], None] | None:
    """How a value is written into a device view of rank ``rank`` (None: the value's
    own): a kernel that broadcasts and casts a device array or a host scalar into the
    view's elements, whatever its strides; None where the value has the higher rank."""
    source = value
    if source is None:
        t = type_of(template)
        if t is None:
            return None
        source = Node(Op.PARAM, (), 0, t)
    rank = source.type.ndim if rank is None else rank
    if source.type.ndim > rank:
        return None
    dtype = node.type.dtype
    copy = Node(
        Op.CALL,
        (source,),
        Call(runtime.astype, (Hole(0), dtype), {}),
        TensorType(dtype, rank, ARRAY),
        node.loc,
    )
    try:
        kernel = Elementwise([copy], [source], [program.lives_on_device(source)], lambda n: 0)
    except UnsupportedElement:
        return None
    if dtype.kind in "iu" and source.type.flavor == PYTHON and source.type.dtype.kind in "iu":
        kernel.ranges.append((0, dtype))  # NumPy refuses a Python int the item cannot hold

    def assign(view: Any, item: Any) -> None:
        kernel(program.err, [item], out=view)

    return assign


def copy_of(array: Any) -> Any:
    """A new device array with ``array``'s elements."""
    out = empty(array.shape, array.dtype)
    if array.size:
        source = contiguous(array)
        out.copy_to_device(source if source is not array else array)
    return out


def _matmul(program: Program, node: Node) -> Step | None:
    call = node.arg
    if len(node.inputs) != 2 or call.kwargs or call_operands(call) != (Hole(0), Hole(1)):
        return None
    a, b = (program.device_reader(i) for i in node.inputs)
    dtype = node.type.dtype
    program.on_device[node] = True

    def product(env: Env) -> None:
        env[node] = matmul(a(env), b(env), dtype)

    return product


def _shape_dim(program: Program, node: Node) -> Step:
    program.on_device[node] = False
    source = node.inputs[0]
    axis = node.arg.args[1]

    def shape_dim(env: Env) -> None:
        env[node] = env[source].shape[axis]

    return shape_dim


def _size(program: Program, node: Node) -> Step | None:
    if len(node.inputs) != 1 or len(node.arg.args) != 1:
        return None
    program.on_device[node] = False
    source = node.inputs[0]

    def size(env: Env) -> None:
        env[node] = int(env[source].size)

    return size


def _view(how: Callable[[Any, list, dict], Any]) -> Callable[[Program, Node], Step | None]:
    """A rule for an operation that is a view (or copy) of its device array (``how``
    takes the array, the other arguments and the keyword arguments)."""

    def rule(program: Program, node: Node) -> Step | None:
        if not node.inputs or not program.on_device.get(node.inputs[0]) or not _static(node):
            return None
        values = program.arguments(node)

        def view(env: Env) -> None:
            args, kwargs = values(env)
            array, *rest = call_operands(node.arg, args)
            env[node] = how(array, rest, kwargs)

        return view

    return rule


def _reshape(a: Any, args: list, kwargs: dict) -> Any:
    shape = args[0] if len(args) == 1 else tuple(args)
    return views.reshape(a, shape)


def _creation(program: Program, node: Node) -> Step | None:
    fn = node.arg.fn
    if not is_array(node) or (
        not _static(node) and fn not in (np.zeros_like, np.ones_like, np.empty_like, np.full_like)
    ):
        return None
    values = program.arguments(node)
    dtype = node.type.dtype
    program.on_device[node] = True

    def create(env: Env) -> None:
        args, kwargs = values(env)
        env[node] = _create(fn, args, kwargs, dtype)

    return create


def _create(fn: Callable, args: list, kwargs: dict, dtype: np.dtype) -> Any:
    if fn in _FILLS:
        shape = np.shape(args[0]) if fn.__name__.endswith("_like") else args[0]
        return creation.full(_shape(shape), _FILLS[fn], dtype)
    if fn is np.full:
        return creation.full(_shape(args[0]), args[1], dtype)
    if fn is np.full_like:
        return creation.full(np.shape(args[0]), args[1], dtype)
    if fn is np.arange:
        bounds = list(args) + [None] * (3 - len(args))
        start, stop, step = bounds
        if stop is None:
            start, stop = 0, start
        return creation.arange(start, stop, 1 if step is None else step, dtype)
    if fn is np.linspace:
        num = kwargs.get("num", args[2] if len(args) > 2 else 50)
        return creation.linspace(
            args[0], args[1], int(num), bool(kwargs.get("endpoint", True)), dtype
        )
    raise AssertionError(fn)


def _shape(shape: Any) -> tuple[int, ...]:
    return (int(shape),) if np.ndim(shape) == 0 else tuple(int(s) for s in shape)


def _masked_setitem(
    program: Program, node: Node, mask: Node, value: Node | None, template: Any
) -> Step | None:
    """``x[mask] = scalar`` (a mask of x's shape): one kernel choosing per element."""
    target = node.inputs[0]
    if value is not None and value.type.ndim != 0:
        return None  # an array of the selected elements' count: not on the GPU yet
    scalar = value if value is not None else Node(Op.PARAM, (), 0, type_of(template))
    if scalar.type is None:
        return None
    chosen = Node(
        Op.CALL,
        (mask, scalar, target),
        Call(np.where, (Hole(0), Hole(1), Hole(2)), {}),
        target.type,
        node.loc,
    )
    try:
        kernel = Elementwise(
            [chosen],
            [mask, scalar, target],
            [True, program.lives_on_device(scalar), True],
            lambda n: 0,
        )
    except UnsupportedElement:
        return None
    in_place = node in program.ownership.in_place
    program.on_device[node] = True

    def setitem(env: Env) -> None:
        array = env[target] if in_place else copy_of(env[target])
        item = env[value] if value is not None else template
        if tuple(env[mask].shape) != tuple(array.shape):
            raise IndexError("boolean index did not match indexed array")
        env[node] = kernel(program.err, [env[mask], item, array], out=array)

    return setitem


def _cumulative(program: Program, node: Node) -> Step | None:
    """np.cumsum / np.cumprod (functions or methods) along one axis or flattened."""
    call = node.arg
    method, rest = axis_function(call).name, call_operands(call)[1:]
    source = node.inputs[0]
    if rest or set(call.kwargs) - {"axis"} or not program.lives_on_device(source):
        return None
    axis = call.kwargs.get("axis")
    if not (axis is None or type(axis) is int):
        return None
    dtype = node.type.dtype
    program.on_device[node] = True

    def cumulative(env: Env) -> None:
        env[node] = scan.cumulative(env[source], method, axis, dtype)

    return cumulative


def _count_nonzero(program: Program, node: Node) -> Step | None:
    """np.count_nonzero(x, axis): a ``x != 0`` kernel and a sum."""
    call, source = node.arg, node.inputs[0]
    if (
        not program.lives_on_device(source)
        or call.args[1:]
        or set(call.kwargs) - {"axis", "keepdims"}
    ):
        return None
    axis, keepdims = call.kwargs.get("axis"), call.kwargs.get("keepdims", False)
    if not (axis is None or type(axis) is int) or type(keepdims) is not bool:
        return None
    nonzero = Node(
        Op.CALL,
        (source,),
        Call(np.not_equal, (Hole(0), 0), {}),
        TensorType(np.dtype(bool), source.type.ndim, ARRAY),
        node.loc,
    )
    mask = Elementwise([nonzero], [source], [True], lambda n: 0)
    program.on_device[node] = True

    def count_nonzero(env: Env) -> None:
        env[node] = reduce(
            mask(program.err, [env[source]]), "sum", axis, keepdims, np.dtype(np.int64)
        )

    return count_nonzero


def _join(program: Program, node: Node) -> Step | None:
    """np.concatenate / np.stack of several device arrays: each copied (and cast) into
    its part of one new array by the copying kernel."""
    call = node.arg
    parts = call.args[0]
    if (
        not isinstance(parts, (tuple, list))
        or call.args[1:]
        or set(call.kwargs) - {"axis"}
        or len(parts) != len(node.inputs)
        or any(not isinstance(p, Hole) for p in parts)
    ):
        return None
    axis = call.kwargs.get("axis", 0)
    if type(axis) is not int or not all(program.lives_on_device(i) for i in node.inputs):
        return None
    ndim = node.inputs[0].type.ndim
    # vstack and hstack are concatenations of rows and columns; 1-d rows stack.
    stack = call.fn is np.stack or (call.fn is np.vstack and ndim == 1)
    if call.fn is np.hstack:
        axis = 0 if ndim == 1 else 1
    dtype = node.type.dtype
    copies = [_assigner(program, node, i, None) for i in node.inputs]
    if any(c is None for c in copies):
        return None
    inputs = [node.inputs[p.index] for p in parts]
    program.on_device[node] = True

    def join(env: Env) -> None:
        env[node] = _joined(stack, axis, dtype, copies, [env[i] for i in inputs])

    return join


def _joined(
    stack: bool, axis: int, dtype: np.dtype, copies: list[Callable], arrays: list[Any]
) -> Any:
    """A new device array of ``arrays`` stacked or concatenated along ``axis``, each
    written into its part by its copying kernel."""
    shape, keys = _layout(stack, axis, [a.shape for a in arrays])
    out = empty(shape, dtype)
    for copy, key, array in zip(copies, keys, arrays):
        if array.size:
            copy(views.index(out, key), array)
    return out


def _layout(
    stack: bool, axis: int, shapes: list[tuple[int, ...]]
) -> tuple[tuple[int, ...], list[tuple]]:
    """The joined shape and each part's index into it (NumPy's rules and errors)."""
    first = shapes[0]
    ndim = len(first) + stack
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    axis %= ndim
    if stack:
        if any(s != first for s in shapes):
            raise ValueError("all input arrays must have the same shape")
        keys = [(slice(None),) * axis + (k,) for k in range(len(shapes))]
        return (*first[:axis], len(shapes), *first[axis:]), keys
    if any(
        len(s) != len(first) or s[:axis] + s[axis + 1 :] != first[:axis] + first[axis + 1 :]
        for s in shapes
    ):
        raise ValueError(
            "all the input array dimensions except for the concatenation axis must match exactly"
        )
    keys, start = [], 0
    for s in shapes:
        keys.append((slice(None),) * axis + (slice(start, start + s[axis]),))
        start += s[axis]
    return (*first[:axis], start, *first[axis + 1 :]), keys


def _list_to_array(program: Program, node: Node) -> Step | None:
    """np.array / np.asarray / np.stack of a graph list (a host structure).  Scalar items
    are host values: the array is made there and copied to the device once.  Array items
    live on the device: each is copied into its part of one new array, as np.stack and
    np.concatenate do; an empty list, or items of different shapes to stack, take
    NumPy's own path on host copies, for its result or its error."""
    call = node.arg
    listed, how, kwargs = node.inputs[0], call.args[1], call.args[2]
    elem = listed.type.elem
    if not isinstance(elem, TensorType):
        return None
    program.on_device[node] = True
    values = program.arguments(node)

    def on_the_host(env: Env) -> Any:
        args, _ = values(env)
        items = [host_value(item) for item in runtime.host_list(args[0])]
        args = [items, *args[1:3], *map(host_value, args[3:])]
        return as_device(runtime.list_to_array(*args))

    if elem.ndim == 0:

        def from_scalars(env: Env) -> None:
            env[node] = on_the_host(env)

        return from_scalars
    if how in (np.array, np.asarray) and set(kwargs) <= {"dtype"}:  # (cast on copy)
        stacked, axis = True, 0
    elif how in (np.stack, np.concatenate) and set(kwargs) <= {"axis"}:
        stacked, axis = how is np.stack, kwargs.get("axis", 0)
    else:
        return None
    if elem.flavor != ARRAY or type(axis) is not int:
        return None
    item = Node(Op.PARAM, (), 0, elem)
    program.on_device[item] = True
    copy = _assigner(program, node, item, None)
    if copy is None:
        return None
    dtype = node.type.dtype

    def stack(env: Env) -> None:
        arrays = runtime.host_list(env[listed])
        if not arrays or (stacked and len({a.shape for a in arrays}) > 1):
            env[node] = on_the_host(env)
            return
        env[node] = _joined(stacked, axis, dtype, [copy] * len(arrays), arrays)

    return stack


def _sum_to(program: Program, node: Node) -> Step:
    """A gradient's sum over the axes its operand was broadcast along: sums on the
    device over the axes where the operand has length 1."""
    gradient, like = program.device_reader(node.inputs[0]), node.inputs[1]
    program.on_device[node] = True

    def sum_to(env: Env) -> None:
        out = gradient(env)
        for axis, (n, m) in enumerate(zip(out.shape, env[like].shape)):
            if m == 1 and n != 1:
                out = reduce(out, "sum", axis, True, out.dtype)
        env[node] = out

    return sum_to


def _tuple(program: Program, node: Node) -> Step:
    program.on_device[node] = tuple(program.lives_on_device(i) for i in node.inputs)

    def make_tuple(env: Env) -> None:
        env[node] = tuple(env[i] for i in node.inputs)

    return make_tuple


RULES: dict[Callable, Callable[[Program, Node], Step | None]] = {
    operator.getitem: _getitem,
    runtime.setitem: _setitem,
    runtime.add_at: _add_at,
    runtime.shape_dim: _shape_dim,
    runtime.make_tuple: _tuple,
    np.size: _size,
    np.reshape: _view(lambda a, args, kw: _reshape(a, args, kw)),
    np.ravel: _view(lambda a, args, kw: views.reshape(a, -1)),
    np.transpose: _view(lambda a, args, kw: views.transpose(a, args[0] if args else None)),
    np.copy: _view(lambda a, args, kw: copy_of(a)),
    np.ascontiguousarray: _view(lambda a, args, kw: contiguous(a)),
    np.count_nonzero: _count_nonzero,
    np.cumsum: _cumulative,
    np.cumprod: _cumulative,
    np.concatenate: _join,
    np.stack: _join,
    np.vstack: _join,
    np.hstack: _join,
    runtime.list_to_array: _list_to_array,
    compiled_sum_to(): _sum_to,
    **{
        fn: _view(lambda a, args, kw, fn=fn: views.restrided(a, lambda h: fn(h, *args, **kw)))
        for fn in (np.expand_dims, np.swapaxes, np.squeeze, np.moveaxis)
    },
    **{fn: _matmul for fn in MATMUL},
    **{fn: _creation for fn in (*_FILLS, np.full, np.full_like, np.arange, np.linspace)},
}
METHOD_RULES: dict[str, Callable[[Program, Node], Step | None]] = {
    "reshape": _view(lambda a, args, kw: _reshape(a, args, kw)),
    "ravel": _view(lambda a, args, kw: views.reshape(a, -1)),
    "flatten": _view(lambda a, args, kw: copy_of(views.reshape(a, -1))),
    "copy": _view(lambda a, args, kw: copy_of(a)),
    "transpose": _view(lambda a, args, kw: views.transpose(a, tuple(args) or None)),
    "dot": _matmul,
    "cumsum": _cumulative,
    "cumprod": _cumulative,
    **{
        name: _view(
            lambda a, args, kw, name=name: views.restrided(
                a, lambda h: getattr(h, name)(*args, **kw)
            )
        )
        for name in ("squeeze", "swapaxes")
    },
}
