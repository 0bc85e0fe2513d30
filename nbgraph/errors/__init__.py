"""User-facing errors, and which traceback frames users see (``frames``)."""

from .exceptions import (
    ConversionError,
    GraphModeError,
    LoopTypeError,
    NbgraphPerformanceWarning,
    NotDifferentiableError,
    RetracingWarning,
    StagingError,
    UndefinedValueError,
)

__all__ = [
    "ConversionError",
    "GraphModeError",
    "LoopTypeError",
    "NbgraphPerformanceWarning",
    "NotDifferentiableError",
    "RetracingWarning",
    "StagingError",
    "UndefinedValueError",
]
