"""``ag__``: the names converted code calls.  Nothing else is exported to it."""

from __future__ import annotations

import sys
from typing import Any

from ..errors.exceptions import StagingError
from ..source.origins import user_location
from ..staging.control_flow import and_, for_stmt, if_exp, if_stmt, list_comp, not_, or_, while_stmt
from ..staging.statements import (
    assert_stmt,
    augmented,
    augmented_item,
    contains,
    fstring,
    getitem,
    list_append,
    outer_mutation,
    outer_write,
    percent_format,
    raise_stmt,
    set_attribute,
    setitem,
)
from ..staging.traced import is_graph_value
from ..staging.tracing import (
    finally_block,
    finally_clause,
    leaving,
    managed,
    refusal_caught,
    stages_raise,
    try_block,
)
from ..staging.undefined import Undefined, UndefinedReturn, check_defined, deleted
from .calls import converted_call
from .conversion import use_runtime


def retval(value: Any, returned: Any = True, last_line: int = 0) -> Any:
    """The function's result (None if no return statement ran); it must be defined.

    ``returned`` says whether a return ran, for a function that can also end by running
    off its end (``last_line``): a graph value there means None on some paths, chosen
    when the graph runs, which a graph result cannot be.
    """
    if is_graph_value(returned):
        loc = user_location()
        name = loc.function if loc else "the function"
        raise StagingError(
            f"{name} returns a value on some paths and None on others (a path reaches the "
            f"end of {name}, after line {last_line}, without a return statement), and which "
            "one happens depends on a value known only when the graph runs; a graph cannot "
            "return None. "
            "Return a value on every path (e.g. a final return statement), or call "
            f"{name}.eager(...) to run it as plain Python",
            loc,
        )
    if returned is False:
        return None
    check_defined(value)
    return None if isinstance(value, UndefinedReturn) else value


__all__ = [
    "Undefined",
    "UndefinedReturn",
    "and_",
    "assert_stmt",
    "augmented",
    "augmented_item",
    "contains",
    "converted_call",
    "deleted",
    "finally_block",
    "finally_clause",
    "for_stmt",
    "fstring",
    "getitem",
    "if_exp",
    "if_stmt",
    "leaving",
    "list_append",
    "list_comp",
    "managed",
    "not_",
    "or_",
    "outer_mutation",
    "outer_write",
    "percent_format",
    "raise_stmt",
    "refusal_caught",
    "retval",
    "set_attribute",
    "setitem",
    "stages_raise",
    "try_block",
    "while_stmt",
]

use_runtime(sys.modules[__name__])
