"""Shared parts of the off-policy trainers (DQN, SAC): the env loop, replay, schedules, acting.

Example:
    >>> buffer = ReplayBuffer(capacity=4, obs_dim=2, action_shape=(), action_dtype=np.int64)
    >>> buffer.add(np.zeros((3, 2)), np.array([0, 1, 0]), np.ones(3), np.ones((3, 2)),
    ...            np.zeros(3, bool), np.ones(3, bool))
    >>> len(buffer)
    3
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.core.agent import Agent
from palaestra.train.core.optim import (  # here before the base layer; kept importable
    AdamStep,
    bind_grads,
    clip_grad_norm,
    flat_grads,
    polyak_update,
)
from palaestra.train.diagnostics import check_finite_observations, check_finite_rewards

__all__ = [
    "NARROW_INPUT",
    "AdamStep",
    "OffPolicyAgent",
    "ReplayBuffer",
    "bind_grads",
    "clip_grad_norm",
    "flat_box_dim",
    "flat_grads",
    "linear_schedule",
    "numpy_mlp",
    "polyak_update",
    "relu_mlp",
]

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()
nn = torch.nn


class ReplayBuffer:
    """A ring buffer of transitions ``(obs, action, reward, next_obs, terminated)``.

    Only rows marked ``valid`` are stored: with ``NEXT_STEP`` autoreset the step after an
    episode end is a reset, not a transition. ``next_obs`` of a truncated step is the final
    observation of its episode, so time-limit cuts are bootstrapped.

    A transition is one float32 row of a single table (observation, next observation,
    reward, terminated, action), so a training round gathers every batch it needs with one
    index draw and one gather (:meth:`sample_batches`). The named attributes
    (``observations``, ``actions``, ...) are views of that table's columns. Integer actions
    are stored as float32, exact for indices below 2**24, and returned as ``action_dtype``.

    Args:
        capacity: transitions kept (the oldest are overwritten).
        obs_dim: flat observation size.
        action_shape: shape of one stored action: ``()`` or ``(k,)``.
        action_dtype: dtype of sampled actions.

    Raises:
        ValueError: for a capacity below 1 or an action shape of more than one dimension.

    Example:
        >>> buffer = ReplayBuffer(8, 1, (1,), np.float32)
        >>> buffer.add(np.ones((2, 1)), np.zeros((2, 1)), np.array([1.0, 2.0]),
        ...            np.ones((2, 1)), np.array([False, True]), np.array([True, True]))
        >>> batch = buffer.sample(4, np.random.default_rng(0))
        >>> batch[2].shape
        (4,)
    """

    def __init__(self, capacity: int, obs_dim: int, action_shape: tuple[int, ...], action_dtype):
        if capacity < 1:
            raise ValueError(f"buffer_size must be a positive int, got {capacity!r}.")
        if len(action_shape) > 1:
            raise ValueError(
                f"ReplayBuffer stores flat actions: action_shape must be () or (k,), got "
                f"{action_shape!r}; flatten the actions first."
            )
        self.capacity = int(capacity)
        self.obs_dim = int(obs_dim)
        self.action_shape = tuple(action_shape)
        self.action_dtype = np.dtype(action_dtype)
        action_size = int(action_shape[0]) if action_shape else 1
        d = self.obs_dim
        self.table = np.zeros((self.capacity, 2 * d + 2 + action_size), np.float32)
        self._table_t = torch.from_numpy(self.table)
        self.observations = self.table[:, :d]
        self.next_observations = self.table[:, d : 2 * d]
        self.rewards = self.table[:, 2 * d]
        self.terminated = self.table[:, 2 * d + 1]
        self.actions = self.table[:, 2 * d + 2] if not action_shape else self.table[:, 2 * d + 2 :]
        self.position = 0
        self.full = False

    def __len__(self) -> int:
        return self.capacity if self.full else self.position

    def add(
        self,
        observations: np.ndarray,
        actions: np.ndarray,
        rewards: np.ndarray,
        next_observations: np.ndarray,
        terminated: np.ndarray,
        valid: np.ndarray,
    ) -> None:
        """Store the ``valid`` rows of one vector step."""
        if valid.all():
            rows: Any = slice(None)
            count = len(valid)
        else:
            rows = np.flatnonzero(valid)
            count = len(rows)
        if count == 0:
            return
        if self.position + count <= self.capacity:
            index: Any = slice(self.position, self.position + count)
        else:
            index = (self.position + np.arange(count)) % self.capacity
        self.observations[index] = observations[rows]
        self.next_observations[index] = next_observations[rows]
        self.actions[index] = actions[rows]
        self.rewards[index] = rewards[rows]
        self.terminated[index] = terminated[rows]
        if self.position + count >= self.capacity:
            self.full = True
        self.position = (self.position + count) % self.capacity

    def sample(self, batch_size: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        """``batch_size`` transitions drawn uniformly with replacement, as NumPy arrays."""
        index = rng.integers(0, len(self), size=batch_size)
        return (
            self.observations[index],
            self.actions[index].astype(self.action_dtype),
            self.rewards[index],
            self.next_observations[index],
            self.terminated[index],
        )

    def sample_batches(
        self, batches: int, batch_size: int, rng: np.random.Generator, device: Any = None
    ) -> tuple[Any, ...]:
        """``batches`` minibatches of ``batch_size`` transitions, as torch tensors.

        One index draw and one gather for all of them (uniform, with replacement, as
        :meth:`sample`): every tensor has leading dimensions ``(batches, batch_size)``.

        Args:
            batches: minibatches to draw.
            batch_size: transitions per minibatch.
            rng: the NumPy generator that draws the indices.
            device: torch device of the returned tensors (CPU by default).

        Returns:
            ``(obs, actions, rewards, next_obs, terminated)``; integer actions as int64.

        Example:
            >>> buffer = ReplayBuffer(8, 2, (), np.int64)
            >>> buffer.add(np.ones((3, 2)), np.array([0, 1, 2]), np.zeros(3), np.ones((3, 2)),
            ...            np.zeros(3, bool), np.ones(3, bool))
            >>> obs, actions, *_ = buffer.sample_batches(5, 4, np.random.default_rng(0))
            >>> tuple(obs.shape), actions.dtype
            ((5, 4, 2), torch.int64)
        """
        index = torch.from_numpy(rng.integers(0, len(self), size=batches * batch_size))
        rows = self._table_t.index_select(0, index)
        if device is not None:
            rows = rows.to(device)
        rows = rows.view(batches, batch_size, -1)
        d = self.obs_dim
        actions = rows[..., 2 * d + 2 :]
        if not self.action_shape:
            actions = actions.squeeze(-1)
        if self.action_dtype.kind in "iub":
            actions = actions.long()
        return rows[..., :d], actions, rows[..., 2 * d], rows[..., d : 2 * d], rows[..., 2 * d + 1]

    def state(self) -> dict[str, Any]:
        """Return the stored transitions, for a resumable checkpoint."""
        size = len(self)
        return {
            "observations": torch.from_numpy(self.observations[:size].copy()),
            "next_observations": torch.from_numpy(self.next_observations[:size].copy()),
            "actions": torch.from_numpy(self.actions[:size].astype(self.action_dtype)),
            "rewards": torch.from_numpy(self.rewards[:size].copy()),
            "terminated": torch.from_numpy(self.terminated[:size].copy()),
            "position": self.position,
            "full": self.full,
        }

    def load(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state` returned."""
        size = len(state["rewards"])
        for name in ("observations", "next_observations", "actions", "rewards", "terminated"):
            getattr(self, name)[:size] = np.asarray(state[name])
        self.position = int(state["position"]) % self.capacity
        self.full = bool(state["full"])


