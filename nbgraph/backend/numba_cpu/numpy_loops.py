"""NumPy's own loops for its transcendental ufuncs (and float ``//`` and ``%``), called
from compiled code.

NumPy computes ``exp``, ``log``, ``tanh``, ... with its own SIMD implementations, which
differ from the C library's (what Numba calls) in the last bit for a share of the
inputs: measured here, ``exp`` for 5% of float64 and 39% of float32 values, ``tanh``
for 20%. Compiled code calls NumPy's float and complex loops themselves, so its values are
NumPy's bit for bit: one element at a time (``numpy_loops.exp(x)``), or over a block of
elements (``numpy_loops.exp_into(x, out)``) at the speed of NumPy's SIMD code.

Each loop's address is read from its ufunc (the ``functions`` table of NumPy's public
``PyUFuncObject``) and registered with LLVM under a fixed name when this module is
imported, so code in Numba's disk cache finds it again in a new process.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

import numpy as np
from llvmlite import binding, ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload


class _UFunc(ctypes.Structure):
    """The start of NumPy's ``PyUFuncObject`` (numpy/ufuncobject.h)."""

    _fields_ = [
        ("ob_refcnt", ctypes.c_ssize_t),
        ("ob_type", ctypes.c_void_p),
        ("nin", ctypes.c_int),
        ("nout", ctypes.c_int),
        ("nargs", ctypes.c_int),
        ("identity", ctypes.c_int),
        ("functions", ctypes.POINTER(ctypes.c_void_p)),
        ("data", ctypes.POINTER(ctypes.c_void_p)),
        ("ntypes", ctypes.c_int),
        ("reserved1", ctypes.c_int),
        ("name", ctypes.c_char_p),
    ]


def _register(ufunc: np.ufunc, code: str) -> tuple[str, str | None] | None:
    """The LLVM names of ``ufunc``'s loop taking and giving ``code`` values ('f', 'd',
    'F' or 'D') and of the data NumPy passes it (None: none), registered; None where
    NumPy has no such loop."""
    signature = code * ufunc.nin + "->" + code
    if signature not in ufunc.types:
        return None
    table = _UFunc.from_address(id(ufunc))
    k = ufunc.types.index(signature)  # the loop NumPy's type resolution picks
    if table.ntypes != len(ufunc.types) or not table.functions[k]:
        return None
    name = f"nbgraph_numpy_{ufunc.__name__}_{code}"
    binding.add_symbol(name, table.functions[k])
    if not table.data[k]:
        return name, None
    # The generic loops NumPy uses for complex numbers take the function as their data.
    binding.add_symbol(f"{name}_data", table.data[k])
    return name, f"{name}_data"


_BYTES = ir.IntType(8).as_pointer()
_SIZE = ir.IntType(64)


def _apply(builder, symbols: tuple[str, str | None], operands: list, count) -> None:
    """Calls the loop named ``symbols[0]`` (with the data named ``symbols[1]``) on
    ``count`` elements: ``operands`` holds each operand's (pointer, step in bytes), the
    result's last, as NumPy's loops take them."""
    symbol, data_symbol = symbols
    loop = cgutils.get_or_insert_function(
        builder.module,
        ir.FunctionType(
            ir.VoidType(), [_BYTES.as_pointer(), _SIZE.as_pointer(), _SIZE.as_pointer(), _BYTES]
        ),
        symbol,
    )
    data = ir.Constant(_BYTES, None)
    if data_symbol is not None:  # the symbol's address is the data
        data = builder.module.globals.get(data_symbol) or ir.GlobalVariable(
            builder.module, ir.IntType(8), name=data_symbol
        )
    pointers = cgutils.alloca_once(builder, _BYTES, size=len(operands))
    steps = cgutils.alloca_once(builder, _SIZE, size=len(operands))
    for k, (pointer, step) in enumerate(operands):
        at = ir.Constant(_SIZE, k)
        builder.store(builder.bitcast(pointer, _BYTES), builder.gep(pointers, [at]))
        builder.store(step, builder.gep(steps, [at]))
    builder.call(loop, [pointers, cgutils.alloca_once_value(builder, count), steps, data])


def _call(symbols: tuple[str, str | None], dtype: types.Number, nin: int) -> Callable:
    """An intrinsic applying the loop named by ``symbols`` to ``nin`` values of
    ``dtype``: a loop over one element, each operand's pointer in its slot."""

    def codegen(context, builder, signature, args):
        result = cgutils.alloca_once(builder, context.get_value_type(dtype))
        slots = [cgutils.alloca_once_value(builder, a) for a in args] + [result]
        _apply(
            builder,
            symbols,
            [(slot, ir.Constant(_SIZE, 0)) for slot in slots],
            ir.Constant(_SIZE, 1),
        )
        return builder.load(result)

    if nin == 1:

        @intrinsic
        def unary(typingctx, x):
            return dtype(dtype), codegen

        return unary

    @intrinsic
    def binary(typingctx, x, y):
        return dtype(dtype, dtype), codegen

    return binary


