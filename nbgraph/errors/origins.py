"""Which code objects are the user's converted code, and where the user is right now.

Converted functions are compiled with the user's own file name and line numbers, so a
frame of converted code *is* a user location.  Tracing asks ``user_location`` for the
innermost such frame to tag every graph node with the line that created it.
"""

from __future__ import annotations

import sys
import types

from ..graph.ir import Loc

_converted_codes: set[types.CodeType] = set()


def register_code(code: types.CodeType) -> None:
    """Mark a compiled converted module (and its nested code objects) as user code."""
    _converted_codes.add(code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            register_code(const)


def is_converted(code: types.CodeType) -> bool:
    """Whether ``code`` belongs to converted user code."""
    return code in _converted_codes


def user_location() -> Loc | None:
    """The user's file, line and column currently executing in converted code."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code in _converted_codes:
            col, end_col = 0, None
            if frame.f_lasti >= 0 and hasattr(code, "co_positions"):
                positions = list(code.co_positions())
                index = frame.f_lasti // 2
                if index < len(positions):
                    _, _, c, e = positions[index]
                    col, end_col = c or 0, e
            name = code.co_qualname if hasattr(code, "co_qualname") else code.co_name
            return Loc(code.co_filename, frame.f_lineno, col, end_col, name)
        frame = frame.f_back
    return None