def linear_schedule(start: float, end: float, fraction: float, progress: float) -> float:
    """Interpolate from ``start`` to ``end`` over the first ``fraction`` of training.

    Args:
        start: value at progress 0.
        end: value from progress ``fraction`` on.
        fraction: share of training the change takes.
        progress: share of training done, in ``[0, 1]``.

    Example:
        >>> linear_schedule(1.0, 0.0, 0.5, 0.25), linear_schedule(1.0, 0.0, 0.5, 0.9)
        (0.5, 0.0)
    """
    if fraction <= 0 or progress >= fraction:
        return end
    return start + (end - start) * progress / fraction


def relu_mlp(in_dim: int, hidden_sizes: tuple[int, ...], out_dim: int) -> nn.Sequential:
    """Return a ReLU multilayer perceptron with PyTorch's default initialization.

    Example:
        >>> relu_mlp(3, (8,), 2)(torch.zeros(4, 3)).shape
        torch.Size([4, 2])
    """
    layers: list[nn.Module] = []
    sizes = (in_dim, *hidden_sizes)
    for fan_in, fan_out in itertools.pairwise(sizes):
        layers += [nn.Linear(fan_in, fan_out), nn.ReLU()]
    layers.append(nn.Linear(sizes[-1], out_dim))
    return nn.Sequential(*layers)


