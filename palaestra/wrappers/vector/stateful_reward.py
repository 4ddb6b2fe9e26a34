"""Reward normalization for vector envs, aware of the autoreset mode.

Example:
    >>> import palaestra as gym
    >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
    >>> NormalizeReward(envs, gamma=0.9).gamma
    0.9
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.core import ActType, ObsType
from palaestra.utils import RecordConstructorArgs
from palaestra.vector.episodes import SAME_STEP, EpisodeMasks
from palaestra.vector.vector_env import VectorEnv, VectorWrapper
from palaestra.wrappers.running_statistics import RunningStatisticsControls
from palaestra.wrappers.stateful_reward import check_normalize_reward_args
from palaestra.wrappers.utils import RunningMeanStd

__all__ = ["NormalizeReward"]


class NormalizeReward(
    VectorWrapper[ObsType, ActType, ObsType, ActType, np.ndarray],
    RecordConstructorArgs,
    RunningStatisticsControls,
):
    r"""Scale every sub-env's rewards so the discounted return has roughly unit variance.

    Each sub-env keeps a discounted return ``G <- gamma * G * (1 - terminated) + r``; all of
    them feed one running variance in ``return_rms``, and rewards are returned as
    ``r / sqrt(var + epsilon)``. In ``NEXT_STEP`` and ``DISABLED`` modes the step that resets
    a finished sub-env is left out of the statistics (its reward is a dummy 0); in
    ``SAME_STEP`` mode every step counts and a finished sub-env's return restarts at once.
    Freeze the statistics with ``update_running_mean = False`` and save/restore them with
    :meth:`get_state` / :meth:`set_state` (or by pickling).

    Args:
        env: the vector env to wrap.
        gamma: the discount of the accumulated return, in [0, 1].
        epsilon: added to the variance under the square root; must be positive.

    Raises:
        InvalidBound: if ``gamma`` is outside [0, 1] or ``epsilon`` is not positive.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = NormalizeReward(envs)
        >>> envs.set_state({"mean": 0.0, "var": 4.0, "count": 10.0})
        >>> envs.update_running_mean = False
        >>> _ = envs.reset(seed=0)
        >>> envs.step(np.array([0, 1]))[1].round(6)
        array([0.5, 0.5])
    """

    statistics_attribute = "return_rms"

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, np.ndarray],
        gamma: float = 0.99,
        epsilon: float = 1e-8,
    ) -> None:
        check_normalize_reward_args(gamma, epsilon)
        RecordConstructorArgs.__init__(self, gamma=gamma, epsilon=epsilon)
        VectorWrapper.__init__(self, env)
        self.return_rms = RunningMeanStd(shape=())
        self.accumulated_reward = np.zeros((self.num_envs,), dtype=np.float32)
        self.gamma = gamma
        self.epsilon = epsilon
        self._masks = EpisodeMasks.of(env)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Restart every accumulated return and reset the vector env."""
        self.accumulated_reward[:] = 0
        # As Gymnasium's: any reset, partial or not, restarts every sub-env's return.
        self._masks.reset()
        return super().reset(seed=seed, options=options)

    def step(
        self, actions: ActType
    ) -> tuple[ObsType, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step the vector env, update the return statistics and scale the rewards."""
        obs, reward, terminated, truncated, info = super().step(actions)
        # The reset step of NEXT_STEP autoreset is no transition: nothing to learn from it.
        starts, active, _ = self._masks.step(terminated, truncated)
        self.accumulated_reward[active] = (
            self.accumulated_reward[active] * self.gamma * (1 - terminated[active]) + reward[active]
        )
        if self._update_running_mean and np.any(active):
            self.return_rms.update(self.accumulated_reward[active])
        if self._masks.mode is SAME_STEP:
            # The ended sub-envs were reset inside this step: their next return starts now.
            self.accumulated_reward[starts] = 0
        return (
            obs,
            reward / np.sqrt(self.return_rms.var + self.epsilon),
            terminated,
            truncated,
            info,
        )

    def normalize(self, reward: float | np.floating | np.integer) -> np.float64:
        """Scale one reward by the return statistics (updating them first unless frozen).

        Args:
            reward: the reward to scale.

        Example:
            >>> import palaestra as gym
            >>> envs = NormalizeReward(gym.make_vec("CartPole-v1", vectorization_mode="sync"))
            >>> envs.update_running_mean = False
            >>> float(envs.normalize(1.0).round(6))
            1.0
        """
        if self._update_running_mean:
            self.return_rms.update(self.accumulated_reward)
        return reward / np.sqrt(self.return_rms.var + self.epsilon)
