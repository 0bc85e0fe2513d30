"""Which traceback frames users see, and frames made up at the user's own lines.

A traceback through nbgraph passes frames of nbgraph itself, of Numba and LLVM, and of
generated code; users see none of them (``NBGRAPH_TRACEBACK=full`` keeps them all).
Errors raised inside a compiled graph have no Python frame of the user's code at all:
``user_frames`` makes one per location (a tiny code object compiled with the user's
file name, line and columns), so the traceback, IPython's ``Cell In[n], line k`` and
Python's carets under the failing expression read as they would in eager mode.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import linecache
import os
import sys
import types
from collections.abc import Iterator

from ..source.locations import Loc
from ..source.origins import frame_location, function_code, owner_of
from ..source.user_code import is_own_code


def show_full_traceback() -> bool:
    """Whether the user asked for unfiltered tracebacks (``NBGRAPH_TRACEBACK=full``)."""
    return os.environ.get("NBGRAPH_TRACEBACK", "").strip().lower() == "full"


def user_traceback(
    tb: types.TracebackType | None, at: Loc | None = None
) -> types.TracebackType | None:
    """``tb`` (which starts inside nbgraph) without internal frames, nor the frames
    nbgraph's own calls went through (e.g. the standard library's) until user code runs
    again; the frames of one converted user function (its generated branch and loop
    bodies) collapse into its innermost, as in eager mode.  ``at``: where the error is
    about, if no frame is there yet (e.g. the line conversion rejected)."""
    kept: list[types.TracebackType] = []
    owners: list[types.CodeType | None] = []
    calls: dict[types.CodeType, types.FrameType] = {}  # each user function's own frame
    in_internal_call = True
    while tb is not None:
        code = tb.tb_frame.f_code
        owner = owner_of(code)
        if owner is code:
            calls[owner] = tb.tb_frame
        if is_own_code(code) or (in_internal_call and owner is None):
            in_internal_call = True
        else:
            in_internal_call = False
            if owner is not None and owners and owners[-1] is owner:
                kept[-1] = tb
            else:
                kept.append(tb)
                owners.append(owner)
        tb = tb.tb_next
    entries = [_entry(t, calls) for t in kept]
    if at is not None and not (
        entries and entries[-1][0].f_code.co_filename == at.filename and entries[-1][2] == at.lineno
    ):
        entries.append(_frame_at(at))
    return _chain(entries)


def _entry(
    tb: types.TracebackType, calls: dict[types.CodeType, types.FrameType]
) -> tuple[types.FrameType, int, int]:
    """A kept traceback entry.  A generated branch or loop body of a converted function
    shows as a frame of the user's function itself: its name, its parameters and their
    values (as IPython prints them), at the body's line and columns."""
    code = tb.tb_frame.f_code
    owner = owner_of(code)
    if owner is None or owner is code or owner not in calls:
        return tb.tb_frame, tb.tb_lasti, tb.tb_lineno
    loc = frame_location(tb.tb_frame)
    return _frame_at(dataclasses.replace(loc, lineno=tb.tb_lineno), calls[owner])


def user_frames(
    locations: list[Loc], tb_next: types.TracebackType | None = None
) -> types.TracebackType | None:
    """A traceback with one made-up frame per location (outermost first)."""
    return _chain([_frame_at(loc) for loc in locations], tb_next)


def _chain(
    entries: list[tuple[types.FrameType, int, int]], tb_next: types.TracebackType | None = None
) -> types.TracebackType | None:
    for frame, lasti, lineno in reversed(entries):
        tb_next = types.TracebackType(tb_next, frame, lasti, lineno)
    return tb_next


