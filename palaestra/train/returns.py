"""Return and advantage estimators: pure NumPy functions over recorded trajectories.

Every function here works on plain arrays, so it can be checked against values computed by
hand and reused by any algorithm.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

NORMALIZATION_EPSILON = 1e-8


def _check_gamma(gamma: float) -> None:
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must lie in [0, 1], got {gamma!r}; use e.g. 0.99.")


def discounted_returns(
    rewards: ArrayLike, terminated: ArrayLike, truncated: ArrayLike, gamma: float
) -> NDArray[np.float64]:
    """Discounted reward-to-go of every step, restarting at each episode end.

    The sum runs backwards and is cut after every step flagged ``terminated`` or
    ``truncated``, so rewards of one episode never leak into the previous one.

    Args:
        rewards: reward of each step, shape ``(T,)``.
        terminated: per-step ``terminated`` flags, shape ``(T,)``.
        truncated: per-step ``truncated`` flags, shape ``(T,)``.
        gamma: discount factor in ``[0, 1]``.

    Returns:
        ``G_t = r_t + gamma * G_{t+1}`` within an episode, as float64 of shape ``(T,)``.

    Raises:
        ValueError: if the arrays differ in length or ``gamma`` is outside ``[0, 1]``.

    Example:
        >>> discounted_returns([1, 1, 1], [False, False, True], [False, False, False], 0.5)
        array([1.75, 1.5 , 1.  ])
    """
    _check_gamma(gamma)
    rewards = np.asarray(rewards, dtype=np.float64)
    ends = _episode_ends(terminated, truncated, len(rewards))
    returns = np.empty_like(rewards)
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + (0.0 if ends[t] else gamma * running)
        returns[t] = running
    return returns


def _episode_ends(terminated: ArrayLike, truncated: ArrayLike, length: int) -> NDArray[np.bool_]:
    terminated = np.asarray(terminated, dtype=bool)
    truncated = np.asarray(truncated, dtype=bool)
    if terminated.shape != (length,) or truncated.shape != (length,):
        raise ValueError(
            f"rewards, terminated and truncated must have the same length {length}; got "
            f"shapes {terminated.shape} and {truncated.shape}."
        )
    return terminated | truncated


def normalize_per_episode(
    returns: ArrayLike, episode_ends: ArrayLike, eps: float = NORMALIZATION_EPSILON
) -> NDArray[np.float64]:
    """Standardize returns within each episode (zero mean, unit standard deviation).

    A single-step episode is left as it is: standardizing one value would turn it into 0 and
    throw away its learning signal. Steps after the last episode end form an episode of their
    own.

    Args:
        returns: per-step returns, shape ``(T,)``.
        episode_ends: ``True`` at the last step of each episode, shape ``(T,)``.
        eps: added to the standard deviation so a constant episode does not divide by zero.

    Returns:
        ``(G - mean) / (std + eps)`` per episode, as float64 of shape ``(T,)``.

    Raises:
        ValueError: if the two arrays differ in shape.

    Example:
        >>> normalize_per_episode([1.0, 3.0, 5.0], [False, True, True]).round(6)
        array([-1.,  1.,  5.])
    """
    returns = np.asarray(returns, dtype=np.float64)
    episode_ends = np.asarray(episode_ends, dtype=bool)
    if returns.shape != episode_ends.shape:
        raise ValueError(
            f"returns {returns.shape} and episode_ends {episode_ends.shape} must match in shape."
        )
    normalized = returns.copy()
    boundaries = np.flatnonzero(episode_ends) + 1
    for episode in np.split(np.arange(len(returns)), boundaries):
        if len(episode) > 1:
            values = returns[episode]
            normalized[episode] = (values - values.mean()) / (values.std() + eps)
    return normalized


def gae_advantages(
    rewards: ArrayLike,
    values: ArrayLike,
    next_values: ArrayLike,
    terminated: ArrayLike,
    truncated: ArrayLike,
    valid: ArrayLike,
    gamma: float,
    gae_lambda: float,
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Generalized advantage estimates GAE(gamma, lambda) over a ``(T, num_envs)`` rollout.

    ``next_values[t]`` is the value of the observation that follows step ``t``; for a
    truncated step that is the final observation of the episode, so a time-limit cut is
    bootstrapped instead of being treated as a terminal state. A terminated step does not
    bootstrap. Advantages never flow across an episode end. Steps marked not ``valid`` (the
    dummy reset steps of the ``NEXT_STEP`` autoreset convention) get advantage 0.

    Args:
        rewards: shape ``(T, N)``.
        values: value estimate of each step's observation, shape ``(T, N)``.
        next_values: value estimate of the observation following each step, shape ``(T, N)``.
        terminated: shape ``(T, N)``.
        truncated: shape ``(T, N)``.
        valid: ``False`` where a step is a reset step to be ignored, shape ``(T, N)``.
        gamma: discount factor in ``[0, 1]``.
        gae_lambda: bias/variance trade-off in ``[0, 1]`` (1 is Monte-Carlo, 0 is TD(0)).

    Returns:
        ``(advantages, returns)``, both float32 of shape ``(T, N)``; ``returns`` is
        ``advantages + values``, the regression target of the value function.

    Raises:
        ValueError: if ``gamma`` or ``gae_lambda`` is outside ``[0, 1]``.

    Example:
        >>> adv, ret = gae_advantages([[1.0], [1.0]], [[0.5], [0.5]], [[0.5], [2.0]],
        ...                           [[False], [False]], [[False], [True]],
        ...                           [[True], [True]], gamma=1.0, gae_lambda=1.0)
        >>> adv[:, 0].tolist(), ret[:, 0].tolist()
        ([3.5, 2.5], [4.0, 3.0])
    """
    _check_gamma(gamma)
    if not 0.0 <= gae_lambda <= 1.0:
        raise ValueError(f"gae_lambda must lie in [0, 1], got {gae_lambda!r}; use e.g. 0.95.")
    rewards = np.asarray(rewards, dtype=np.float32)
    values = np.asarray(values, dtype=np.float32)
    not_terminated = 1.0 - np.asarray(terminated, dtype=np.float32)
    continues = 1.0 - np.asarray(np.logical_or(terminated, truncated), dtype=np.float32)
    valid = np.asarray(valid, dtype=np.float32)
    deltas = rewards + gamma * np.asarray(next_values, dtype=np.float32) * not_terminated - values
    advantages = np.zeros_like(rewards)
    running = np.zeros(rewards.shape[1:], dtype=np.float32)
    for t in range(len(rewards) - 1, -1, -1):
        running = (deltas[t] + gamma * gae_lambda * continues[t] * running) * valid[t]
        advantages[t] = running
    return advantages, advantages + values * valid
