"""User-facing errors, and which traceback frames users see (``frames``)."""

from .exceptions import (
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

__all__ = [
    "ArgumentAliasError",
    "ConversionError",
    "GraphModeError",
    "LoopTypeError",
    "NbgraphPerformanceWarning",
    "NotDifferentiableError",
    "RetracingWarning",
    "StagingError",
    "UndefinedValueError",
]