def _frame_at(loc: Loc, call: types.FrameType | None = None) -> tuple[types.FrameType, int, int]:
    """A finished frame of a code object named after ``loc.function`` whose failing
    instruction lies at ``loc``'s line and columns of ``loc``'s file (``call``: a frame
    of the user's function, whose parameters and their values the made-up frame takes)."""
    if call is not None and call.f_code.co_firstlineno < loc.lineno:
        return _frame_with_parameters(loc, call.f_code, call.f_locals)
    code = function_code(loc)
    if call is None and code is not None and code.co_firstlineno < loc.lineno:
        return _frame_with_parameters(loc, code, {})  # (their values stay in the graph)
    line = linecache.getline(loc.filename, loc.lineno).rstrip("\n")
    col, end = loc.col, loc.end_col
    if end is None or end <= col:  # no columns: span the whole line, so no carets
        col, end = 0, max(len(line.encode()), 1)
    # A name exactly as wide as the failing expression, at its columns (parenthesized,
    # so it may be indented); looking it up fails, which leaves a frame at that spot.
    name = "_" * (end - col)
    text = f"({' ' * (col - 1)}{name})" if col else name
    # The code starts where the user's function does, as a real function's code would
    # (IPython shows the lines around the failing one from that function's block).
    first = loc.function_line if 0 < loc.function_line <= loc.lineno else 1
    code = compile("\n" * (loc.lineno - first) + text, loc.filename, "exec")
    function = loc.function.rsplit(".", 1)[-1] or "<module>"
    code = code.replace(
        co_name=function, co_qualname=loc.function or function, co_firstlineno=first
    )
    try:
        with _untraced():
            exec(code, {"__builtins__": {}})
    except NameError as exc:
        tb = exc.__traceback__.tb_next  # the made-up frame, below this one
        return tb.tb_frame, tb.tb_lasti, tb.tb_lineno
    raise AssertionError("a made-up frame did not fail")


@contextlib.contextmanager
def _untraced() -> Iterator[None]:
    """A made-up frame runs out of sight of a tracer (a step recording, a debugger):
    it is no line the user's code ran."""
    previous = sys.gettrace()
    sys.settrace(None)
    try:
        yield
    finally:
        sys.settrace(previous)


def _frame_with_parameters(
    loc: Loc, code: types.CodeType, values: dict
) -> tuple[types.FrameType, int, int]:
    """As _frame_at, in a function with the parameters of ``code``, called with their
    ``values`` (None where not given)."""
    line = linecache.getline(loc.filename, loc.lineno).rstrip("\n")
    col, end = max(loc.col, 1), loc.end_col
    if end is None or end <= loc.col:
        end = col + max(len(line.strip().encode()), 1)
    positional = code.co_varnames[: code.co_argcount]
    keyword = code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
    rest = iter(code.co_varnames[code.co_argcount + code.co_kwonlyargcount :])
    star = next(rest) if code.co_flags & inspect.CO_VARARGS else None
    double_star = next(rest) if code.co_flags & inspect.CO_VARKEYWORDS else None
    params = [
        *positional,
        f"*{star}" if star else ("*" if keyword else None),
        *keyword,
        f"**{double_star}" if double_star else None,
    ]
    first = code.co_firstlineno
    source = (
        "\n" * (first - 1)
        + f"def made_up({', '.join(p for p in params if p)}):"
        + "\n" * (loc.lineno - first)
        + " " * col
        + "_" * (end - col)
    )
    namespace: dict = {"__builtins__": {}}
    with _untraced():
        exec(compile(source, loc.filename, "exec"), namespace)
    function = namespace["made_up"]
    name = loc.function.rsplit(".", 1)[-1] or code.co_name
    function.__code__ = function.__code__.replace(co_name=name, co_qualname=loc.function or name)
    args = [values.get(p) for p in positional]
    if star:
        args += list(values.get(star, ()))
    kwargs = {k: values.get(k) for k in keyword}
    if double_star:
        kwargs.update(values.get(double_star, {}))
    try:
        with _untraced():
            function(*args, **kwargs)
    except NameError as exc:
        tb = exc.__traceback__.tb_next
        return tb.tb_frame, tb.tb_lasti, tb.tb_lineno
    raise AssertionError("a made-up frame did not fail")
