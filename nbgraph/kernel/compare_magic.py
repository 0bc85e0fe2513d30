"""``%compare f(x, y)``: time a call eagerly and in graph mode, side by side."""

from __future__ import annotations

import ast

from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from ..timing import Comparison, compare


@magics_class
class CompareMagics(Magics):
    """The ``%compare`` line magic."""

    @magic_arguments()
    @argument("-o", "--output", action="store_true",
              help="return the Comparison (raw numbers, .to_json()) instead of showing it")
    @argument("-r", "--rounds", type=int, default=7, help="timing rounds (default 7)")
    @argument("--rtol", type=float, default=1e-7,
              help="relative tolerance for the results to agree (default 1e-7)")
    @argument("call", nargs="+", help="a call of a function: f(x, y)")
    @line_magic
    def compare(self, line: str) -> Comparison | None:
        """Time a call eagerly and as a graph; show one table and a bar chart.

        The function may be a graph function (its backend and options are used) or a
        plain function (run on the CPU backend). Example::

            %compare collatz_steps(x, 100)
        """
        __tracebackhide__ = True
        args = parse_argstring(self.compare, line)
        text = " ".join(args.call)
        try:
            call = ast.parse(text, mode="eval").body
        except SyntaxError:
            call = None
        if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred) for a in call.args):
            raise ValueError(f"%compare needs a call such as f(x, y), got: {text}")
        namespace = self.shell.user_ns

        def value(node: ast.expr) -> object:
            return eval(compile(ast.Expression(node), "<compare>", "eval"), namespace)

        fn = value(call.func)
        positional = [value(a) for a in call.args]
        keywords = {k.arg: value(k.value) for k in call.keywords if k.arg}
        result = compare(fn, *positional, rounds=args.rounds, rtol=args.rtol, label=text,
                         **keywords)
        if args.output:
            return result
        from IPython.display import display

        display(result)
        return None
