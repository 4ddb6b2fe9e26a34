"""Observation normalization for vector envs, with running statistics shared by all sub-envs.

Example:
    >>> import palaestra as gym
    >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
    >>> envs = NormalizeObservation(envs)
    >>> envs.reset(seed=0)[0].dtype
    dtype('float32')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.core import ActType
from palaestra.spaces import Box
from palaestra.utils import RecordConstructorArgs
from palaestra.vector.episodes import NEXT_STEP, autoreset_mode
from palaestra.vector.utils import batch_space
from palaestra.vector.vector_env import ArrayType, VectorEnv, VectorObservationWrapper
from palaestra.wrappers.running_statistics import RunningStatisticsControls, check_epsilon
from palaestra.wrappers.utils import RunningMeanStd

__all__ = ["NormalizeObservation"]


class NormalizeObservation(
    VectorObservationWrapper[np.ndarray, ActType, np.ndarray, ArrayType],
    RecordConstructorArgs,
    RunningStatisticsControls,
):
    """Standardize every sub-env's observations with one running mean and variance, as float32.

    Each batch updates the statistics (unless ``update_running_mean`` is False) and is
    returned as ``(obs - mean) / sqrt(var + epsilon)``. The statistics live in ``obs_rms``;
    :meth:`get_state` / :meth:`set_state` (or pickling) save and restore them. Only the
    ``NEXT_STEP`` autoreset mode is supported, and partial resets are refused, because a
    partially reset batch would mix episodes into one update.

    Args:
        env: the vector env to wrap.
        epsilon: added to the variance under the square root; must be positive.

    Raises:
        InvalidBound: if ``epsilon`` is not positive.
        ValueError: if the vector env does not autoreset in ``NEXT_STEP`` mode.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = NormalizeObservation(envs)
        >>> envs.update_running_mean = False
        >>> envs.set_state({"mean": np.zeros(4), "var": np.ones(4), "count": 1.0})
        >>> envs.reset(seed=0)[0][0].round(3)
        array([ 0.014, -0.023, -0.046, -0.048], dtype=float32)
    """

    statistics_attribute = "obs_rms"

    def __init__(self, env: VectorEnv[np.ndarray, ActType, ArrayType], epsilon: float = 1e-8):
        check_epsilon(epsilon)
        RecordConstructorArgs.__init__(self, epsilon=epsilon)
        VectorObservationWrapper.__init__(self, env)
        # The base class has warned if the env declares no mode (NEXT_STEP is assumed then).
        mode = autoreset_mode(env, default=NEXT_STEP)
        if mode is not NEXT_STEP:
            raise ValueError(
                f"Expected env.metadata['autoreset_mode'] to be AutoresetMode.NEXT_STEP, got {mode}"
            )
        self.single_observation_space = Box(
            -np.inf, np.inf, shape=self.single_observation_space.shape, dtype=np.float32
        )
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.obs_rms = RunningMeanStd(shape=self.single_observation_space.shape, dtype=np.float32)
        self.epsilon = epsilon

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset every sub-env; a partial ``reset_mask`` is refused.

        Raises:
            ValueError: if ``options["reset_mask"]`` is not all True.
        """
        if options is not None and "reset_mask" in options and not np.all(options["reset_mask"]):
            raise ValueError(
                "NormalizeObservation does not support partial resets. The 'reset_mask' must "
                "contain all True values."
            )
        return super().reset(seed=seed, options=options)

    def observations(self, observations: np.ndarray) -> np.ndarray:
        """Update the statistics with the batch and return it standardized."""
        if self._update_running_mean:
            self.obs_rms.update(observations)
        normalized = (observations - self.obs_rms.mean) / np.sqrt(self.obs_rms.var + self.epsilon)
        return normalized.astype(np.float32)
