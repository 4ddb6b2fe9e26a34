"""Vector-environment adapters: palaestra vector envs as Gymnasium's, and the other way round.

Batches pass unchanged (both libraries batch spaces alike); the spaces are converted and
``metadata["autoreset_mode"]`` is translated to the other library's ``AutoresetMode``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import gymnasium.vector

from palaestra.compat._spaces import from_gymnasium_space, to_gymnasium_space
from palaestra.compat._specs import convert_spec
from palaestra.envs import registration
from palaestra.vector import AutoresetMode, VectorEnv

__all__ = ["ToGymnasiumVector", "FromGymnasiumVector"]


def _translate_metadata(metadata: dict[str, Any], mode_class: Any) -> dict[str, Any]:
    """Return a copy of ``metadata`` with its autoreset mode as a member of ``mode_class``."""
    translated = dict(metadata)
    mode = translated.get("autoreset_mode")
    if mode is not None:
        translated["autoreset_mode"] = mode_class(getattr(mode, "value", mode))
    return translated


class _Forwarding:
    """``call``/``get_attr``/``set_attr``/``np_random`` forwarded to ``self.env``."""

    env: Any

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call ``name`` on every sub-env of the inner vector env (if it supports that)."""
        return self.env.call(name, *args, **kwargs)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Return attribute ``name`` of every sub-env of the inner vector env."""
        return self.env.get_attr(name)

    def set_attr(self, name: str, values: Any) -> None:
        """Set attribute ``name`` of the sub-envs of the inner vector env."""
        self.env.set_attr(name, values)

    @property
    def np_random(self) -> Any:
        """The inner vector env's ``np_random``."""
        return self.env.np_random

    @np_random.setter
    def np_random(self, value: Any) -> None:
        self.env.np_random = value

    @property
    def np_random_seed(self) -> Any:
        """The inner vector env's ``np_random_seed``."""
        return self.env.np_random_seed

    def render(self) -> Any:
        """Render the inner vector env."""
        return self.env.render()

    def close_extras(self, **kwargs: Any) -> None:
        """Close the inner vector env."""
        self.env.close(**kwargs)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.env!r})"

    def _adopt(self, env: Any, convert_space: Any, mode_class: Any, spec: Any) -> None:
        """Take ``env``'s size, converted spaces, translated metadata, render mode and ``spec``."""
        self.env = env
        self.num_envs = env.num_envs
        self.single_observation_space = convert_space(env.single_observation_space)
        self.single_action_space = convert_space(env.single_action_space)
        self.observation_space = convert_space(env.observation_space)
        self.action_space = convert_space(env.action_space)
        self.metadata = _translate_metadata(env.metadata, mode_class)
        self.render_mode = env.render_mode
        self.spec = spec


class ToGymnasiumVector(_Forwarding, gymnasium.vector.VectorEnv):
    """A palaestra vector environment seen as a real ``gymnasium.vector.VectorEnv``.

    Works for every palaestra vector env: sync, async, pool, ray and the natively batched
    ones. ``metadata["autoreset_mode"]`` is Gymnasium's ``AutoresetMode`` member of the same
    name, so Gymnasium's vector wrappers see the mode the palaestra env runs.

    Args:
        env: the palaestra vector environment.

    Raises:
        TypeError: ``env`` is not a palaestra vector env, or has a space Gymnasium lacks.

    Example:
        >>> import palaestra
        >>> envs = ToGymnasiumVector(palaestra.make_vec("CartPole-v1", 3))
        >>> envs.num_envs, envs.metadata["autoreset_mode"]
        (3, <AutoresetMode.NEXT_STEP: 'NextStep'>)
        >>> envs.reset(seed=0)[0].shape
        (3, 4)
        >>> envs.close()
    """

    def __init__(self, env: VectorEnv[Any, Any, Any]):
        if not isinstance(env, VectorEnv):
            raise TypeError(
                f"to_gymnasium_vector expects a palaestra vector env, got {type(env)}; for a "
                "single env use `palaestra.compat.to_gymnasium`."
            )
        reg = gymnasium.envs.registration
        spec = convert_spec(env.spec, reg.EnvSpec, reg.WrapperSpec)
        self._adopt(env, to_gymnasium_space, gymnasium.vector.AutoresetMode, spec)

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the palaestra vector env."""
        return self.env.reset(seed=seed, options=options)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the palaestra vector env."""
        return self.env.step(actions)


class FromGymnasiumVector(_Forwarding, VectorEnv[Any, Any, Any]):
    """A Gymnasium vector environment seen as a palaestra :class:`~palaestra.vector.VectorEnv`.

    Args:
        env: the ``gymnasium.vector.VectorEnv``.

    Raises:
        TypeError: ``env`` is not a Gymnasium vector env, or has a space palaestra lacks.

    Example:
        >>> import gymnasium
        >>> envs = FromGymnasiumVector(gymnasium.make_vec("CartPole-v1", 2))
        >>> envs.single_action_space, envs.metadata["autoreset_mode"]
        (Discrete(2), <AutoresetMode.NEXT_STEP: 'NextStep'>)
        >>> envs.close()
    """

    def __init__(self, env: Any):
        if not isinstance(env, gymnasium.vector.VectorEnv):
            raise TypeError(
                f"from_gymnasium_vector expects a gymnasium.vector.VectorEnv, got {type(env)}; "
                "for a single env use `palaestra.compat.from_gymnasium`."
            )
        spec = convert_spec(env.spec, registration.EnvSpec, registration.WrapperSpec)
        self._adopt(env, from_gymnasium_space, AutoresetMode, spec)

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the Gymnasium vector env.

        A list of seeds ``[s, s + 1, ...]`` (what palaestra's pool and ray modes send each
        group) is passed as ``s`` and a list of ``None`` as ``None``, since Gymnasium's
        natively batched envs take only an int; other lists go through unchanged.
        """
        if isinstance(seed, (list, tuple)):
            first = seed[0] if seed else None
            if all(item is None for item in seed):
                seed = None
            elif isinstance(first, int) and list(seed) == [first + i for i in range(len(seed))]:
                seed = first
        return self.env.reset(seed=seed, options=options)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the Gymnasium vector env."""
        return self.env.step(actions)
