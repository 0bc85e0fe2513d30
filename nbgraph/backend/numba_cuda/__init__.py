"""The CUDA backend (``backend="cuda"``): graphs on an NVIDIA GPU through numba-cuda.

See ``program.py`` for how a graph is split between the host and device kernels.
"""

from .program import CudaGraph, DeviceUnsupportedError

__all__ = ["CudaGraph", "DeviceUnsupportedError"]
