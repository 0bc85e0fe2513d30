"""``%%step``: run a cell eagerly while recording every line, then show the stepper.

The cell's code is compiled under a file name IPython maps to the cell (``Cell In[n]``)
with its lines where the cell shows them (line 1 is the ``%%step`` line), so the steps,
tracebacks and the line highlights in JupyterLab point at the cell's own lines.
"""

from __future__ import annotations

import ast
import types
from typing import Any

from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

from ..trace.recorder import Limits, record_run
from ..trace.recording import Recording
from .cells import cell_code

_DEFAULTS = Limits()


@magics_class
class StepMagics(Magics):
    """The ``%%step`` cell magic."""

    @magic_arguments()
    @argument(
        "--max-steps",
        type=int,
        default=_DEFAULTS.max_steps,
        metavar="N",
        help=f"steps kept at most (default {_DEFAULTS.max_steps:,}); recording "
        "stops there and the cell runs on",
    )
    @argument(
        "--max-memory",
        type=float,
        default=_DEFAULTS.max_memory / 2**20,
        metavar="MIB",
        help=f"memory the recording may use, in MiB (default {_DEFAULTS.max_memory / 2**20:g})",
    )
    @argument(
        "--first",
        type=int,
        default=_DEFAULTS.keep_first,
        metavar="N",
        help=f"iterations kept from the start of each loop (default {_DEFAULTS.keep_first})",
    )
    @argument(
        "--last",
        type=int,
        default=_DEFAULTS.keep_last,
        metavar="N",
        help=f"iterations kept from the end of each loop (default {_DEFAULTS.keep_last})",
    )
    @cell_magic
    def step(self, line: str, cell: str) -> object:
        """Run the cell eagerly, recording every line it runs and the lines of your own
        functions it calls; then show a stepper to go through the steps, forward and
        backward, with the variables of each frame, the call stack and the output.

        Example::

            %%step
            x = np.linspace(0.0, 1.0, 5)
            total = smooth(x).sum()

        Arrays are recorded as summaries (shape, dtype, first and last elements,
        statistics), never copied. Long loops keep their first and last iterations and
        those that reach a new line or raise; the stepper says what was skipped. The
        cell leaves its variables as a normal run does and shows the value of a last
        expression; an exception ends the recording at the failing step (the stepper
        opens there) and is raised as usual.
        """
        __tracebackhide__ = True  # IPython shows the cell's frames, not the magic's
        args = parse_argstring(self.step, line)
        limits = Limits(
            max_steps=args.max_steps,
            max_memory=int(args.max_memory * 2**20),
            keep_first=args.first,
            keep_last=args.last,
        )
        source, filename = cell_code(self.shell, f"%%step {line}".rstrip(), cell)
        run = _cell_runner(ast.parse(source, filename), filename, self.shell.user_ns)
        steps = record_run(run, limits, {filename: source})
        recording = Recording(steps, {filename: cell_id} if (cell_id := self._cell_id()) else {})
        display(recording)
        if recording.exception is not None:
            raise recording.exception.with_traceback(
                _from_cell(recording.exception.__traceback__, filename)
            )
        return recording.result

    def _cell_id(self) -> str | None:
        """The notebook's id of the running cell (JupyterLab sends it), if known."""
        kernel = getattr(self.shell, "kernel", None)
        if kernel is None:
            return None
        metadata = kernel.get_parent().get("metadata", {})
        return metadata.get("cellId") if isinstance(metadata, dict) else None


def _cell_runner(tree: ast.Module, filename: str, namespace: dict[str, Any]) -> Any:
    """A function running the cell's statements in ``namespace`` (as one frame) and
    returning the value of its last expression (None if it ends with a statement)."""
    last = tree.body[-1] if tree.body else None
    if isinstance(last, ast.Expr):  # kept under a name the recording does not show
        tree.body[-1] = ast.copy_location(
            ast.Assign([ast.Name(_RESULT, ast.Store())], last.value), last
        )
        ast.fix_missing_locations(tree)
    code = compile(tree, filename, "exec")

    def run() -> Any:
        namespace.pop(_RESULT, None)
        exec(code, namespace)
        return namespace.pop(_RESULT, None)

    return run


_RESULT = "__nbgraph_step_result__"


def _from_cell(tb: types.TracebackType | None, filename: str) -> types.TracebackType | None:
    """``tb`` from the cell's own frame on (the recorder's frames left out)."""
    start = tb
    while start is not None and start.tb_frame.f_code.co_filename != filename:
        start = start.tb_next
    return start or tb
