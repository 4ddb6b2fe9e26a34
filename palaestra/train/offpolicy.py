"""Shared parts of the off-policy trainers (DQN, SAC): replay, schedules, fast acting.

Example:
    >>> buffer = ReplayBuffer(capacity=4, obs_dim=2, action_shape=(), action_dtype=np.int64)
    >>> buffer.add(np.zeros((3, 2)), np.array([0, 1, 0]), np.ones(3), np.ones((3, 2)),
    ...            np.zeros(3, bool), np.ones(3, bool))
    >>> len(buffer)
    3
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from palaestra.train._torch import require_torch

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


def polyak_update(source: list[Any], target: list[Any], tau: float) -> None:
    """``target <- (1 - tau) * target + tau * source``, for lists of tensors, in place.

    Example:
        >>> a, b = [torch.ones(2)], [torch.zeros(2)]
        >>> polyak_update(a, b, 0.25)
        >>> b[0].tolist()
        [0.25, 0.25]
    """
    with torch.no_grad():
        if tau == 1.0:
            torch._foreach_copy_(target, source)
        else:
            torch._foreach_lerp_(target, source, tau)


def clip_grad_norm(parameters: list[Any], max_norm: float) -> Any:
    """Clip gradients to a global L2 norm of ``max_norm``; return the norm before clipping.

    Example:
        >>> p = torch.nn.Parameter(torch.zeros(2)); p.grad = torch.tensor([3.0, 4.0])
        >>> float(clip_grad_norm([p], 1.0)), [round(g, 3) for g in p.grad.tolist()]
        (5.0, [0.6, 0.8])
    """
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads)))
    if math.isfinite(max_norm):
        torch._foreach_mul_(grads, (max_norm / (total + 1e-6)).clamp(max=1.0))
    return total


NARROW_INPUT = 64
"""Input widths up to which the hand-written gradients take first-layer weight gradients
in NumPy (MKL is slow at products with a narrow side: ~80 us for a 256x256 by 256x4
product on this kind of CPU, NumPy's OpenBLAS ~6)."""


def flat_grads(parameters: list[Any]) -> tuple[Any, list[Any]]:
    """Return a zeroed flat gradient buffer for ``parameters`` and a view shaped like each.

    Hand-written gradients are written into the views, so the whole set is measured or
    scaled with one operation on the flat buffer; :func:`bind_grads` makes the views the
    parameters' ``.grad``.

    Example:
        >>> params = [torch.nn.Parameter(torch.ones(2, 3)), torch.nn.Parameter(torch.ones(3))]
        >>> flat, grads = flat_grads(params)
        >>> tuple(flat.shape), [tuple(g.shape) for g in grads]
        ((9,), [(2, 3), (3,)])
    """
    first = parameters[0]
    flat = torch.zeros(sum(p.numel() for p in parameters), dtype=first.dtype, device=first.device)
    grads, offset = [], 0
    for p in parameters:
        grads.append(flat[offset : offset + p.numel()].view_as(p))
        offset += p.numel()
    return flat, grads


def bind_grads(parameters: list[Any], grads: list[Any]) -> None:
    """Make each ``grads[i]`` the ``.grad`` of ``parameters[i]`` (where it is not already).

    Example:
        >>> p = torch.nn.Parameter(torch.ones(2))
        >>> _, grads = flat_grads([p])
        >>> bind_grads([p], grads)
        >>> p.grad is grads[0]
        True
    """
    for p, grad in zip(parameters, grads):
        if p.grad is not grad:
            p.grad = grad


class AdamStep:
    """``optimizer.step()`` of a fused ``torch.optim.Adam``, without its per-call Python work.

    The state is created as the optimizer's first step would create it; each call bumps the step
    counters and runs the same fused Adam kernel that ``Adam.step`` runs, on cached lists
    of parameters and moments (re-read when the optimizer's state is replaced, e.g. by
    ``load_state_dict``); the per-parameter step counters are made views of one tensor,
    bumped with one add. Anything else (a non-fused optimizer, several parameter groups,
    AMSGrad, ``maximize``, mixed devices or dtypes, a missing gradient) goes through
    ``optimizer.step()``. The result is bit-for-bit the same as ``optimizer.step()``.

    Args:
        optimizer: the optimizer to step.

    Example:
        >>> p = torch.nn.Parameter(torch.ones(2))
        >>> step = AdamStep(torch.optim.Adam([p], lr=0.1, fused=True))
        >>> for _ in range(2):
        ...     p.grad = torch.ones(2)
        ...     step()
        >>> [round(v, 4) for v in p.detach().tolist()]
        [0.8, 0.8]
    """

    def __init__(self, optimizer: Any):
        self.optimizer = optimizer
        self._lists: tuple[Any, ...] | None = None
        self._state: Any = None

    def _supported(self) -> bool:
        groups = self.optimizer.param_groups
        if not isinstance(self.optimizer, torch.optim.Adam) or len(groups) != 1:
            return False
        group = groups[0]
        return bool(group.get("fused")) and not (
            group["amsgrad"]
            or group["maximize"]
            or group.get("capturable")
            or group.get("differentiable")
            or group.get("decoupled_weight_decay")
        )

    def _build(self) -> tuple[Any, ...] | None:
        params = self.optimizer.param_groups[0]["params"]
        state = self.optimizer.state
        if self._supported() and not state and all(p.grad is not None for p in params):
            # A fresh Adam: create the state its first step would (fused: float32 step
            # counters on the parameter's device), so that step is not taken by
            # `optimizer.step()`, whose every call imports torch._dynamo (~2 s the first
            # time; palaestra/train/_dynamo_free.py).
            for p in params:
                state[p] = {
                    "step": torch.zeros((), dtype=torch.float32, device=p.device),
                    "exp_avg": torch.zeros_like(p, memory_format=torch.preserve_format),
                    "exp_avg_sq": torch.zeros_like(p, memory_format=torch.preserve_format),
                }
        if not self._supported() or not all(p in state and "exp_avg" in state[p] for p in params):
            return None
        kinds = {(p.device, p.dtype) for p in params}
        steps = [state[p]["step"] for p in params]
        if len(kinds) != 1 or len({(s.device, s.dtype, s.shape) for s in steps}) != 1:
            return None
        # The step counters become views of one tensor, so one add bumps them all
        # (``_foreach_add_`` on 0-d CPU tensors runs a slow per-tensor path).
        counters = torch.stack([s.detach() for s in steps])
        for index, p in enumerate(params):
            state[p]["step"] = counters[index]
        return (
            list(params),
            [state[p]["exp_avg"] for p in params],
            [state[p]["exp_avg_sq"] for p in params],
            [state[p]["step"] for p in params],
            # On the CPU a NumPy add on a view bumps them without a torch call (~5 us less).
            counters.numpy() if counters.device.type == "cpu" else counters,
        )

    def __call__(self) -> None:
        """Take one Adam step with the gradients in each parameter's ``.grad``."""
        if self._lists is None or self._state is not self.optimizer.state:
            self._lists = self._build()
            self._state = self.optimizer.state
        if self._lists is None:
            self.optimizer.step()
            return
        params, exp_avgs, exp_avg_sqs, steps, counters = self._lists
        grads = [p.grad for p in params]
        if any(g is None for g in grads):
            self.optimizer.step()
            return
        group = self.optimizer.param_groups[0]
        beta1, beta2 = group["betas"]
        with torch.no_grad():
            counters += 1
            torch._fused_adam_(
                params,
                grads,
                exp_avgs,
                exp_avg_sqs,
                [],
                steps,
                amsgrad=False,
                lr=group["lr"],
                beta1=beta1,
                beta2=beta2,
                weight_decay=group["weight_decay"],
                eps=group["eps"],
                maximize=False,
                grad_scale=None,
                found_inf=None,
            )


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


Callback = Callable[[dict[str, Any]], "bool | None"]


class OffPolicyAgent:
    """The env loop shared by the off-policy trainers (:mod:`~palaestra.train.dqn`, SAC).

    Subclasses set :attr:`algo` and :attr:`config_class` and implement ``_build`` (networks,
    optimizers), ``_act(obs, progress) -> (stored_actions, env_actions)``, ``_train()``
    (called every ``train_freq`` vector steps once ``learning_starts`` steps are taken),
    ``_greedy(obs)``, ``_networks_state()`` and ``_load_networks(state)``.

    Args:
        policy: ``"MlpPolicy"`` (the only network family these trainers build).
        env: an env id, a vector env (``NEXT_STEP`` autoreset) or a single env.
        config: a full config, used instead of the env's preset.
        monitor: an optional :class:`~palaestra.train.diagnostics.TrainingMonitor`.
        **hyper_parameters: config fields overriding the preset (or ``config``).
    """

    algo = ""
    config_class: type = object

    def __init__(
        self,
        policy: Any = "MlpPolicy",
        env: Any = None,
        config: Any = None,
        monitor: Any = None,
        **hyper_parameters: Any,
    ):
        import dataclasses

        from palaestra.train.diagnostics import TrainingMonitor
        from palaestra.train.envs import (
            NEXT_STEP,
            EpisodeTracker,
            find_wrapper,
            make_training_env,
            require_autoreset_mode,
        )
        from palaestra.train.ppo import _env_id, resolve_config, resolve_device, seed_everything

        name = type(self).__name__
        if env is None:
            raise TypeError(
                f"{name} takes (policy, env, **hyper_parameters), e.g. {name}"
                "('MlpPolicy', 'CartPole-v1')."
            )
        if policy != "MlpPolicy":
            raise ValueError(f"{name} builds MLPs only: pass policy='MlpPolicy', got {policy!r}.")
        self.policy_name = policy
        self.config = cfg = resolve_config(
            self.config_class, self.algo, env, config, hyper_parameters
        )
        torch.set_num_threads(cfg.torch_threads)
        seed_everything(cfg.seed)
        self.device = resolve_device(cfg.device)
        self.env = make_training_env(env, cfg)
        if self.env.num_envs != cfg.num_envs:
            self.config = cfg = dataclasses.replace(cfg, num_envs=self.env.num_envs)
        require_autoreset_mode(self.env, NEXT_STEP, name)
        if find_wrapper(self.env, "EpisodeTracker") is None:
            self.env = EpisodeTracker(self.env, window=cfg.window)
        self.tracker = find_wrapper(self.env, "EpisodeTracker")
        self.env_id = _env_id(self.env)
        self.monitor = monitor if monitor is not None or not cfg.diagnostics else TrainingMonitor()
        self.observation_space = self.env.single_observation_space
        self.action_space = self.env.single_action_space
        self.obs_dim = flat_box_dim(self.observation_space, name)
        self.rng = np.random.default_rng(cfg.seed)
        self.num_steps = 0
        self.num_updates = 0
        self._train_after = cfg.learning_starts  # env steps before the first update
        self.history: list[dict[str, Any]] = []
        self._observations: np.ndarray | None = None
        self._last: dict[str, float] = {}
        self._build()

    def _build(self) -> None:
        raise NotImplementedError

    def _flat(self, observations: Any) -> np.ndarray:
        return np.asarray(observations, dtype=np.float32).reshape(self.config.num_envs, -1)

    def learn(
        self, total_timesteps: int, callback: Callback | None = None, progress_bar: bool = True
    ) -> list[dict[str, Any]]:
        """Train for ``total_timesteps`` env steps (rounded up to a multiple of ``num_envs``).

        ``callback`` gets a statistics dict every ``log_interval`` env steps and at the
        end; returning ``False`` stops.

        Raises:
            ValueError: if ``total_timesteps`` is not positive.
            palaestra.train.diagnostics.NonFiniteError: with ``check_finite`` at the first
                non-finite reward, loss or gradient.
        """
        import time

        from palaestra.train.diagnostics import check_finite_observations, check_finite_rewards
        from palaestra.train.ppo import _asks_to_stop, _progress_bar

        if not isinstance(total_timesteps, (int, np.integer)) or total_timesteps < 1:
            raise ValueError(f"total_timesteps must be a positive int, got {total_timesteps!r}.")
        cfg = self.config
        n = cfg.num_envs
        per_env = math.ceil(total_timesteps / n)
        if self._observations is None:
            from palaestra.vector.episodes import EpisodeMasks

            observations, _ = self.env.reset(seed=cfg.seed)
            self._observations = self._flat(observations)
            self._masks = EpisodeMasks.of(self.env)
            self._masks.reset()
        bar = _progress_bar(per_env * n) if progress_bar else None
        log_every = max(1, cfg.log_interval // n)
        started = time.perf_counter()
        env, buffer, check = self.env, self.buffer, cfg.check_finite
        learning_starts = self._train_after
        try:
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
                    stats = self._stats(started)
                    self.history.append(stats)
                    if bar is not None:
                        bar.update(self.num_steps - bar.n)
                    if callback is not None and _asks_to_stop(callback(stats)):
                        break
        finally:
            if bar is not None:
                bar.close()
        return self.history

    def _on_step(self, step: int) -> None:
        """Run a hook after every vector step (target-network updates)."""

    def _stats(self, started: float) -> dict[str, Any]:
        import time

        elapsed = time.perf_counter() - started
        returns, lengths = self.tracker.returns, self.tracker.lengths
        stats: dict[str, Any] = dict(self._last)
        stats.update(
            steps=self.num_steps,
            updates=self.num_updates,
            episodes=self.tracker.episodes,
            mean_return=float(np.mean(returns)) if returns else math.nan,
            mean_length=float(np.mean(lengths)) if lengths else math.nan,
            time=elapsed,
            steps_per_second=self.num_steps / max(elapsed, 1e-9),
        )
        return stats

    def _check_update(self, loss: Any, grad_norm: Any) -> None:
        from palaestra.train.diagnostics import NonFiniteError

        if self.monitor is not None:
            self.monitor.check_update(loss, grad_norm, step=self.num_steps)
        if self.config.check_finite and not math.isfinite(float(grad_norm)):
            raise NonFiniteError(
                f"non-finite loss or gradient at gradient step {self.num_updates} (env step "
                f"{self.num_steps}): loss {float(loss)}, gradient norm {float(grad_norm)}."
            )

    def predict(self, observations: Any, deterministic: bool = True) -> np.ndarray:
        """Env actions for one observation or a batch (as ``PPO.predict``)."""
        from palaestra.train.ppo import predict_with

        with torch.no_grad():
            return predict_with(self, observations, self.observation_space, deterministic)

    def act(self, observations: Any, deterministic: bool) -> np.ndarray:
        """Env actions for a batch of observations."""
        flat = np.asarray(observations, dtype=np.float32).reshape(len(observations), -1)
        return self._greedy(flat, deterministic)

    def state(self) -> dict[str, Any]:
        """Return what rebuilds the agent (see :mod:`palaestra.train.checkpoint`)."""
        import dataclasses

        from palaestra.train.envs import normalization_state

        state = {
            "algo": self.algo,
            "env_id": self.env_id,
            "config": dataclasses.asdict(self.config),
            "policy": self.policy_name,
            "normalization": normalization_state(self.env),
            "steps": self.num_steps,
            "updates": self.num_updates,
        }
        state.update(self._networks_state())
        return state

    def save(self, path: Any) -> None:
        """Save the agent atomically (see :func:`~palaestra.train.checkpoint.save_agent`)."""
        from palaestra.train.checkpoint import save_agent

        save_agent(self, path)

    @classmethod
    def load(
        cls, path: Any, env: Any = None, allow_import: bool = False, **hyper_parameters: Any
    ) -> Any:
        """Rebuild a saved agent.

        Checkpoints hold no replay buffer (as Stable-Baselines3's by default): the loaded
        agent starts with an empty one and collects ``learning_starts`` transitions before
        its next update.

        Raises:
            palaestra.train.checkpoint.CheckpointError: for an unusable file or a checkpoint
                of another algorithm.
        """
        import dataclasses

        from palaestra.train.checkpoint import (
            CheckpointError,
            check_weights_fit,
            load_state,
            resolve_env_id,
        )
        from palaestra.train.ppo import _config_from_state

        state = load_state(path)
        if state["algo"] != cls.algo:
            raise CheckpointError(f"{path}: holds a {state['algo']} agent, not {cls.__name__}.")
        if env is None:
            env = resolve_env_id(state, path, allow_import)
        check_weights_fit(state, env, path)  # before the agent allocates its networks
        config = _config_from_state(cls.config_class, state["config"])
        agent = cls("MlpPolicy", env, config=dataclasses.replace(config, **hyper_parameters))
        agent.load_state(state)
        return agent

    def load_state(self, state: dict[str, Any]) -> None:
        """Load weights, optimizers and step counters from a checkpoint dict.

        The replay buffer is not in the checkpoint: ``learning_starts`` new transitions are
        collected before the next update (``palaestra train --resume`` goes through here).
        """
        from palaestra.train.envs import restore_normalization

        self._load_networks(state)
        restore_normalization(self.env, state.get("normalization", {}))
        self.num_steps = int(state.get("steps", 0))
        self.num_updates = int(state.get("updates", 0))
        self._train_after = self.num_steps + self.config.learning_starts
