"""Reward normalization with running statistics of the discounted return.

Example:
    >>> import palaestra as gym
    >>> env = gym.wrappers.NormalizeReward(gym.make("CartPole-v1"), gamma=0.9)
    >>> _ = env.reset(seed=0)
    >>> round(float(env.step(0)[1]), 3)
    70.714
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import numpy as np

from palaestra.core import ActType, Env, ObsType, Wrapper
from palaestra.error import InvalidBound
from palaestra.utils import RecordConstructorArgs
from palaestra.wrappers.running_statistics import RunningStatisticsControls, check_epsilon
from palaestra.wrappers.utils import RunningMeanStd

__all__ = ["NormalizeReward", "check_normalize_reward_args"]


def check_normalize_reward_args(gamma: float, epsilon: float) -> None:
    """Check a reward normalizer's discount and variance floor.

    Args:
        gamma: the discount of the accumulated return.
        epsilon: added to the variance under the square root.

    Raises:
        InvalidBound: if ``gamma`` is outside [0, 1] or ``epsilon`` is not positive.

    Example:
        >>> check_normalize_reward_args(0.99, 1e-8)
    """
    # Outside [0, 1] the exponential average diverges or flips sign every step.
    if not 0 <= gamma <= 1:
        raise InvalidBound(f"`gamma` should be in the interval [0, 1]. Received {gamma}")
    check_epsilon(epsilon)


class NormalizeReward(
    Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs, RunningStatisticsControls
):
    r"""Scale rewards so that the discounted return has roughly unit variance.

    A discounted sum of rewards ``G <- gamma * G * (1 - terminated) + r`` is tracked and its
    running variance kept in ``return_rms``; each reward is returned as
    ``r / sqrt(var + epsilon)`` (not centred, so the sign of rewards is kept). Set
    ``update_running_mean = False`` to freeze the statistics, and save/restore them with
    :meth:`get_state` / :meth:`set_state` (or by pickling the wrapper).

    Args:
        env: the environment to wrap.
        gamma: the discount of the accumulated return, in [0, 1].
        epsilon: added to the variance under the square root; must be positive.

    Raises:
        InvalidBound: if ``gamma`` is outside [0, 1] or ``epsilon`` is not positive.

    Example:
        >>> import palaestra as gym
        >>> env = NormalizeReward(gym.make("CartPole-v1"))
        >>> env.set_state({"mean": 0.0, "var": 4.0, "count": 100.0})
        >>> env.update_running_mean = False
        >>> _ = env.reset(seed=0)
        >>> round(float(env.step(0)[1]), 6)
        0.5
    """

    statistics_attribute = "return_rms"

    def __init__(self, env: Env[ObsType, ActType], gamma: float = 0.99, epsilon: float = 1e-8):
        check_normalize_reward_args(gamma, epsilon)
        RecordConstructorArgs.__init__(self, gamma=gamma, epsilon=epsilon)
        Wrapper.__init__(self, env)
        self.return_rms = RunningMeanStd(shape=())
        self.discounted_reward = np.array([0.0])
        self.gamma = gamma
        self.epsilon = epsilon

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the environment, update the return statistics and scale the reward."""
        obs, reward, terminated, truncated, info = super().step(action)
        # The return (not the raw reward) feeds the statistics, as in the reference algorithm.
        self.discounted_reward = self.discounted_reward * self.gamma * (1 - terminated) + float(
            reward
        )
        if self._update_running_mean:
            self.return_rms.update(self.discounted_reward)
        normalized = reward / np.sqrt(self.return_rms.var + self.epsilon)
        return obs, normalized, terminated, truncated, info
