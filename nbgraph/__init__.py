"""nbgraph: write eager NumPy in Jupyter, run it as a dataflow graph."""

from . import distributed  # registers Dask calls and pickling with graph functions
from .api import GraphFunction, function, to_code, to_graph
from .config import config
from .diff import diff
from .errors import (
    ArgumentAliasError,
    ConversionError,
    GraphModeError,
    LoopTypeError,
    NbgraphPerformanceWarning,
    NotDifferentiableError,
    RetracingWarning,
    StagingError,
    UndefinedValueError,
)
from .explain import explain
from .grad import check_grad, grad, value_and_grad
from .graph.ir import Graph, Node, Op, Region
from .graph.views import register_view
from .staging.statements import stop_here as breakpoint
from .timing import Comparison, compare
from .trace import step
from .version import __version__ as __version__

# How graphs and recordings show (the viewer's modules load when first used).
register_view("text", "nbgraph.graph.printer:format_graph")
register_view("dot", "nbgraph.viz.dot:to_dot")
register_view("graph widget", "nbgraph.viz.graph_widget:GraphWidget")
register_view("graph in a notebook", "nbgraph.viz.graph_widget:mimebundle")
register_view("passes view", "nbgraph.viz.graph_widget:passes_view")
register_view("stepper", "nbgraph.viz.stepper:Stepper")


def load_ipython_extension(shell: object) -> None:
    """``%load_ext nbgraph``: the magics %%autograph, %compare, %%step and more."""
    from .kernel.extension import load

    load(shell)


def unload_ipython_extension(shell: object) -> None:
    """``%unload_ext nbgraph``."""
    from .kernel.extension import unload

    unload(shell)


__all__ = [
    "ArgumentAliasError",
    "Comparison",
    "ConversionError",
    "Graph",
    "GraphFunction",
    "GraphModeError",
    "LoopTypeError",
    "NbgraphPerformanceWarning",
    "Node",
    "NotDifferentiableError",
    "Op",
    "Region",
    "RetracingWarning",
    "StagingError",
    "UndefinedValueError",
    "breakpoint",
    "check_grad",
    "compare",
    "config",
    "diff",
    "distributed",
    "explain",
    "function",
    "grad",
    "step",
    "to_code",
    "to_graph",
    "value_and_grad",
]
