"""``ag__``: the names converted code calls.  Nothing else is exported to it."""

from __future__ import annotations

from typing import Any

from ..graph.control_flow import (
    and_,
    for_stmt,
    if_exp,
    if_stmt,
    list_comp,
    not_,
    or_,
    while_stmt,
)
from ..graph.statements import (
    assert_stmt,
    contains,
    fstring,
    list_append,
    percent_format,
    raise_stmt,
    setitem,
)
from ..graph.tracing import try_block
from ..graph.undefined import Undefined, UndefinedReturn, check_defined
from .calls import converted_call


def retval(value: Any) -> Any:
    """The function's result (None if no return statement ran); it must be defined."""
    check_defined(value)
    return None if isinstance(value, UndefinedReturn) else value


__all__ = [
    "Undefined",
    "UndefinedReturn",
    "and_",
    "assert_stmt",
    "contains",
    "converted_call",
    "for_stmt",
    "fstring",
    "if_exp",
    "if_stmt",
    "list_append",
    "list_comp",
    "not_",
    "or_",
    "percent_format",
    "raise_stmt",
    "retval",
    "setitem",
    "try_block",
    "while_stmt",
]
