"""Stateless reward wrappers: each maps every reward through one fixed function.

Example:
    >>> import palaestra as gym
    >>> env = gym.wrappers.ClipReward(gym.make("CartPole-v1"), min_reward=0.0, max_reward=0.5)
    >>> _ = env.reset(seed=0)
    >>> float(env.step(0)[1])
    0.5
"""

from __future__ import annotations

from collections.abc import Callable
from typing import SupportsFloat

import numpy as np

from palaestra.core import ActType, Env, ObsType, RewardWrapper
from palaestra.error import InvalidBound
from palaestra.utils import RecordConstructorArgs

__all__ = ["TransformReward", "ClipReward"]


class TransformReward(RewardWrapper[ObsType, ActType], RecordConstructorArgs):
    """Apply ``func`` to every reward.

    Args:
        env: the environment to wrap.
        func: maps a reward to the new reward.

    Example:
        >>> import palaestra as gym
        >>> env = TransformReward(gym.make("CartPole-v1"), lambda reward: 2 * reward)
        >>> env.reward(1.0)
        2.0
    """

    def __init__(self, env: Env[ObsType, ActType], func: Callable[[SupportsFloat], SupportsFloat]):
        RecordConstructorArgs.__init__(self, func=func)
        RewardWrapper.__init__(self, env)
        self.func = func

    def reward(self, reward: SupportsFloat) -> SupportsFloat:
        """Return ``func(reward)``."""
        return self.func(reward)


def check_reward_bounds(
    min_reward: float | np.ndarray | None, max_reward: float | np.ndarray | None
) -> None:
    """Check that at least one clipping bound is given and that they are ordered.

    Args:
        min_reward: the lower bound or ``None``.
        max_reward: the upper bound or ``None``.

    Raises:
        InvalidBound: if both are ``None`` or ``min_reward > max_reward``.

    Example:
        >>> check_reward_bounds(None, 1.0)
    """
    if min_reward is None and max_reward is None:
        raise InvalidBound("Both `min_reward` and `max_reward` cannot be None")
    if min_reward is not None and max_reward is not None and np.any(max_reward - min_reward < 0):
        raise InvalidBound(
            f"Min reward ({min_reward}) must be smaller than max reward ({max_reward})"
        )


class ClipReward(TransformReward[ObsType, ActType]):
    """Clip rewards into ``[min_reward, max_reward]`` (either side may be left open).

    Args:
        env: the environment to wrap.
        min_reward: the lower bound, or ``None`` for none.
        max_reward: the upper bound, or ``None`` for none.

    Raises:
        InvalidBound: if both bounds are ``None`` or ``min_reward > max_reward``.

    Example:
        >>> import palaestra as gym
        >>> float(ClipReward(gym.make("CartPole-v1"), max_reward=0.5).reward(3.0))
        0.5
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        min_reward: float | np.ndarray | None = None,
        max_reward: float | np.ndarray | None = None,
    ):
        check_reward_bounds(min_reward, max_reward)
        RecordConstructorArgs.__init__(self, min_reward=min_reward, max_reward=max_reward)
        TransformReward.__init__(
            self, env=env, func=lambda reward: np.clip(reward, min_reward, max_reward)
        )
