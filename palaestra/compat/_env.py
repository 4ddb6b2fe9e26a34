"""Single-environment adapters: a palaestra env as a ``gymnasium.Env`` and the other way round.

This module imports Gymnasium at import time; :mod:`palaestra.compat` imports it only when an
adapter is asked for, so palaestra itself never needs Gymnasium.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium
import numpy as np

from palaestra import spaces
from palaestra.compat._spaces import from_gymnasium_space, graph_converter, to_gymnasium_space
from palaestra.compat._specs import gymnasium_spec_of, palaestra_spec_of
from palaestra.core import Env

__all__ = ["ToGymnasium", "FromGymnasium"]


def _inner_generator(env: Any) -> Any:
    """Return the object that owns ``env``'s random generator (the unwrapped env)."""
    return env.unwrapped


def _array_to_scalar(observation: Any) -> Any:
    """Return a 0-d array (a JAX env's ``Discrete`` observation) as a numpy scalar."""
    return observation[()] if isinstance(observation, np.ndarray) else observation


class _Adapter:
    """What both adapters share: the inner env's generator, reset, render, close, attributes.

    ``env`` is the adapted env; ``_observation_out`` and ``_action_in`` convert observations
    coming out of it and actions going in (``None``: as they are).
    """

    env: Any
    _observation_out: Any
    _action_in: Any

    @property
    def _np_random(self) -> Any:
        return _inner_generator(self.env)._np_random

    @_np_random.setter
    def _np_random(self, value: Any) -> None:
        _inner_generator(self.env)._np_random = value

    @property
    def _np_random_seed(self) -> Any:
        return _inner_generator(self.env)._np_random_seed

    @_np_random_seed.setter
    def _np_random_seed(self, value: Any) -> None:
        _inner_generator(self.env)._np_random_seed = value

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the inner env (seeding its ``np_random``) and return its first observation."""
        observation, info = self.env.reset(seed=seed, options=options)
        if self._observation_out is not None:
            observation = self._observation_out(observation)
        return observation, info

    def _step_inner(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """Step the inner env with ``action``, converting the action and the observation."""
        if self._action_in is not None:
            action = self._action_in(action)
        observation, reward, terminated, truncated, info = self.env.step(action)
        if self._observation_out is not None:
            observation = self._observation_out(observation)
        return observation, reward, terminated, truncated, info

    def render(self) -> Any:
        """Render the inner env."""
        return self.env.render()

    def close(self) -> None:
        """Close the inner env."""
        self.env.close()

    def has_wrapper_attr(self, name: str) -> bool:
        """Whether the adapter or the inner env stack has attribute ``name``."""
        return hasattr(self, name) or self.env.has_wrapper_attr(name)

    def get_wrapper_attr(self, name: str) -> Any:
        """Return attribute ``name`` of the adapter, else of the inner env stack."""
        if hasattr(type(self), name) or name in self.__dict__:
            return getattr(self, name)
        return self.env.get_wrapper_attr(name)

    def set_wrapper_attr(self, name: str, value: Any, *, force: bool = True) -> bool:
        """Set ``name`` where the inner env stack has it (see ``Env.set_wrapper_attr``)."""
        return self.env.set_wrapper_attr(name, value, force=force)

    def __str__(self) -> str:
        return f"<{type(self).__name__}{self.env}>"

    def __repr__(self) -> str:
        return str(self)


class ToGymnasium(_Adapter, gymnasium.Env):  # type: ignore[misc]
    """A palaestra environment seen as a real :class:`gymnasium.Env`.

    Spaces are converted to ``gymnasium.spaces`` (recursively, sharing their generators);
    ``reset``, ``step``, ``render`` and ``close`` go to the palaestra env, whose ``np_random``
    this adapter's ``np_random`` (and ``unwrapped._np_random``) is; rewards come back as
    Python floats and 0-d array observations of a ``Discrete`` space as numpy scalars (what
    Stable-Baselines3 accepts). ``metadata`` and ``render_mode`` are the inner env's; ``spec`` is a
    Gymnasium ``EnvSpec`` with the palaestra spec's id and settings. Attributes the adapter
    lacks are looked up on the inner env by ``get_wrapper_attr``.

    Args:
        env: the palaestra environment (wrapped or not).

    Raises:
        TypeError: ``env`` is not a palaestra environment, or has a space Gymnasium lacks.

    Example:
        >>> import gymnasium
        >>> import palaestra
        >>> env = ToGymnasium(palaestra.make("CartPole-v1"))
        >>> isinstance(env, gymnasium.Env), env.spec.id
        (True, 'CartPole-v1')
        >>> env.reset(seed=0)[0].shape
        (4,)
    """

    def __init__(self, env: Env[Any, Any]):
        if not isinstance(env, Env):
            raise TypeError(
                f"to_gymnasium expects a palaestra.Env, got {type(env)}. A Gymnasium env is "
                "already one; to adapt it for palaestra use `palaestra.compat.from_gymnasium`."
            )
        self.env = env
        self.observation_space = to_gymnasium_space(env.observation_space)
        self.action_space = to_gymnasium_space(env.action_space)
        self._observation_out = graph_converter(
            env.observation_space, gymnasium.spaces.GraphInstance
        )
        if isinstance(env.observation_space, spaces.Discrete):
            self._observation_out = _array_to_scalar
        self._action_in = graph_converter(env.action_space, spaces.GraphInstance)
        self._spec_override: Any = None

    metadata = property(  # type: ignore[assignment]
        lambda self: self.env.metadata, doc="The inner environment's metadata."
    )
    render_mode = property(  # type: ignore[assignment]
        lambda self: self.env.render_mode, doc="The inner environment's render mode."
    )

    @property
    def spec(self) -> Any:  # type: ignore[override]
        """A Gymnasium ``EnvSpec`` that rebuilds this adapter (or the one ``gymnasium.make`` set).

        Its id, ``max_episode_steps`` and ``reward_threshold`` are the palaestra spec's.
        """
        if self._spec_override is not None:
            return self._spec_override
        return gymnasium_spec_of(self.env.spec)

    @spec.setter
    def spec(self, value: Any) -> None:
        self._spec_override = value

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the palaestra env with ``action``.

        The reward comes back as a Python ``float`` (the same value): Gymnasium accepts any
        real scalar, but Stable-Baselines3's ``check_env`` and some libraries want a float.
        """
        observation, reward, terminated, truncated, info = self._step_inner(action)
        return observation, float(reward), terminated, truncated, info


