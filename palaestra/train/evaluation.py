"""Evaluating a policy over many episodes at once on a vector env."""

from __future__ import annotations

from typing import Any

import numpy as np


def evaluate(
    policy: Any,
    envs: Any,
    episodes: int = 100,
    deterministic: bool = True,
    seed: int | None = 10_000,
) -> np.ndarray:
    """Play ``episodes`` episodes and return their undiscounted returns.

    Every sub-env plays its first episode only (later ones would favour short episodes),
    so the env is reset once per round of ``num_envs`` episodes, with seeds ``seed``,
    ``seed + 1``, ... .

    Args:
        policy: anything with ``predict(observations, deterministic) -> actions``.
        envs: a vector env (with the policy's observation normalization applied).
        episodes: number of episodes.
        deterministic: act with the most likely action instead of sampling.
        seed: seed of the first round; ``None`` for random resets.

    Returns:
        float64 array of ``episodes`` returns.

    Raises:
        ValueError: if ``episodes`` is not positive.

    Example:
        >>> import palaestra as gym
        >>> class Left:
        ...     def predict(self, observations, deterministic=True):
        ...         return np.zeros(len(observations), dtype=np.int64)
        >>> returns = evaluate(Left(), gym.make_vec("CartPole-v1", num_envs=4), episodes=6)
        >>> returns.shape, bool(returns.max() < 20)
        ((6,), True)
    """
    if episodes < 1:
        raise ValueError(f"episodes must be positive, got {episodes!r}.")
    returns: list[float] = []
    round_index = 0
    while len(returns) < episodes:
        round_seed = None if seed is None else seed + round_index * envs.num_envs
        returns += _play_round(policy, envs, deterministic, round_seed)
        round_index += 1
    return np.asarray(returns[:episodes], dtype=np.float64)


def _play_round(policy: Any, envs: Any, deterministic: bool, seed: int | None) -> list[float]:
    observations, _ = envs.reset(seed=seed)
    totals = np.zeros(envs.num_envs)
    running = np.ones(envs.num_envs, dtype=bool)
    while running.any():
        actions = policy.predict(observations, deterministic=deterministic)
        observations, rewards, terminated, truncated, _ = envs.step(actions)
        totals += np.where(running, rewards, 0.0)
        running &= ~np.logical_or(terminated, truncated)
    return totals.tolist()
