"""Static types of graph values: what is known about a value before the graph runs.

Shapes are dynamic (a new length never retraces), so an array type is its dtype and
number of dimensions.  ``flavor`` keeps the Python-level kind of a value so graph mode
returns what eager mode returns: a Python ``int``, a NumPy scalar, or an ``ndarray``.
Python scalars are also "weak" in NumPy's promotion rules (NEP 50), which the flavor
encodes for free when types are inferred by running NumPy on example values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

PYTHON = "python"  # a Python bool/int/float/complex
SCALAR = "scalar"  # a NumPy scalar (np.float64(1.0), ...)
ARRAY = "array"  # an np.ndarray, 0-d included

_PY_SCALARS: dict[type, np.dtype] = {
    bool: np.dtype(bool),
    int: np.dtype(np.int64),
    float: np.dtype(np.float64),
    complex: np.dtype(np.complex128),
}
_PY_EXAMPLES = {"b": True, "i": 1, "u": 1, "f": 1.0, "c": 1 + 0j}


@dataclass(frozen=True)
class TensorType:
    """An array or scalar: dtype, rank and Python flavor."""

    dtype: np.dtype
    ndim: int
    flavor: str = ARRAY

    def example(self) -> Any:
        """A small concrete value of this type, used to infer result types with NumPy."""
        if self.flavor == PYTHON:
            return _PY_EXAMPLES[self.dtype.kind]
        if self.flavor == SCALAR:
            return self.dtype.type(1)
        return np.ones((1,) * self.ndim, dtype=self.dtype)

    def zero(self) -> Any:
        """A placeholder value of this type (for paths whose value is never used)."""
        if self.flavor == PYTHON:
            return type(_PY_EXAMPLES[self.dtype.kind])(0)
        if self.flavor == SCALAR:
            return self.dtype.type(0)
        return np.zeros((0,) * self.ndim, dtype=self.dtype)

    @property
    def python_kind(self) -> str:
        """The Python name of the dtype's kind, for error messages."""
        if self.flavor == PYTHON:
            return type(_PY_EXAMPLES[self.dtype.kind]).__name__
        return str(self.dtype)

    def describe(self) -> str:
        """Short human text: 'float64[2-d array]', 'int', 'np.int32'."""
        if self.flavor == PYTHON:
            return self.python_kind
        if self.flavor == SCALAR:
            return f"np.{self.dtype}"
        return f"{self.dtype} {self.ndim}-d array"

    def __str__(self) -> str:
        return self.describe()


@dataclass(frozen=True)
class ListType:
    """A Python list that grows inside a graph loop; ``elem`` is None until first append."""

    elem: TensorType | None

    def describe(self) -> str:
        return f"list[{self.elem.describe() if self.elem else '?'}]"

    __str__ = describe


@dataclass(frozen=True)
class TupleType:
    """The several results of one node (a cond, a while, a NumPy call returning a tuple)."""

    items: tuple

    def describe(self) -> str:
        return "(" + ", ".join(t.describe() for t in self.items) + ")"

    __str__ = describe


@dataclass(frozen=True)
class TokenType:
    """The effect token that orders prints, asserts and raises."""

    def describe(self) -> str:
        return "effect"

    __str__ = describe


TOKEN = TokenType()
GraphType = TensorType | ListType | TupleType | TokenType


def type_of(value: Any) -> TensorType | None:
    """The TensorType of a concrete value, or None if it is not numeric."""
    if isinstance(value, np.ndarray):
        return TensorType(value.dtype, value.ndim, ARRAY)
    if isinstance(value, np.generic):
        return TensorType(value.dtype, 0, SCALAR)
    dtype = _PY_SCALARS.get(type(value))
    if dtype is not None:
        return TensorType(dtype, 0, PYTHON)
    if is_device_array(value):
        return TensorType(np.dtype(value.dtype), len(value.shape), ARRAY)
    return None


def is_device_array(value: Any) -> bool:
    """Whether ``value`` is an array in GPU memory: numba-cuda's (its simulator's too, which
    have no ``__cuda_array_interface__``) or any object with that interface (CuPy's,
    PyTorch's CUDA tensors)."""
    if isinstance(value, np.ndarray):
        return False
    if getattr(type(value), "__cuda_ndarray__", False) is True:
        return True  # numba-cuda's, asked of the class: reading the interface builds a dict
    return hasattr(value, "__cuda_array_interface__")


def host_value(value: Any) -> Any:
    """A device array copied to the host (the reference backend runs on NumPy); any
    other value as it is."""
    if not is_device_array(value):
        return value
    if not hasattr(value, "copy_to_host"):
        from numba import cuda

        value = cuda.as_cuda_array(value)
    return value.copy_to_host()


def result_type_of(value: Any) -> GraphType | None:
    """type_of, extended to tuples of values (multi-result NumPy functions)."""
    if isinstance(value, tuple):
        items = tuple(result_type_of(v) for v in value)
        return None if any(t is None for t in items) else TupleType(items)
    return type_of(value)
