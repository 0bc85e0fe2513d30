"""``%explain f``: ``nbgraph.explain`` of the graph function ``f`` in the notebook."""

from __future__ import annotations

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class

from ..api import GraphFunction
from ..explain import Explanation, explain


@magics_class
class ExplainMagics(Magics):
    """The ``%explain`` line magic."""

    @line_magic
    def explain(self, line: str) -> Explanation:
        """Every trace of a graph function with its cause, and what the backend runs in
        Python or copies in loops.  Example: ``%explain fit``."""
        name = line.strip()
        if not name:
            raise UsageError("%explain takes the name of a graph function, e.g. %explain fit")
        try:
            fn = eval(name, self.shell.user_ns)
        except Exception as exc:
            raise UsageError(f"%explain: cannot find {name!r}: {exc}") from None
        if not isinstance(fn, GraphFunction):
            raise UsageError(
                f"%explain: {name} is a {type(fn).__name__}, not a graph function "
                "(nbgraph.function or %%autograph)"
            )
        return explain(fn)
