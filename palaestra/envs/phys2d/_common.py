"""What the phys2d functional environments share: the backend choice and canvas rendering."""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.functional_jax_env import FunctionalJaxEnv, FunctionalJaxVectorEnv
from palaestra.experimental._array_namespace import import_jax, jax_namespace, rebind
from palaestra.utils import EzPickle

__all__ = ["Backend", "JittedEnv", "JittedVectorEnv", "self_jit"]


def self_jit() -> Any:
    """Return ``jax.jit`` (raising DependencyNotInstalled without jax).

    Example:
        >>> self_jit().__name__
        'jit'
    """
    return import_jax().jit


class JittedEnv(FunctionalJaxEnv, EzPickle):
    """Base of the jitted single jax envs: builds ``functional(**kwargs)``, jits it, wraps it.

    A subclass sets ``functional`` (its :class:`~palaestra.experimental.functional.FuncEnv`
    class) and ``metadata``.

    Args:
        render_mode: the render mode (one of ``metadata["render_modes"]`` or ``None``).
        kwargs: passed to ``functional``.

    Example:
        >>> from palaestra.envs.phys2d import CartPoleJaxEnv
        >>> issubclass(CartPoleJaxEnv, JittedEnv)
        True
    """

    functional: type

    def __init__(self, render_mode: str | None = None, **kwargs: Any):
        EzPickle.__init__(self, render_mode=render_mode, **kwargs)
        env = self.functional(**kwargs)
        env.transform(self_jit())
        FunctionalJaxEnv.__init__(self, env, metadata=self.metadata, render_mode=render_mode)


class JittedVectorEnv(FunctionalJaxVectorEnv, EzPickle):
    """Base of the vmapped and jitted jax vector envs (``functional`` as in :class:`JittedEnv`).

    Args:
        num_envs: the number of sub-environments.
        render_mode: the render mode (one of ``metadata["render_modes"]`` or ``None``).
        max_episode_steps: the time limit (0: none).
        kwargs: passed to ``functional``.

    Example:
        >>> from palaestra.envs.phys2d import CartPoleJaxVectorEnv
        >>> issubclass(CartPoleJaxVectorEnv, JittedVectorEnv)
        True
    """

    functional: type

    def __init__(
        self,
        num_envs: int,
        render_mode: str | None = None,
        max_episode_steps: int = 200,
        **kwargs: Any,
    ):
        EzPickle.__init__(
            self,
            num_envs=num_envs,
            render_mode=render_mode,
            max_episode_steps=max_episode_steps,
            **kwargs,
        )
        env = self.functional(**kwargs)
        env.transform(self_jit())
        FunctionalJaxVectorEnv.__init__(
            self,
            func_env=env,
            num_envs=num_envs,
            metadata=self.metadata,
            render_mode=render_mode,
            max_episode_steps=max_episode_steps,
        )


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
