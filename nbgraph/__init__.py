"""nbgraph: write eager NumPy in Jupyter, run it as a dataflow graph."""

from .api import GraphFunction, function, to_code, to_graph
from .errors import (
    ConversionError,
    GraphModeError,
    LoopTypeError,
    NbgraphPerformanceWarning,
    NotDifferentiableError,
    StagingError,
    UndefinedValueError,
)
from .grad import grad, value_and_grad
from .graph.ir import Graph, Node, Op, Region
from .timing import Comparison, compare
from .trace import step

__version__ = "0.1.0"


def load_ipython_extension(shell: object) -> None:
    """``%load_ext nbgraph``: the magics %%autograph, %compare, %%step and more."""
    from .kernel.extension import load

    load(shell)


def unload_ipython_extension(shell: object) -> None:
    """``%unload_ext nbgraph``."""
    from .kernel.extension import unload

    unload(shell)


__all__ = [
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
    "StagingError",
    "UndefinedValueError",
    "compare",
    "function",
    "grad",
    "step",
    "to_code",
    "to_graph",
    "value_and_grad",
]
