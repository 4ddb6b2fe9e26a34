"""Reward wrappers for vector envs: batch functions and single-env wrappers applied per env.

Example:
    >>> import palaestra as gym
    >>> envs = gym.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
    >>> envs = ClipReward(envs, min_reward=0.2, max_reward=0.8)
    >>> _ = envs.reset(seed=123)
    >>> envs.step(envs.action_space.sample())[1]
    array([0.8, 0.8, 0.8])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from palaestra.core import ActType, Env, ObsType
from palaestra.vector.vector_env import ArrayType, VectorEnv, VectorRewardWrapper
from palaestra.wrappers import transform_reward

__all__ = ["TransformReward", "VectorizeTransformReward", "ClipReward"]


class TransformReward(VectorRewardWrapper[ObsType, ActType, ArrayType]):
    """Apply ``func`` to every batch of rewards.

    Args:
        env: the vector env to wrap.
        func: maps the ``(num_envs,)`` reward array to the new one.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> TransformReward(envs, lambda rewards: rewards * 2).rewards(np.array([1.0, 0.5]))
        array([2., 1.])
    """

    def __init__(
        self, env: VectorEnv[ObsType, ActType, ArrayType], func: Callable[[ArrayType], ArrayType]
    ) -> None:
        super().__init__(env)
        self.func = func

    def rewards(self, rewards: ArrayType) -> ArrayType:
        """Return ``func(rewards)``."""
        return self.func(rewards)


class VectorizeTransformReward(VectorRewardWrapper[ObsType, ActType, ArrayType]):
    """Apply a single-env reward wrapper's function to each sub-env's reward, in place.

    Args:
        env: the vector env to wrap.
        wrapper: a :class:`~palaestra.wrappers.TransformReward` subclass.
        kwargs: the wrapper's constructor arguments.

    Example:
        >>> import palaestra as gym
        >>> from palaestra.wrappers import TransformReward as SingleTransform
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = VectorizeTransformReward(envs, SingleTransform, func=lambda r: -r)
        >>> envs.rewards(np.array([1.0, 2.0]))
        array([-1., -2.])
    """

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, ArrayType],
        wrapper: type[transform_reward.TransformReward],
        **kwargs: Any,
    ) -> None:
        super().__init__(env)
        self.wrapper = wrapper(Env(), **kwargs)

    def rewards(self, rewards: ArrayType) -> ArrayType:
        """Transform each sub-env's reward, writing the results into ``rewards``."""
        for index, reward in enumerate(rewards):
            rewards[index] = self.wrapper.func(reward)
        return rewards


class ClipReward(VectorizeTransformReward[ObsType, ActType, ArrayType]):
    """Clip each sub-env's reward into ``[min_reward, max_reward]``.

    Args:
        env: the vector env to wrap.
        min_reward: the lower bound, or ``None``.
        max_reward: the upper bound, or ``None``.

    Raises:
        InvalidBound: if both bounds are ``None`` or ``min_reward > max_reward``.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
        >>> ClipReward(envs, min_reward=0.2, max_reward=0.8)
        <ClipReward, SyncVectorEnv(CartPole-v1, num_envs=3)>
    """

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, ArrayType],
        min_reward: float | np.ndarray | None = None,
        max_reward: float | np.ndarray | None = None,
    ) -> None:
        super().__init__(
            env, transform_reward.ClipReward, min_reward=min_reward, max_reward=max_reward
        )
        self.min_reward, self.max_reward = min_reward, max_reward

    def rewards(self, rewards: ArrayType) -> ArrayType:
        """Clip the whole batch of rewards at once, writing into ``rewards``."""
        rewards[...] = np.clip(rewards, self.min_reward, self.max_reward)
        return rewards
