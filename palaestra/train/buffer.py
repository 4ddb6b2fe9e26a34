"""Preallocated storage for one PPO rollout of ``n_steps`` batched steps."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.returns import gae_advantages

torch = require_torch()


class RolloutBuffer:
    """Holds one rollout of a vector env, written step by step without reallocating.

    Everything the env loop writes is a NumPy array (that is what envs and the NumPy actor
    produce); :meth:`training_batch` hands the valid steps to torch once per update.
    ``valid`` is ``False`` for the dummy reset steps of the ``NEXT_STEP`` autoreset
    convention (the step after an episode ended), which are left out of training.

    Args:
        n_steps: steps per sub-env per rollout.
        num_envs: number of sub-envs.
        obs_dim: flat observation size.
        action_shape: shape of one sub-env's stored action (``()`` for discrete).
        discrete: whether actions are integer indices.

    Example:
        >>> buffer = RolloutBuffer(n_steps=4, num_envs=2, obs_dim=3, action_shape=(),
        ...                        discrete=True)
        >>> buffer.observations.shape, buffer.actions.dtype
        ((4, 2, 3), dtype('int64'))
    """

    def __init__(
        self,
        n_steps: int,
        num_envs: int,
        obs_dim: int,
        action_shape: tuple[int, ...],
        discrete: bool,
    ):
        self.n_steps = n_steps
        self.num_envs = num_envs
        action_dtype = np.int64 if discrete else np.float32
        self.observations = np.zeros((n_steps, num_envs, obs_dim), dtype=np.float32)
        self.actions = np.zeros((n_steps, num_envs, *action_shape), dtype=action_dtype)
        self.rewards = np.zeros((n_steps, num_envs), dtype=np.float32)
        self.terminated = np.zeros((n_steps, num_envs), dtype=bool)
        self.truncated = np.zeros((n_steps, num_envs), dtype=bool)
        self.valid = np.ones((n_steps, num_envs), dtype=bool)

    def compute_targets(
        self, values: np.ndarray, last_values: np.ndarray, gamma: float, gae_lambda: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """GAE advantages and value targets of the stored rollout.

        Args:
            values: value of each stored observation, ``(n_steps, num_envs)``.
            last_values: values of the observations after the last stored step, ``(N,)``.
            gamma: discount factor.
            gae_lambda: GAE lambda.

        Returns:
            ``(advantages, returns)``, each ``(n_steps, num_envs)`` float32.
        """
        next_values = np.concatenate([values[1:], last_values[None]], axis=0)
        return gae_advantages(
            self.rewards,
            values,
            next_values,
            self.terminated,
            self.truncated,
            self.valid,
            gamma,
            gae_lambda,
        )

    def valid_index(self) -> np.ndarray:
        """Flat indices of the steps that are trained on."""
        return np.flatnonzero(self.valid.reshape(-1))


def minibatches(
    batch: tuple[torch.Tensor, ...], batch_size: int, generator: torch.Generator
) -> Iterator[tuple[torch.Tensor, ...]]:
    """Split a batch of equally long tensors into shuffled minibatches.

    A batch that fits in one minibatch is yielded as it is: for a full-batch step the
    order of the samples does not matter, so shuffling and copying would be wasted work.

    Args:
        batch: tensors whose first dimension indexes samples.
        batch_size: samples per minibatch (the last one may be smaller).
        generator: the torch generator that shuffles.

    Yields:
        Tuples of tensors like ``batch``.

    Example:
        >>> batch = (torch.arange(5), torch.arange(5) * 10)
        >>> [len(b[0]) for b in minibatches(batch, 2, torch.Generator().manual_seed(0))]
        [2, 2, 1]
    """
    size = len(batch[0])
    if size <= batch_size:
        yield batch
        return
    order = torch.randperm(size, generator=generator).to(batch[0].device)
    for start in range(0, size, batch_size):
        chosen = order[start : start + batch_size]
        yield tuple(tensor[chosen] for tensor in batch)
