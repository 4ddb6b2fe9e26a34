"""The ``"ray"`` vectorization mode: sub-environments in Ray actors, on one machine or many.

``make_vec(id, n, vectorization_mode="ray", vector_kwargs={"num_workers": W, ...})`` builds a
:class:`RayVectorEnv`; Ray (extra ``ray``) is imported only then.

Example:
    >>> import palaestra as gym
    >>> envs = gym.make_vec("CartPole-v1", 4, vectorization_mode="ray",
    ...                     vector_kwargs={"num_workers": 2})  # doctest: +SKIP
    >>> envs.close()  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from palaestra.vector.ray.ray_vector_env import RayVectorEnv, require_ray

__all__ = ["RayVectorEnv", "make_ray_vector_env", "require_ray"]


def make_ray_vector_env(
    env_spec: Any,
    num_envs: int,
    vector_kwargs: dict[str, Any],
    wrappers: Sequence[Callable[[Any], Any]],
    env_kwargs: dict[str, Any],
) -> RayVectorEnv:
    """Return a :class:`RayVectorEnv` of ``num_envs`` copies of ``env_spec`` (for ``make_vec``).

    Actors run the spec's natively batched env when it has one and neither ``wrappers``
    nor the spec's additional wrappers need single envs, else a sync vector env of single
    envs made with ``make`` -- the pool's rule. ``vector_kwargs`` are
    :class:`RayVectorEnv`'s arguments.

    Example:
        >>> from palaestra.envs.registration import spec
        >>> make_ray_vector_env(spec("CartPole-v1"), 2, {}, [], {})  # doctest: +SKIP
    """
    from palaestra.envs.registration import _make_vec

    return RayVectorEnv(
        **_make_vec._group_arguments(env_spec, num_envs, vector_kwargs, wrappers, env_kwargs)
    )
