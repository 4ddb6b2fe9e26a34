"""Preallocated storage for one PPO rollout of ``n_steps`` batched steps."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.returns import gae_advantages

torch = require_torch()


class RolloutBuffer:
    """Holds one rollout of a vector env, written step by step without reallocating.

    Network-side data (observations, actions, log-probabilities, values) are tensors on the
    training device; env-side data (rewards, flags) are NumPy arrays, which is where the env
    produces them. ``valid`` is ``False`` for the dummy reset steps of the ``NEXT_STEP``
    autoreset convention (the step after an episode ended), which are left out of training.

    Args:
        n_steps: steps per sub-env per rollout.
        num_envs: number of sub-envs.
        obs_dim: flat observation size.
        action_shape: shape of one sub-env's action as stored (``()`` for discrete).
        discrete: whether actions are integer indices.
        device: torch device of the tensors.

    Example:
        >>> buffer = RolloutBuffer(n_steps=4, num_envs=2, obs_dim=3, action_shape=(),
        ...                        discrete=True)
        >>> buffer.observations.shape, buffer.rewards.shape
        (torch.Size([4, 2, 3]), (4, 2))
    """

    def __init__(
        self,
        n_steps: int,
        num_envs: int,
        obs_dim: int,
        action_shape: tuple[int, ...],
        discrete: bool,
        device: str | torch.device = "cpu",
    ):
        self.n_steps = n_steps
        self.num_envs = num_envs
        self.device = torch.device(device)
        action_dtype = torch.int64 if discrete else torch.float32
        self.observations = torch.zeros((n_steps, num_envs, obs_dim), device=self.device)
        self.actions = torch.zeros(
            (n_steps, num_envs, *action_shape), dtype=action_dtype, device=self.device
        )
        self.log_probs = torch.zeros((n_steps, num_envs), device=self.device)
        self.values = torch.zeros((n_steps, num_envs), device=self.device)
        self.rewards = np.zeros((n_steps, num_envs), dtype=np.float32)
        self.terminated = np.zeros((n_steps, num_envs), dtype=bool)
        self.truncated = np.zeros((n_steps, num_envs), dtype=bool)
        self.valid = np.ones((n_steps, num_envs), dtype=bool)

    def compute_targets(
        self, last_values: torch.Tensor, gamma: float, gae_lambda: float
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """GAE advantages and value targets of the stored rollout.

        Args:
            last_values: values of the observations after the last stored step, ``(N,)``.
            gamma: discount factor.
            gae_lambda: GAE lambda.

        Returns:
            ``(advantages, returns)`` as ``(n_steps, num_envs)`` tensors on the device.
        """
        values = self.values.cpu().numpy()
        next_values = np.concatenate([values[1:], last_values.cpu().numpy()[None]], axis=0)
        advantages, returns = gae_advantages(
            self.rewards,
            values,
            next_values,
            self.terminated,
            self.truncated,
            self.valid,
            gamma,
            gae_lambda,
        )
        return (
            torch.from_numpy(advantages).to(self.device),
            torch.from_numpy(returns).to(self.device),
        )

    def minibatches(
        self,
        advantages: torch.Tensor,
        returns: torch.Tensor,
        batch_size: int,
        generator: torch.Generator,
    ) -> Iterator[tuple[torch.Tensor, ...]]:
        """Shuffled minibatches of the valid steps, as flat tensors.

        Args:
            advantages: ``(n_steps, num_envs)`` advantages.
            returns: ``(n_steps, num_envs)`` value targets.
            batch_size: steps per minibatch (the last one may be smaller).
            generator: the torch generator that shuffles.

        Yields:
            ``(observations, actions, old_log_probs, old_values, advantages, returns)``.
        """
        valid = torch.from_numpy(self.valid.reshape(-1)).to(self.device)
        index = torch.nonzero(valid).squeeze(-1)
        index = index[torch.randperm(len(index), generator=generator).to(self.device)]
        flat = (
            self.observations.flatten(0, 1),
            self.actions.flatten(0, 1),
            self.log_probs.flatten(0, 1),
            self.values.flatten(0, 1),
            advantages.flatten(),
            returns.flatten(),
        )
        for start in range(0, len(index), batch_size):
            chosen = index[start : start + batch_size]
            yield tuple(tensor[chosen] for tensor in flat)
