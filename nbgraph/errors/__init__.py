"""User-facing errors and the mapping from internal frames back to the user's source."""

from .exceptions import (
    ConversionError,
    GraphModeError,
    LoopTypeError,
    NbgraphPerformanceWarning,
    NotDifferentiableError,
    StagingError,
    UndefinedValueError,
)
from .origins import user_location

__all__ = [
    "ConversionError",
    "GraphModeError",
    "LoopTypeError",
    "NbgraphPerformanceWarning",
    "NotDifferentiableError",
    "StagingError",
    "UndefinedValueError",
    "user_location",
]