def numpy_mlp(network: nn.Sequential) -> Callable[[np.ndarray], np.ndarray]:
    """Return a NumPy function computing ``network`` (Linear/ReLU/Tanh layers) on the CPU.

    It reads views of the parameters, so it follows every in-place optimizer update; on
    the few-row batches of env stepping it costs a fraction of a torch call.

    Raises:
        TypeError: for layers other than ``Linear``, ``ReLU`` and ``Tanh``.

    Example:
        >>> net = relu_mlp(3, (8,), 2)
        >>> x = np.ones((1, 3), np.float32)
        >>> bool(np.allclose(numpy_mlp(net)(x), net(torch.from_numpy(x)).detach().numpy()))
        True
    """
    steps: list[Any] = []
    for layer in network:
        if isinstance(layer, nn.Linear):
            steps.append((layer.weight.detach().numpy().T, layer.bias.detach().numpy()))
        elif isinstance(layer, nn.ReLU):
            steps.append("relu")
        elif isinstance(layer, nn.Tanh):
            steps.append("tanh")
        else:
            raise TypeError(f"numpy_mlp cannot run a {type(layer).__name__} layer.")

    def forward(x: np.ndarray) -> np.ndarray:
        for step in steps:
            if step == "relu":
                x = np.maximum(x, 0.0)
            elif step == "tanh":
                x = np.tanh(x)
            else:
                x = x @ step[0] + step[1]
        return x

    return forward


NARROW_INPUT = 64
"""Input widths up to which the hand-written gradients take first-layer weight gradients
in NumPy (MKL is slow at products with a narrow side: ~80 us for a 256x256 by 256x4
product on this kind of CPU, NumPy's OpenBLAS ~6)."""


def flat_box_dim(space: Any, algo: str) -> int:
    """Flat size of a ``Box`` observation space, or a clear error for other spaces.

    Raises:
        ValueError: for non-``Box`` observation spaces.

    Example:
        >>> from palaestra.spaces import Box
        >>> flat_box_dim(Box(-1, 1, (2, 3)), "DQN")
        6
    """
    if type(space).__name__ != "Box":
        raise ValueError(
            f"{algo} trains MLPs on Box observations, got {space}; use PPO "
            "(MultiInputPolicy/CnnPolicy) or flatten the observations."
        )
    return int(np.prod(space.shape))


