"""Which code objects are the user's converted code, and where the user is right now.

Converted functions are compiled with the user's own file name and line numbers, so a
frame of converted code *is* a user location.  Tracing asks ``user_location`` for the
innermost such frame (and the frames of the user functions that called it) to tag every
graph node with the lines that created it.

A converted function runs as several frames (its own plus the generated bodies of its
branches and loops); all of them belong to one *owner*, the user function, and count as
one frame of it, as in eager mode.
"""

from __future__ import annotations

import sys
import types

from .locations import Loc

_owners: dict[types.CodeType, types.CodeType] = {}
_generated_names: dict[types.CodeType, frozenset[str]] = {}
_functions: dict[tuple[str, int, str], types.CodeType] = {}  # converted functions' code
# Each converted code object's source positions, by instruction (read per traced node).
_positions: dict[types.CodeType, list[tuple]] = {}


def register_code(code: types.CodeType, generated_names: frozenset[str] = frozenset()) -> None:
    """Mark a converted function's code (and its nested code objects) as user code;
    ``generated_names`` are the variables conversion added (flags, loop indices)."""
    _generated_names[code] = generated_names

    def mark(inner: types.CodeType, owner: types.CodeType) -> None:
        # Generated bodies carry the function's own name (see convert.conversion); a
        # def of the user's inside it is a function of its own, with its own frames.
        if inner.co_qualname != owner.co_qualname:
            owner = inner
        _owners[inner] = owner
        _positions[inner] = list(inner.co_positions())
        if owner is inner:
            _functions[(inner.co_filename, inner.co_firstlineno, inner.co_qualname)] = inner
        for const in inner.co_consts:
            if isinstance(const, types.CodeType):
                mark(const, owner)

    mark(code, code)


_machinery: set[types.CodeType] = set()


def register_machinery(code: types.CodeType) -> None:
    """Mark code nbgraph made that runs under the user's file name (a graph function's
    entry point, a conversion's factory), nested code included: user code by its name,
    but nbgraph's by what it does."""
    _machinery.add(code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            register_machinery(const)


_passing_calls: set[types.CodeType] = set()


def register_passing_call(code: types.CodeType) -> None:
    """Mark nbgraph code that calls what the user's code calls, unchanged: an error a
    built-in function raises there is the user's call's."""
    _passing_calls.add(code)


def is_passing_call(code: types.CodeType) -> bool:
    return code in _passing_calls


def is_machinery(code: types.CodeType) -> bool:
    """Whether ``code`` is nbgraph's although it carries a user's file name: converted
    code and graph functions' entry points."""
    return code in _owners or code in _machinery


def is_converted(code: types.CodeType) -> bool:
    """Whether ``code`` belongs to converted user code."""
    return code in _owners


def owner_of(code: types.CodeType) -> types.CodeType | None:
    """The top code object of the user function ``code`` is part of, if converted."""
    return _owners.get(code)


def generated_names() -> frozenset[str]:
    """The variables conversion added to the user function being traced right now."""
    frame = sys._getframe(1)
    while frame is not None:
        owner = _owners.get(frame.f_code)
        if owner is not None:
            return _generated_names.get(owner, frozenset())
        frame = frame.f_back
    return frozenset()


def user_variables() -> dict[str, object]:
    """The user's variables in the function being traced right now (its generated
    bodies' frames included, the innermost binding of a name first; conversion's own
    variables left out): what each name holds at this point of the trace."""
    found: dict[str, object] = {}
    frame, owner = sys._getframe(1), None
    while frame is not None:
        this = _owners.get(frame.f_code)
        if this is not None:
            if owner is not None and this is not owner:
                break
            owner = this
            for name, value in frame.f_locals.items():
                found.setdefault(name, value)
        frame = frame.f_back
    hidden = _generated_names.get(owner, frozenset()) if owner is not None else frozenset()
    return {n: v for n, v in found.items() if n not in hidden and not n.startswith("_")}


def _frame_location(frame: types.FrameType, caller: Loc | None) -> Loc:
    """Where a frame of converted code is: file, line, the columns of the expression
    running (when on one line), its function and that function's first line."""
    code = frame.f_code
    col, end_col = 0, None
    if frame.f_lasti >= 0:
        positions = _positions[code]
        index = frame.f_lasti // 2
        if index < len(positions):
            start, end, c, e = positions[index]
            if start == end and c is not None:
                col, end_col = c, e
    return Loc(
        code.co_filename,
        frame.f_lineno,
        col,
        end_col,
        code.co_qualname,
        caller,
        _owners[code].co_firstlineno,
    )


def function_code(loc: Loc) -> types.CodeType | None:
    """The converted code of the user's function ``loc`` is in (its parameters are the
    user's), if it is known."""
    return _functions.get((loc.filename, loc.function_line, loc.function))


def frame_location(frame: types.FrameType) -> Loc:
    """Where a frame of converted code is (its line and columns, the user's function)."""
    return _frame_location(frame, None)


def user_module() -> str | None:
    """The ``__name__`` of the module of the innermost user function running converted
    code (what ``collections.namedtuple`` would read from its caller's frame)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code in _owners:
            return frame.f_globals.get("__name__")
        frame = frame.f_back
    return None


def user_location() -> Loc | None:
    """The user's file, line and column currently executing in converted code, with the
    chain of user functions that called it (``Loc.caller``)."""
    return location_in(sys._getframe(1))


def location_in(frame: types.FrameType | None) -> Loc | None:
    """As ``user_location``, for the converted code ``frame`` (or one it was called
    from) is running: a traceback's frame, say."""
    frames: list[types.FrameType] = []  # innermost frame of each user function
    owner = None
    while frame is not None:
        this = _owners.get(frame.f_code)
        if this is not None and this is not owner:
            frames.append(frame)
            owner = this
        frame = frame.f_back
    loc = None
    for f in reversed(frames):
        loc = _frame_location(f, loc)
    return loc
