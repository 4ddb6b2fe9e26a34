"""What the phys2d functional environments share: the backend choice and canvas rendering."""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.experimental._array_namespace import import_jax, jax_namespace, rebind

__all__ = ["Backend"]


class Backend:
    """Mixin choosing the array namespace of a functional env: ``"jax"`` (default) or ``"numpy"``.

    With ``"numpy"`` the functions take :class:`numpy.random.Generator` objects as ``rng`` and
    compute exactly as the classic-control environment does; with ``"jax"`` they take PRNG
    keys and can be ``jit``-ed and ``vmap``-ed.
    """

    backend: str = "jax"

    def xp(self) -> Any:
        """Return the namespace the dynamics are rebound to."""
        if self.backend == "numpy":
            return np
        if self.backend != "jax":
            raise ValueError(f"backend must be 'jax' or 'numpy', got {self.backend!r}.")
        return jax_namespace()

    def fn(self, func: Any) -> Any:
        """Return a dynamics function rebound to this env's namespace (same source)."""
        return rebind(func, self.xp())

    def jax(self) -> Any:
        """Return jax (raising DependencyNotInstalled without it)."""
        return import_jax()
