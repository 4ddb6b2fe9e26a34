"""Evaluating a policy over many episodes at once on a vector env.

An env without a time limit (registered without ``max_episode_steps``) may play an
episode that never ends; evaluation (and REINFORCE's training episodes) then cut it at
:data:`EPISODE_STEP_CAP` steps, with a warning naming the env and the cap, instead of
hanging the run.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

EPISODE_STEP_CAP = 10_000
"""Steps after which an episode of an env without a time limit is cut."""


def episode_step_cap(env: Any, purpose: str) -> int | None:
    """Return the step cap ``env``'s episodes need: ``None`` when it has a time limit.

    An env whose spec has no ``max_episode_steps`` gets :data:`EPISODE_STEP_CAP`, with a
    warning naming the env, the cap and ``purpose`` (``"evaluation"``, ``"training"``).

    Example:
        >>> import palaestra as gym
        >>> print(episode_step_cap(gym.make_vec("CartPole-v1", num_envs=2), "evaluation"))
        None
    """
    spec = getattr(env, "spec", None)
    if getattr(spec, "max_episode_steps", None) is not None:
        return None
    name = getattr(spec, "id", None) or type(env).__name__
    warnings.warn(
        f"{name} has no time limit: its {purpose} episodes are cut at {EPISODE_STEP_CAP} "
        "steps so that an episode that never ends cannot hang the run; register it with "
        "max_episode_steps=N to choose the limit.",
        UserWarning,
        stacklevel=3,
    )
    return EPISODE_STEP_CAP


def evaluate(
    policy: Any,
    envs: Any,
    episodes: int = 100,
    deterministic: bool = True,
    seed: int | None = 10_000,
    max_episode_steps: int | None = None,
    return_lengths: bool = False,
) -> Any:
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
        max_episode_steps: cut each episode after this many steps (its return so far
            counts); ``None``: the env's own time limit, or :data:`EPISODE_STEP_CAP` (with
            a warning, see :func:`episode_step_cap`) when it has none.
        return_lengths: also return each episode's length (as Stable-Baselines3's
            ``evaluate_policy(..., return_episode_rewards=True)`` does).

    Returns:
        float64 array of ``episodes`` returns; with ``return_lengths``,
        ``(returns, lengths)``, the lengths an int64 array.

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
        >>> returns, lengths = evaluate(Left(), gym.make_vec("CartPole-v1", num_envs=2),
        ...                             episodes=2, return_lengths=True)
        >>> bool((returns == lengths).all())  # CartPole pays 1 per step
        True
    """
    if episodes < 1:
        raise ValueError(f"episodes must be positive, got {episodes!r}.")
    cap = (
        max_episode_steps if max_episode_steps is not None else episode_step_cap(envs, "evaluation")
    )
    returns: list[float] = []
    lengths: list[int] = []
    round_index = 0
    while len(returns) < episodes:
        round_seed = None if seed is None else seed + round_index * envs.num_envs
        totals, steps = _play_round(policy, envs, deterministic, round_seed, cap)
        returns += totals
        lengths += steps
        round_index += 1
    played = np.asarray(returns[:episodes], dtype=np.float64)
    if return_lengths:
        return played, np.asarray(lengths[:episodes], dtype=np.int64)
    return played


def _play_round(
    policy: Any, envs: Any, deterministic: bool, seed: int | None, cap: int | None
) -> tuple[list[float], list[int]]:
    observations, _ = envs.reset(seed=seed)
    totals = np.zeros(envs.num_envs)
    lengths = np.zeros(envs.num_envs, dtype=np.int64)
    running = np.ones(envs.num_envs, dtype=bool)
    steps = 0
    while running.any() and (cap is None or steps < cap):
        actions = policy.predict(observations, deterministic=deterministic)
        observations, rewards, terminated, truncated, _ = envs.step(actions)
        totals += np.where(running, rewards, 0.0)
        lengths += running
        running &= ~np.logical_or(terminated, truncated)
        steps += 1
    return totals.tolist(), lengths.tolist()
