"""Placeholders for variables that have no value on some path.

``Undefined`` stands for a local that is not assigned yet, or that graph mode cannot
give a value after a staged branch or loop; any use raises UndefinedValueError with the
reason, so the user sees the variable's name and line instead of a wrong result.
``UndefinedReturn`` is the return value before any ``return`` ran.
"""

from __future__ import annotations

from typing import Any, NoReturn

from ..errors.exceptions import UndefinedValueError
from ..source.origins import user_location


class Undefined:
    """A variable without a value here; any use raises."""

    __slots__ = ("name", "reason")
    # Whether a use on a path of a graph if may become a run-time error of that path
    # (as eagerly), rather than a refusal while tracing.
    deferrable = True

    def __init__(self, name: str, reason: str = "") -> None:
        self.name = name
        self.reason = reason

    def error(self) -> UndefinedValueError:
        """The error a use of this variable raises."""
        if self.reason:
            fix = (
                ""
                if ".eager" in self.reason
                else ("; or call the function's .eager(...) to run it as plain Python")
            )
            error = UndefinedValueError(
                f"variable '{self.name}' {self.reason}{fix}", user_location()
            )
        else:
            error = UndefinedValueError(
                f"local variable '{self.name}' referenced before assignment", user_location()
            )
        error.deferrable = self.deferrable  # type: ignore[attr-defined]
        return error

    def raise_error(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise self.error()

    def __getattr__(self, name: str) -> Any:
        raise self.error()

    def __repr__(self) -> str:
        return f"<undefined {self.name}>"

    __bool__ = __len__ = __iter__ = __call__ = __getitem__ = __setitem__ = raise_error
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = raise_error
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = raise_error
    __mod__ = __rmod__ = __pow__ = __rpow__ = __matmul__ = __rmatmul__ = raise_error
    __lt__ = __le__ = __gt__ = __ge__ = __neg__ = __pos__ = __abs__ = raise_error
    __and__ = __rand__ = __or__ = __ror__ = __invert__ = __index__ = raise_error
    __int__ = __float__ = __array__ = __format__ = raise_error


class Unjoinable(Undefined):
    """A variable whose values on the two paths of a graph ``if`` cannot be one graph
    value (another rank, dtype or dict keys): its first use refuses, with ``cause``, as
    the if would have, so a variable that is not used after the if (both paths
    returned, or it is assigned again first) is no concern."""

    __slots__ = ("cause",)
    deferrable = False  # a refusal, not an error eager code raises

    def __init__(self, name: str, cause: Exception) -> None:
        super().__init__(name, str(cause))
        cause.deferrable = False  # type: ignore[attr-defined]
        self.cause = cause

    def error(self) -> Exception:  # type: ignore[override]
        return self.cause


class UndefinedReturn:
    """The function's return value before a ``return`` statement ran."""

    def __repr__(self) -> str:
        return "<no return value yet>"


def check_defined(value: Any) -> None:
    """Raise the variable's error if value is Undefined (also inside tuples/lists)."""
    if isinstance(value, Undefined):
        raise value.error()
    if type(value) in (tuple, list):
        for item in value:
            check_defined(item)


class Deleted(Undefined):
    """A variable removed by ``del`` on this path."""

    __slots__ = ("line",)

    def __init__(self, name: str, line: int) -> None:
        super().__init__(name, f"was deleted (del at line {line})")
        self.line = line


def deleted(value: Any, name: str, line: int) -> Deleted:
    """The value of a local after ``del name`` at ``line`` (``value``: its value before,
    which must exist, as for Python's del)."""
    if isinstance(value, Undefined):
        raise value.error()
    return Deleted(name, line)


class LoopUndefined(Undefined):
    """A variable with no value when a graph loop starts, in the loop's body.  If the
    body assigns it a number or array, the loop carries it (with a flag for whether it
    has a value yet) and is traced again; a use on a path of a graph if in the body is
    deferred until then (elsewhere it is refused: the one traced body stands for every
    iteration, also those where an earlier one assigned it)."""

    __slots__ = ()

    def __init__(self, name: str, where: str) -> None:
        super().__init__(
            name,
            (
                f"has no value when the graph loop at {where} starts, and graph mode traces one "
                "loop body for every iteration; assign it before the loop"
            ),
        )
