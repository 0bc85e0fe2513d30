"""One running frame of the user's code as the recorder follows it.

A frame's variables are read only when something may have changed that cannot be
attributed to a line otherwise: before a line binds a name whose earlier binding was
not read yet, around lines that may change objects in place, at loop iterations and at
returns. A name bound by a line is attributed to the next step of its frame, when the
new value is visible, however much later it is read. Reading a function's variables
(``frame.f_locals``) costs Python 3.11 as much as a dozen cheap lines; this keeps a
loop to about one read per iteration.

A step is kept as a list (this is the recorder's hottest data):
``[frame, lineno, kind, changes, printed_before, raised, gap]`` where ``changes`` is a
list of ``(name, value)``, ``value`` being an immutable value itself (summarized only
if the step is kept), a summary, or ``UNBOUND``; a skipped step's changes of another
frame's variables are ``(name, value, frame)``.
"""

from __future__ import annotations

import types
from typing import Any

from .code_info import ANYTHING, ITEMS, NO_LINE, UNCHANGED, CodeInfo, Line
from .summary import ObjectSummary, fingerprint, is_immutable, shares, summarize

# Record slots and kinds.
FRAME, LINENO, KIND, CHANGES, BEFORE, RAISED, GAP = range(7)
LINE, RETURN, SKIPPED, ERROR = "line", "return", "skipped", "error"
RETURN_NAME = "return"  # the pseudo-variable holding a return value (a keyword: no clash)


class Unbound:
    """The value of a name that is not bound (deleted, or not assigned yet)."""

    def __repr__(self) -> str:
        return "<unbound>"


UNBOUND = Unbound()
_MISSING = object()

# Names of a notebook's namespace that are IPython's, not the user's.
_IPYTHON_NAMES = frozenset(
    {
        "In",
        "Out",
        "get_ipython",
        "exit",
        "quit",
        "_",
        "__",
        "___",
        "_i",
        "_ii",
        "_iii",
        "_ih",
        "_oh",
        "_dh",
    }
)
_NOT_SHOWN = (
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    type,
    types.MethodType,
)


def is_shown(name: str, value: Any) -> bool:
    """Whether a variable appears in a recording: not modules, functions and classes,
    nor IPython's and Python's own names."""
    if name.startswith("__") or name in _IPYTHON_NAMES or isinstance(value, _NOT_SHOWN):
        return False
    return not (name[:2] in ("_i", "_o") and name[2:].isdigit()) and not (
        name[:1] == "_" and name[1:].isdigit()
    )


class FrameState:
    """The recorder's view of one activation of the user's code."""

    __slots__ = (
        "alive",
        "code",
        "depth",
        "fast",
        "first",
        "frame",
        "info",
        "known",
        "last",
        "loops",
        "must_read",
        "parent",
        "pending",
        "prev",
        "raising",
        "seen",
        "slow",
        "tracer",
    )

    def __init__(
        self, frame: types.FrameType, info: CodeInfo, seen: set[int], parent: FrameState | None
    ) -> None:
        self.frame = frame
        self.code = frame.f_code
        self.info = info
        self.seen = seen  # lines of this code object recorded so far (any activation)
        self.parent = parent
        self.depth = 0 if parent is None else parent.depth + 1
        self.known: dict[str, tuple[Any, Any]] = {}  # name -> (value, fingerprint)
        self.pending: dict[str, list] = {}  # name bound, not read yet -> its step
        self.prev: Line = NO_LINE  # the line of the frame's latest step
        self.must_read = ANYTHING  # what to read at its next step (Line.mutating)
        self.first: list | None = None  # the frame's first step
        self.last: list | None = None  # its latest step
        self.loops: list = []  # its active loops, innermost last
        self.raising = False  # an exception is propagating through it
        self.alive = True
        self.slow: Any = None  # its local tracer making steps
        self.tracer: Any = None  # its local tracer now: ``slow`` or a fast loop's
        self.fast: Any = None  # the FastLoop following its innermost loop, if any

    def namespace(self) -> dict[str, Any]:
        frame = self.frame
        return frame.f_globals if self.info.module_level else frame.f_locals

    def read(self, step: list, scope: int) -> list[tuple[list, Any]]:
        """Resolve the pending bindings and, by ``scope`` (``Line.mutating`` of what
        ran since the last read), look at the objects that may have changed in place:
        those the previous line assigned into and what shares their memory (ITEMS), or
        every variable (ANYTHING). Returns the changes as ``(step, change)`` pairs for
        the recorder to attach."""
        namespace = self.namespace()
        changes: list[tuple[list, Any]] = []
        pending = self.pending
        touched = self.prev.item_stores
        for name, at in pending.items():
            self._observe(name, namespace.get(name, UNBOUND), at, name in touched, changes)
        if scope == ANYTHING:
            names = self.code.co_names if self.info.module_level else namespace.keys()
            for name in dict.fromkeys((*self.known, *names)):
                if name not in pending:
                    self._observe(
                        name, namespace.get(name, UNBOUND), step, name in touched, changes
                    )
        elif scope == ITEMS:
            targets = [self.known[name][0] for name in touched if name in self.known]
            for name, (value, mark) in list(self.known.items()):
                if name not in pending and (
                    name in touched or (mark is not None and shares(value, targets))
                ):
                    self._observe(
                        name, namespace.get(name, UNBOUND), step, name in touched, changes
                    )
        pending.clear()
        self.must_read = UNCHANGED
        return changes

    def _observe(self, name: str, value: Any, step: list, touched: bool, changes: list) -> None:
        old = self.known.get(name, _MISSING)
        if value is UNBOUND:
            if old is not _MISSING:
                del self.known[name]
                changes.append((step, (name, UNBOUND)))
            return
        if old is not _MISSING and old[0] is value:
            if old[1] is None:  # immutable
                return
            mark = fingerprint(value)
            if mark == old[1] and not touched:
                return
        elif not is_shown(name, value):
            return
        elif is_immutable(value):
            if old is not _MISSING and type(old[0]) is type(value) and same_value(old[0], value):
                self.known[name] = (value, None)
                return
            self.known[name] = (value, None)
            changes.append((step, (name, value)))
            return
        else:
            mark = fingerprint(value)
        self.known[name] = (value, mark)
        changes.append(
            (step, (name, mark if isinstance(mark, ObjectSummary) else summarize(value)))
        )


def same_value(a: Any, b: Any) -> bool:
    """``a == b``, False where comparing fails."""
    try:
        return bool(a == b)
    except Exception:
        return False


def describe(exception: BaseException) -> str:
    """An exception as a step shows it: ``ValueError: message``, shortened."""
    text = (
        f"{type(exception).__name__}: {exception}" if str(exception) else type(exception).__name__
    )
    return text if len(text) <= 300 else text[:297] + "..."
