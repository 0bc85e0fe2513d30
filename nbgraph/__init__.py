"""nbgraph: write eager NumPy in Jupyter, run it as a dataflow graph."""

from .api import GraphFunction, function, to_code, to_graph
from .errors import (
    ConversionError,
    GraphModeError,
    LoopTypeError,
    StagingError,
    UndefinedValueError,
)
from .graph.ir import Graph, Node, Op, Region

__version__ = "0.1.0"

__all__ = [
    "ConversionError",
    "Graph",
    "GraphFunction",
    "GraphModeError",
    "LoopTypeError",
    "Node",
    "Op",
    "Region",
    "StagingError",
    "UndefinedValueError",
    "function",
    "to_code",
    "to_graph",
]
