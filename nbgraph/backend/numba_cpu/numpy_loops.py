"""NumPy's own loops for its transcendental ufuncs (and float ``//`` and ``%``), called
from compiled code.

NumPy computes ``exp``, ``log``, ``tanh``, ... with its own SIMD implementations, which
differ from the C library's (what Numba calls) in the last bit for a share of the
inputs: measured here, ``exp`` for 5% of float64 and 39% of float32 values, ``tanh``
for 20%. Compiled code calls NumPy's float32 and float64 loops themselves, one element
at a time, so its values are NumPy's bit for bit.

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

from .fusion import TRANSCENDENTAL


class _UFunc(ctypes.Structure):
    """The start of NumPy's ``PyUFuncObject`` (numpy/ufuncobject.h)."""

    _fields_ = [("ob_refcnt", ctypes.c_ssize_t), ("ob_type", ctypes.c_void_p),
                ("nin", ctypes.c_int), ("nout", ctypes.c_int), ("nargs", ctypes.c_int),
                ("identity", ctypes.c_int), ("functions", ctypes.POINTER(ctypes.c_void_p)),
                ("data", ctypes.POINTER(ctypes.c_void_p)), ("ntypes", ctypes.c_int),
                ("reserved1", ctypes.c_int), ("name", ctypes.c_char_p)]


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


def _call(symbols: tuple[str, str | None], dtype: types.Number, nin: int) -> Callable:
    """An intrinsic applying the loop named ``symbols[0]`` (with the data named
    ``symbols[1]``) to ``nin`` values of ``dtype``: a loop over one element, each
    operand's pointer in its slot."""
    symbol, data_symbol = symbols

    def codegen(context, builder, signature, args):
        byte_pointer = ir.IntType(8).as_pointer()
        size = ir.IntType(64)
        loop = cgutils.get_or_insert_function(builder.module, ir.FunctionType(
            ir.VoidType(), [byte_pointer.as_pointer(), size.as_pointer(),
                            size.as_pointer(), byte_pointer]), symbol)
        data = ir.Constant(byte_pointer, None)
        if data_symbol is not None:  # the symbol's address is the data
            data = builder.module.globals.get(data_symbol) or ir.GlobalVariable(
                builder.module, ir.IntType(8), name=data_symbol)
        result = cgutils.alloca_once(builder, context.get_value_type(dtype))
        slots = [cgutils.alloca_once_value(builder, a) for a in args] + [result]
        pointers = cgutils.alloca_once(builder, byte_pointer, size=len(slots))
        steps = cgutils.alloca_once(builder, size, size=len(slots))
        for k, slot in enumerate(slots):
            at = ir.Constant(size, k)
            builder.store(builder.bitcast(slot, byte_pointer), builder.gep(pointers, [at]))
            builder.store(ir.Constant(size, 0), builder.gep(steps, [at]))
        count = cgutils.alloca_once_value(builder, ir.Constant(size, 1))
        builder.call(loop, [pointers, count, steps, data])
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


_LOOPS: set[tuple[np.ufunc, np.dtype]] = set()  # what compiled code has NumPy's loop for


def _stub(ufunc: np.ufunc) -> Callable | None:
    """``ufunc`` of float or complex values by NumPy's loop (an overloaded stub)."""
    calls = {}
    for dtype, code in ((types.float32, "f"), (types.float64, "d"), (types.complex64, "F"),
                        (types.complex128, "D")):
        symbols = _register(ufunc, code)
        if symbols is not None:
            calls[dtype] = _call(symbols, dtype, ufunc.nin)
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

    stub.__name__ = ufunc.__name__
    return stub


# NumPy's floor division and remainder of floats: its npy_divmod (infinities, signed
# zeros), which Numba's differ from.
_DIVISIONS = frozenset({np.floor_divide, np.remainder})

# The ufuncs, by name: ``numpy_loops.exp(np.float32(x))``.
for _ufunc in sorted(TRANSCENDENTAL | _DIVISIONS, key=lambda u: u.__name__):
    if _ufunc.nout == 1:
        _function = _stub(_ufunc)
        if _function is not None:
            globals()[_ufunc.__name__] = _function


def supports(ufunc: object, dtype: np.dtype) -> bool:
    """Whether compiled code applies ``ufunc`` to ``dtype`` values by NumPy's loop."""
    return (ufunc, dtype) in _LOOPS
