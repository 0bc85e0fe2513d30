"""Lazy JAX import shared by the workloads (JAX is optional; x64 is switched on)."""

from __future__ import annotations

from types import ModuleType

_modules: tuple[ModuleType, ModuleType, ModuleType] | None = None


def load() -> tuple[ModuleType, ModuleType, ModuleType]:
    """(jax, jax.numpy, jax.lax) with 64-bit types enabled; ImportError if JAX is missing."""
    global _modules
    if _modules is None:
        import jax
        import jax.numpy as jnp
        from jax import lax

        jax.config.update("jax_enable_x64", True)
        _modules = (jax, jnp, lax)
    return _modules
