"""Episode statistics for vector envs, correct in every autoreset mode.

Example:
    >>> import palaestra as gym
    >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
    >>> RecordEpisodeStatistics(envs, buffer_length=10).return_queue.maxlen
    10
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

import numpy as np

from palaestra.core import ActType, ObsType
from palaestra.vector.episodes import EpisodeMasks
from palaestra.vector.vector_env import VectorEnv, VectorWrapper

__all__ = ["RecordEpisodeStatistics"]


def _check_reset_mask(reset_mask: Any, num_envs: int) -> None:
    if not isinstance(reset_mask, np.ndarray):
        raise TypeError(f"`options['reset_mask']` must be a numpy array, got {type(reset_mask)}")
    if reset_mask.shape != (num_envs,):
        raise ValueError(
            f"`options['reset_mask']` must have shape `({num_envs},)`, got {reset_mask.shape}"
        )
    if reset_mask.dtype != np.bool_:
        raise TypeError(
            f"`options['reset_mask']` must have `dtype=np.bool_`, got {reset_mask.dtype}"
        )
    if not np.any(reset_mask):
        raise ValueError(
            "`options['reset_mask']` must contain a boolean array with at least one True "
            f"value, got reset_mask={reset_mask}"
        )


class RecordEpisodeStatistics(VectorWrapper[ObsType, ActType, ObsType, ActType, np.ndarray]):
    """Report each finished episode's return, length and wall time in ``info[stats_key]``.

    When sub-envs finish, ``info["episode"]`` holds ``{"r", "l", "t"}`` arrays over sub-envs
    (zero where none finished) and ``info["_episode"]`` the mask of finished sub-envs. The
    last ``buffer_length`` episodes are kept in ``return_queue``, ``length_queue`` and
    ``time_queue``. In ``NEXT_STEP`` (and ``DISABLED``) mode the step that resets a finished
    sub-env starts its next episode without counting; in ``SAME_STEP`` mode every step counts.

    Args:
        env: the vector env to wrap.
        buffer_length: how many finished episodes the queues keep.
        stats_key: the info key of the statistics.

    Raises:
        TypeError: if ``metadata["autoreset_mode"]`` is not an ``AutoresetMode``.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = RecordEpisodeStatistics(envs)
        >>> _ = envs.reset(seed=0)
        >>> while not envs.episode_count:
        ...     _, _, _, _, info = envs.step(np.array([1, 1]))
        >>> info["episode"]["l"], info["_episode"]
        (array([8, 0]), array([ True, False]))
    """

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, np.ndarray],
        buffer_length: int = 100,
        stats_key: str = "episode",
    ) -> None:
        super().__init__(env)
        self._stats_key = stats_key
        self._masks = EpisodeMasks.of(env)
        self.episode_count = 0
        self.episode_start_times = np.zeros((self.num_envs,))
        self.episode_returns = np.zeros((self.num_envs,))
        self.episode_lengths = np.zeros((self.num_envs,), dtype=int)
        self.time_queue: deque = deque(maxlen=buffer_length)
        self.return_queue: deque = deque(maxlen=buffer_length)
        self.length_queue: deque = deque(maxlen=buffer_length)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset the vector env (or the masked sub-envs) and restart their statistics.

        Raises:
            TypeError: if ``options["reset_mask"]`` is not a boolean numpy array.
            ValueError: if it has the wrong shape or no True entry.
        """
        # Read the mask first: the inner vector env may consume it from ``options``.
        reset_mask = None if options is None else options.get("reset_mask")
        if reset_mask is not None:
            _check_reset_mask(reset_mask, self.num_envs)
        obs, info = super().reset(seed=seed, options=options)
        if reset_mask is not None:
            self.episode_start_times[reset_mask] = time.perf_counter()
            self.episode_returns[reset_mask] = 0
            self.episode_lengths[reset_mask] = 0
        else:
            self.episode_start_times = np.full(self.num_envs, time.perf_counter())
            self.episode_returns = np.zeros(self.num_envs)
            self.episode_lengths = np.zeros(self.num_envs, dtype=int)
        self._masks.reset(reset_mask)
        return obs, info

    @property
    def prev_dones(self) -> np.ndarray:
        """Which sub-envs' episodes ended on the previous step."""
        return self._masks.previous_ends

    @prev_dones.setter
    def prev_dones(self, value: np.ndarray) -> None:
        self._masks.previous_ends = np.asarray(value, dtype=np.bool_)

    def _report(self, dones: np.ndarray, infos: dict[str, Any]) -> None:
        if self._stats_key in infos or f"_{self._stats_key}" in infos:
            raise ValueError(
                f"Attempted to add episode stats with key '{self._stats_key}' but this key "
                f"already exists in info: {list(infos.keys())}"
            )
        elapsed = np.round(time.perf_counter() - self.episode_start_times, 6)
        infos[self._stats_key] = {
            "r": np.where(dones, self.episode_returns, 0.0),
            "l": np.where(dones, self.episode_lengths, 0),
            "t": np.where(dones, elapsed, 0.0),
        }
        # A copy, so that a later partial reset does not rewrite the mask handed out here.
        infos[f"_{self._stats_key}"] = dones.copy()
        self.episode_count += np.sum(dones)
        finished = np.where(dones)
        self.time_queue.extend(elapsed[finished])
        self.return_queue.extend(self.episode_returns[finished])
        self.length_queue.extend(self.episode_lengths[finished])

    def step(
        self, actions: ActType
    ) -> tuple[ObsType, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step the vector env and add the statistics of the episodes that just ended.

        Raises:
            ValueError: if ``info`` already has the statistics key.
        """
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        if not isinstance(infos, dict):
            raise TypeError(
                "`vector.RecordEpisodeStatistics` requires `info` type to be `dict`, its "
                f"actual type is {type(infos)}. Wrap `DictInfoToList` outside of it."
            )
        starts, valid, ends = self._masks.step(terminations, truncations)
        np.add(self.episode_returns, rewards, out=self.episode_returns, where=valid)
        self.episode_lengths += valid
        ended = ends.any()
        if ended:
            self._report(ends, infos)
        # A new episode begins after this step's transition (SAME_STEP) or at this reset step
        # (NEXT_STEP), which did not count.
        if ended if starts is ends else starts.any():
            self.episode_returns[starts] = 0
            self.episode_lengths[starts] = 0
            self.episode_start_times[starts] = time.perf_counter()
        return observations, rewards, terminations, truncations, infos