class FromGymnasium(_Adapter, Env[Any, Any]):  # type: ignore[misc]
    """A Gymnasium environment seen as a palaestra :class:`~palaestra.Env`.

    The mirror of :class:`ToGymnasium`: spaces become palaestra spaces (sharing generators),
    calls go to the Gymnasium env, ``np_random`` is its ``np_random`` and ``spec`` its spec
    as a palaestra ``EnvSpec``, so palaestra's wrappers and vectorization modes run it.

    Args:
        env: the Gymnasium environment (wrapped or not).

    Raises:
        TypeError: ``env`` is not a ``gymnasium.Env``, or has a space palaestra lacks.

    Example:
        >>> import gymnasium
        >>> env = FromGymnasium(gymnasium.make("CartPole-v1"))
        >>> env.observation_space.shape, type(env.action_space).__module__
        ((4,), 'palaestra.spaces.discrete')
    """

    def __init__(self, env: Any):
        if not isinstance(env, gymnasium.Env):
            raise TypeError(
                f"from_gymnasium expects a gymnasium.Env, got {type(env)}. A palaestra env "
                "needs no adapter; to hand one to Gymnasium use `palaestra.compat.to_gymnasium`."
            )
        self.env = env
        self.observation_space = from_gymnasium_space(env.observation_space)
        self.action_space = from_gymnasium_space(env.action_space)
        self._observation_out = graph_converter(env.observation_space, spaces.GraphInstance)
        self._action_in = graph_converter(env.action_space, gymnasium.spaces.GraphInstance)
        self._spec_override: Any = None

    metadata = property(  # type: ignore[assignment]
        lambda self: self.env.metadata, doc="The Gymnasium environment's metadata."
    )
    render_mode = property(  # type: ignore[assignment]
        lambda self: self.env.render_mode, doc="The Gymnasium environment's render mode."
    )

    @property
    def spec(self) -> Any:  # type: ignore[override]
        """A palaestra ``EnvSpec`` that rebuilds this adapter (or the one ``make`` set here)."""
        if self._spec_override is not None:
            return self._spec_override
        return palaestra_spec_of(self.env.spec)

    @spec.setter
    def spec(self, value: Any) -> None:
        self._spec_override = value

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the Gymnasium env with ``action``."""
        return self._step_inner(action)
