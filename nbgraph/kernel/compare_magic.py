"""``%compare f(x, y)``: time a call eagerly and in graph mode, side by side."""

from __future__ import annotations

import argparse
import ast

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

from ..diff import DiffReport, diff
from ..timing import Comparison, compare_call


@magics_class
class CompareMagics(Magics):
    """The ``%compare`` line magic."""

    @magic_arguments()
    @argument(
        "-o",
        "--output",
        action="store_true",
        help="return the Comparison (raw numbers, .to_json()) instead of showing it",
    )
    @argument("-r", "--rounds", type=int, default=7, help="timing rounds (default 7)")
    @argument(
        "--rtol",
        type=float,
        default=1e-7,
        help="relative tolerance for the results to agree (default 1e-7)",
    )
    @argument(
        "--no-cold",
        action="store_true",
        help="skip timing the first call in new processes (empty and filled disk cache)",
    )
    @argument(
        "--diff",
        action="store_true",
        help="instead of timing, find the first line where graph mode and eager code "
        "give different values (nbgraph.diff)",
    )
    @argument("call", nargs=argparse.REMAINDER, help="a call of a function: f(x, y)")
    @line_magic
    def compare(self, line: str) -> Comparison | DiffReport | None:
        """Time a call eagerly and as a graph; show one table and a bar chart.

        The function may be a graph function (its backend and options are used) or a
        plain function (run on the CPU backend). Example::

            %compare collatz_steps(x, 100)
            %compare --diff collatz_steps(x, 100)
        """
        __tracebackhide__ = True
        args = parse_argstring(self.compare, line)
        text = " ".join(args.call)
        try:
            call = ast.parse(text, mode="eval").body
        except SyntaxError:
            call = None
        if not isinstance(call, ast.Call):
            raise UsageError(f"%compare needs a call such as f(x, y), got: {text}")
        try:  # the function and its arguments, evaluated as the call would
            fn, positional, keywords = self.shell.ev(
                f"(lambda f, *a, **k: (f, a, k))({ast.unparse(call.func)}, "
                f"{', '.join(ast.unparse(a) for a in (*call.args, *call.keywords))})"
            )
        except Exception as exc:
            raise UsageError(f"%compare: {type(exc).__name__}: {exc}") from None
        if args.diff:
            report = diff(fn, *positional, **keywords)
            if args.output:
                return report
            display(report)
            return None
        result = compare_call(
            fn,
            positional,
            keywords,
            rounds=args.rounds,
            rtol=args.rtol,
            label=ast.unparse(call),
            cold=not args.no_cold,
        )
        if args.output:
            return result
        display(result)
        return None
