"""Where in the user's source something happened: a file, line and columns, the user's
function, and the chain of user functions that called it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Loc:
    """Where in the user's source a node was created."""

    filename: str
    lineno: int
    col: int = 0
    end_col: int | None = None
    function: str = ""
    caller: Loc | None = None  # where the user's calling function was (helper calls)
    function_line: int = 0  # the first line of the function (0: unknown)
    # (loop line, iteration) of each loop that ran while tracing around this spot
    unrolled: tuple[tuple[int, int], ...] = ()
    gradient: bool = False  # a node of a gradient, derived from the node at this line
    # the try statements with a finally clause whose body this spot is in, outermost
    # first, and the one whose finally clause it is in (numbered per process: see
    # staging/tracing.py), so that a run failing here runs those finally clauses
    trying: tuple[int, ...] = ()
    finally_of: int | None = None

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno}"

    def stack(self) -> list[Loc]:
        """This location and its callers, outermost first (as a traceback lists them)."""
        out: list[Loc] = []
        loc: Loc | None = self
        while loc is not None:
            out.append(loc)
            loc = loc.caller
        return out[::-1]