def _call_into(symbols: tuple[str, str | None], dtype: types.Number, nin: int) -> Callable:
    """An intrinsic applying the loop named by ``symbols`` to 1-d arrays of ``dtype``:
    ``nin`` operands and the result, all as long as the result (the caller's promise)."""

    def codegen(context, builder, signature, args):
        operands = []
        for kind, value in zip(signature.args, args):
            array = context.make_array(kind)(context, builder, value)
            operands.append((array.data, cgutils.unpack_tuple(builder, array.strides)[0]))
        count = cgutils.unpack_tuple(builder, array.shape)[0]
        _apply(builder, symbols, operands, count)
        return context.get_dummy_value()

    def valid(*arrays) -> bool:
        return all(
            isinstance(a, types.Array) and a.ndim == 1 and a.dtype == dtype and a.mutable
            for a in arrays
        )

    if nin == 1:

        @intrinsic
        def unary(typingctx, x, out):
            return types.none(x, out) if valid(x, out) else None, codegen

        return unary

    @intrinsic
    def binary(typingctx, x, y, out):
        return types.none(x, y, out) if valid(x, y, out) else None, codegen

    return binary


_LOOPS: set[tuple[np.ufunc, np.dtype]] = set()  # what compiled code has NumPy's loop for


def _stubs(ufunc: np.ufunc) -> tuple[Callable, Callable] | None:
    """``ufunc`` of float or complex values by NumPy's loop, as overloaded stubs: of
    scalars (``exp(x)``) and of 1-d arrays into a 1-d array (``exp_into(x, out)``)."""
    calls, blocks = {}, {}
    for dtype, code in (
        (types.float32, "f"),
        (types.float64, "d"),
        (types.complex64, "F"),
        (types.complex128, "D"),
    ):
        symbols = _register(ufunc, code)
        if symbols is not None:
            calls[dtype] = _call(symbols, dtype, ufunc.nin)
            blocks[dtype] = _call_into(symbols, dtype, ufunc.nin)
            _LOOPS.add((ufunc, np.dtype(code)))
    if not calls:
        return None

    def stub(x, y=None):
        raise NotImplementedError  # compiled code only

    @overload(stub, jit_options={"cache": True})
    def _typed(x, y=None):
        call = calls.get(x)
        if call is None:
            return None
        if ufunc.nin == 1:
            return lambda x, y=None: call(x)
        if y != x:
            return None
        return lambda x, y=None: call(x, y)

    if ufunc.nin == 1:

        def stub_into(x, out):
            raise NotImplementedError  # compiled code only

        @overload(stub_into, jit_options={"cache": True})
        def _typed_into(x, out):
            block = blocks.get(getattr(x, "dtype", None))
            return None if block is None else lambda x, out: block(x, out)
    else:

        def stub_into(x, y, out):
            raise NotImplementedError  # compiled code only

        @overload(stub_into, jit_options={"cache": True})
        def _typed_into(x, y, out):
            block = blocks.get(getattr(x, "dtype", None))
            return None if block is None else lambda x, y, out: block(x, y, out)

    stub.__name__ = ufunc.__name__
    stub_into.__name__ = f"{ufunc.__name__}_into"
    return stub, stub_into


# Transcendental ufuncs: NumPy's SIMD loops, its own bits, beat scalar libm in compiled loops.
_TRANSCENDENTAL = frozenset(
    {
        np.exp,
        np.exp2,
        np.expm1,
        np.log,
        np.log2,
        np.log10,
        np.log1p,
        np.sin,
        np.cos,
        np.tan,
        np.arcsin,
        np.arccos,
        np.arctan,
        np.arctan2,
        np.sinh,
        np.cosh,
        np.tanh,
        np.arcsinh,
        np.arccosh,
        np.arctanh,
        np.power,
        np.float_power,
        np.cbrt,
        np.hypot,
    }
)

# NumPy's floor division and remainder of floats: its npy_divmod (infinities, signed
# zeros), which Numba's differ from.
_DIVISIONS = frozenset({np.floor_divide, np.remainder})

# The ufuncs, by name: ``numpy_loops.exp(np.float32(x))``, ``numpy_loops.exp_into(x, out)``.
for _ufunc in sorted(_TRANSCENDENTAL | _DIVISIONS, key=lambda u: u.__name__):
    if _ufunc.nout == 1:
        _functions = _stubs(_ufunc)
        if _functions is not None:
            for _function in _functions:
                globals()[_function.__name__] = _function


def supports(ufunc: object, dtype: np.dtype) -> bool:
    """Whether compiled code applies ``ufunc`` to ``dtype`` values by NumPy's loop."""
    return (ufunc, dtype) in _LOOPS
