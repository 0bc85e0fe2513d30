"""Value summaries of one run of a graph, for the graph view (``f.graph(x, inspect=True)``).

The values come from the interpret backend run node by node on the call's arguments,
so the compiled code stays exactly as fast as it is; a node inside a loop shows its
value in the last iteration and how many times it ran.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import math
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..graph.ir import Graph, Node
from .failures.notes import summary
from .failures.sites import site_of
from .interpret import RecordingInterpreter


@dataclass(frozen=True)
class ValueSummary:
    """What the graph view shows of one node's value."""

    text: str  # 'float64[3, 4]', 'int 3', 'list of 5'
    runs: int  # how many times the node ran (more than once inside loops)
    shape: tuple[int, ...] | None = None  # arrays only
    dtype: str | None = None
    min: float | None = None  # of the finite real numbers (and booleans) only
    max: float | None = None
    mean: float | None = None
    nan: int = 0  # how many elements are NaN, and how many infinite
    inf: int = 0

    def brief(self) -> str:
        """One short line for a node's label."""
        text = self.text
        if self.shape is not None and self.min is not None:
            text += f" min {self.min:.4g} max {self.max:.4g} mean {self.mean:.4g}"
        return text + "".join(
            f" {n} {kind}" for n, kind in ((self.nan, "NaN"), (self.inf, "Inf")) if n
        )

    def to_json(self) -> dict[str, Any]:
        """As plain JSON, which has no NaN or infinity: those as text."""
        return {
            key: repr(value) if isinstance(value, float) and not math.isfinite(value) else value
            for key, value in dataclasses.asdict(self).items()
        }


def summarize(value: Any, runs: int = 1) -> ValueSummary:
    """The summary of one runtime value."""
    text = summary(value)
    if not isinstance(value, np.ndarray | np.generic | bool | int | float):
        return ValueSummary(text, runs)
    array = np.asarray(value)
    shape = tuple(array.shape) if isinstance(value, np.ndarray) else None
    dtype = str(array.dtype)
    nan = inf = 0
    if array.dtype.kind in "fc":
        nan, inf = int(np.isnan(array).sum()), int(np.isinf(array).sum())
    numbers = array[np.isfinite(array)] if array.dtype.kind == "f" else array
    if numbers.size == 0 or array.dtype.kind not in "biuf":
        return ValueSummary(text, runs, shape, dtype, nan=nan, inf=inf)
    numbers = numbers.astype(np.float64)
    return ValueSummary(
        text,
        runs,
        shape,
        dtype,
        float(numbers.min()),
        float(numbers.max()),
        float(numbers.mean()),
        nan,
        inf,
    )


def inspected(graph: Graph, leaves: Sequence[Any]) -> Graph:
    """``graph`` with every node's value from running it on ``leaves`` (the flat
    parameter values; what it prints is dropped).  If the run raises, the values up to
    the failing node are kept, that node is marked as failed, and a warning names the
    error."""
    last: dict[Node, Any] = {}
    runs: Counter[Node] = Counter()

    def record(node: Node, value: Any) -> None:
        last[node] = value
        runs[node] += 1

    failed = None
    try:  # what the function prints, and NumPy's warnings, are not the point here:
        # the values show their NaN and Inf counts
        with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
            RecordingInterpreter(graph, record).run(leaves)
    except Exception as exc:
        site = site_of(exc)
        failed = site.node if site is not None else None
        where = f" at line {failed.loc.lineno}" if failed is not None and failed.loc else ""
        warnings.warn(
            f"nbgraph: graph '{graph.name}' raised {type(exc).__name__}{where}: "
            f"{exc}; the graph shows the values computed before",
            stacklevel=3,
        )
    values = {node: summarize(value, runs[node]) for node, value in last.items()}
    return graph.annotated(values=values, failed_node=failed or graph.failed_node)
