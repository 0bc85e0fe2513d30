"""``%%autograph``: run a cell, then turn every function it defines into a graph function.

The cell runs as a normal cell (the functions keep the cell's file name, so errors and
graph nodes point at ``Cell In[n], line k``), except that each top-level ``def`` is
made ``nbgraph.function`` of itself as it is defined, under the same name and docstring.

``%autograph off`` makes every graph function run its Python function (so ``pdb`` and
``breakpoint()`` work in it) until ``%autograph on``: ``nbgraph.config.run_eagerly``.
"""

from __future__ import annotations

import ast

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import Code, display

from ..api import GraphFunction
from ..backend import BACKENDS
from ..config import config
from ..convert.conversion import to_code
from .cells import cell_code


@magics_class
class AutographMagics(Magics):
    """The ``%%autograph`` cell magic."""

    @magic_arguments()
    @argument(
        "--backend",
        "-b",
        default="cpu",
        choices=BACKENDS,
        help="where the graphs run (default: cpu, compiled by Numba)",
    )
    @argument(
        "--static",
        "-s",
        default="",
        metavar="NAMES",
        help="comma-separated parameter names traced as Python values (one graph "
        "per value), e.g. --static n,mode",
    )
    @argument(
        "--parallel",
        action="store_true",
        help="let the CPU backend run loops over arrays on all cores",
    )
    @argument(
        "--check-numerics",
        action="store_true",
        help="raise FloatingPointError at the line that first makes a NaN or an infinity "
        "from finite values, when a call's results hold one",
    )
    @argument(
        "--show-code", action="store_true", help="display the converted source of each function"
    )
    @argument(
        "--show-graph",
        action="store_true",
        help="display each function's graph after its first call",
    )
    @line_cell_magic
    def autograph(self, line: str, cell: str | None = None) -> object:
        """Run the cell with each function it defines made a graph function.

        Example::

            %%autograph --backend cpu --static n
            def collatz_steps(x, n):
                ...

        Calls later in the cell already run as graphs; the value of a last expression
        is shown as usual.  As a line magic, ``%autograph off`` runs every graph
        function as its Python function (to debug it with ``pdb`` or ``breakpoint()``)
        until ``%autograph on``.
        """
        __tracebackhide__ = True  # IPython shows the cell's frames, not the magic's
        if cell is None:
            return _switch(line)
        args = parse_argstring(self.autograph, line)
        statics = {s.strip() for s in args.static.split(",") if s.strip()}
        source, filename = cell_code(self.shell, f"%%autograph {line}".rstrip(), cell)
        tree = ast.parse(source, filename)
        defs = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
        if not defs:
            raise UsageError("%%autograph: the cell defines no function (def ...) to convert")
        unused = statics - {a.arg for d in defs for a in (*d.args.args, *d.args.kwonlyargs)}
        if unused:
            raise UsageError(
                f"%%autograph --static: no function in the cell has a parameter "
                f"named {', '.join(sorted(unused))}"
            )

        def make_graph_function(fn: object) -> GraphFunction:
            graph_fn = GraphFunction(
                fn,
                backend=args.backend,
                parallel=args.parallel,
                static_argnames=sorted(statics & _parameters(fn)),
                check_numerics=args.check_numerics,
            )
            if args.show_code:
                display(Code(to_code(fn), language="python"))
            if args.show_graph:
                graph_fn.after_first_call = display
            return graph_fn

        for node in defs:  # innermost decorator: the user's own decorators wrap the graph
            node.decorator_list.append(ast.copy_location(ast.Name(_DECORATOR, ast.Load()), node))
        last = tree.body.pop() if isinstance(tree.body[-1], ast.Expr) else None
        quiet = source.rstrip().endswith(";")  # as in a normal cell: no Out[n]
        namespace = self.shell.user_ns
        namespace[_DECORATOR] = make_graph_function
        try:
            exec(compile(tree, filename, "exec"), namespace)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), filename, "eval"), namespace)
                return None if quiet else value
        finally:
            namespace.pop(_DECORATOR, None)
        return None


_DECORATOR = "__nbgraph_autograph__"


def _switch(line: str) -> None:
    """``%autograph on|off``: graph functions run as graphs, or as their Python code."""
    word = line.strip().lower()
    if word not in ("on", "off"):
        raise UsageError(
            "%autograph takes on or off (graph functions run as graphs, or as their "
            "Python code for pdb and breakpoint()); %%autograph converts a cell"
        )
    config.run_eagerly = word == "off"
    state = "run as their Python code" if config.run_eagerly else "run as graphs"
    print(f"graph functions {state} (nbgraph.config.run_eagerly = {config.run_eagerly})")


def _parameters(fn: object) -> set[str]:
    code = getattr(fn, "__code__", None)
    return set(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]) if code else set()