class OffPolicyAgent(Agent):
    """The env loop shared by the off-policy trainers (:mod:`~palaestra.train.dqn`, SAC).

    On :class:`~palaestra.train.core.agent.Agent`'s skeleton: every vector step acts
    (``_act``), stores the valid transitions in :attr:`buffer`, runs ``_on_step`` and,
    every ``train_freq`` vector steps once ``learning_starts`` env steps are taken, one
    training round (``_train``); a statistics row comes every ``log_interval`` env steps
    and at the end. Subclasses set :attr:`algo` and :attr:`config_class` and implement
    ``_build`` (networks, optimizers, buffer, backend), ``_act(obs, progress) ->
    (stored_actions, env_actions)``, ``_train()``, ``_greedy(obs, deterministic)``,
    ``_networks_state()`` and ``_load_networks(state)``.

    Args:
        policy: ``"MlpPolicy"`` (the only network family these trainers build).
        env: an env id, a vector env (``NEXT_STEP`` autoreset) or a single env.
        config: a full config, used instead of the env's preset.
        monitor: an optional :class:`~palaestra.train.diagnostics.TrainingMonitor`.
        **hyper_parameters: config fields overriding the preset (or ``config``).

    Raises:
        ValueError: for a policy other than ``"MlpPolicy"`` or non-``Box`` observations.
    """

    def _setup(self, policy: Any) -> None:
        name = type(self).__name__
        if policy != "MlpPolicy":
            raise ValueError(f"{name} builds MLPs only: pass policy='MlpPolicy', got {policy!r}.")
        self.policy_name = policy
        self.obs_dim = flat_box_dim(self.observation_space, name)
        self._train_after = self.config.learning_starts  # env steps before the first update
        self._last: dict[str, float] = {}
        self._build()

    buffer: ReplayBuffer

    def _build(self) -> None:
        """Build the networks, optimizers and :attr:`buffer`; choose the backend."""
        raise NotImplementedError

    def _act(self, observations: np.ndarray, progress: float) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(stored_actions, env_actions)`` for a batch of flat observations."""
        raise NotImplementedError

    def _train(self) -> None:
        """Run one training round (``gradient_steps`` updates)."""
        raise NotImplementedError

    def _prepare_observations(self, observations: Any) -> np.ndarray:
        return self._flat(observations)

    def _flat(self, observations: Any) -> np.ndarray:
        return np.asarray(observations, dtype=np.float32).reshape(self.config.num_envs, -1)

    def _train_steps(self, per_env: int, started: float) -> Iterator[dict[str, Any]]:
        cfg = self.config
        n = cfg.num_envs
        log_every = max(1, cfg.log_interval // n)
        env, buffer, check = self.env, self.buffer, cfg.check_finite
        learning_starts = self._train_after
        for step in range(1, per_env + 1):
            observations = self._observations
            stored, env_actions = self._act(observations, (step - 1) / per_env)
            next_obs, rewards, terminated, truncated, _ = env.step(env_actions)
            self.num_steps += n
            if check:
                check_finite_observations(next_obs, self.num_steps)
                check_finite_rewards(rewards, self.num_steps)
            next_flat = self._flat(next_obs)
            valid = self._masks.step(terminated, truncated).valid
            buffer.add(observations, stored, rewards, next_flat, terminated, valid)
            self._observations = next_flat
            self._on_step(step)
            if step % cfg.train_freq == 0 and self.num_steps > learning_starts:
                self._train()
            if step % log_every == 0 or step == per_env:
                yield self._stats(started)

    def _on_step(self, step: int) -> None:
        """Run a hook after every vector step (target-network updates)."""

    def _stats(self, started: float) -> dict[str, Any]:
        stats: dict[str, Any] = dict(self._last)
        stats.update(self._episode_stats(started))
        stats["steps_per_second"] = self.num_steps / max(stats["time"], 1e-9)
        return stats

    def _actor(self) -> Any:
        return self

    def act(self, observations: Any, deterministic: bool) -> np.ndarray:
        """Env actions for a batch of observations."""
        flat = np.asarray(observations, dtype=np.float32).reshape(len(observations), -1)
        return self._greedy(flat, deterministic)

    def _greedy(self, observations: np.ndarray, deterministic: bool) -> np.ndarray:
        raise NotImplementedError

    def load_state(self, state: dict[str, Any]) -> None:
        """Load weights, optimizers and step counters from a checkpoint dict.

        Checkpoints hold no replay buffer (as Stable-Baselines3's by default):
        ``learning_starts`` new transitions are collected before the next update
        (``palaestra train --resume`` goes through here).
        """
        super().load_state(state)
        self._train_after = self.num_steps + self.config.learning_starts
