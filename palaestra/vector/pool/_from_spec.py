"""Build a :class:`PoolVectorEnv` for ``make_vec(..., vectorization_mode="pool")``."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from palaestra.vector.pool.pool_vector_env import PoolVectorEnv

__all__ = ["make_pool_vector_env"]


def _native_envs(env_spec: Any, env_kwargs: dict[str, Any], num_envs: int) -> Any:
    from palaestra.envs.registration import make_vec

    return make_vec(env_spec, num_envs, vectorization_mode="vector_entry_point", **env_kwargs)


def _single_env(env_spec: Any, env_kwargs: dict[str, Any], wrappers: Sequence[Callable]) -> Any:
    from palaestra.envs.registration import make

    env = make(env_spec, **env_kwargs)
    for wrapper in wrappers:
        env = wrapper(env)
    return env


def make_pool_vector_env(
    env_spec: Any,
    num_envs: int,
    vector_kwargs: dict[str, Any],
    wrappers: Sequence[Callable],
    env_kwargs: dict[str, Any],
) -> PoolVectorEnv:
    """Return a pool of ``num_envs`` copies of ``env_spec``.

    Workers run the spec's natively batched env when it has one and neither ``wrappers``
    nor the spec's additional wrappers need single envs; otherwise a sync vector env of
    single envs made with ``make``.

    Args:
        env_spec: the spec, without kwargs.
        num_envs: the number of sub-environments.
        vector_kwargs: :class:`PoolVectorEnv` arguments (``num_workers``, ``batch_size``,
            ``autoreset_mode``, ``context``, ``timeout``, ``restart_failed``).
        wrappers: wrappers applied to each single sub-environment.
        env_kwargs: the environment's constructor arguments.

    Example:
        >>> import palaestra as gym
        >>> envs = make_pool_vector_env(gym.spec("Pendulum-v1"), 2, {"num_workers": 1}, [], {})
        >>> envs.reset(seed=0)[0].shape
        (2, 3)
        >>> envs.close()
    """
    vector_kwargs = dict(vector_kwargs)
    native = env_spec.vector_entry_point is not None and not (
        wrappers or env_spec.additional_wrappers
    )
    if native:
        kwargs = dict(env_kwargs)
        if "autoreset_mode" in vector_kwargs:
            kwargs["autoreset_mode"] = vector_kwargs.pop("autoreset_mode")
        if env_spec.max_episode_steps is not None:
            kwargs.setdefault("max_episode_steps", env_spec.max_episode_steps)
        return PoolVectorEnv(
            vector_env_fn=functools.partial(_native_envs, env_spec, kwargs),
            num_envs=num_envs,
            **vector_kwargs,
        )
    make_one = functools.partial(_single_env, env_spec, dict(env_kwargs), list(wrappers))
    return PoolVectorEnv([make_one] * num_envs, **vector_kwargs)
