"""Proximal Policy Optimization on a vector environment.

The hot loop is kept lean on purpose, because for small networks the time goes to
per-call overhead rather than arithmetic:

- acting uses a NumPy view of the policy weights (no torch dispatch per env step) and
  preallocated NumPy buffers; log-probabilities and values of the whole rollout are then
  computed in one batched torch pass;
- the policy and value networks are stacked so each layer is one batched matrix product,
  and their gradients are written out by hand (:meth:`ActorCritic.backward`), so no
  autograd graph is built;
- a rollout that fits in one minibatch is gathered and advantage-normalized once per
  update instead of once per epoch;
- torch runs one intra-op thread (thread hand-off costs more than it saves here), and Adam
  is the fused kernel.

Example:
    >>> from palaestra.train.ppo import PPO, PPOConfig
    >>> agent = PPO("CartPole-v1", PPOConfig(num_envs=2, n_steps=8, batch_size=16, n_epochs=1))
    >>> history = agent.learn(total_steps=32)
    >>> history[-1]["steps"]
    32
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.buffer import RolloutBuffer, minibatches
from palaestra.train.diagnostics import TrainingMonitor
from palaestra.train.distributions import CategoricalHead, make_head
from palaestra.train.envs import (
    NEXT_STEP,
    EpisodeTracker,
    find_wrapper,
    make_training_env,
    normalization_state,
    require_autoreset_mode,
)
from palaestra.train.networks import ActorCritic

torch = require_torch()
F = torch.nn.functional

Callback = Callable[[dict[str, Any]], "bool | None"]


@dataclasses.dataclass
class PPOConfig:
    """Hyper-parameters of :class:`PPO` (Stable-Baselines3's defaults unless noted).

    Attributes:
        num_envs: sub-envs stepped together.
        n_steps: steps per sub-env per rollout.
        batch_size: minibatch size of the updates.
        n_epochs: passes over each rollout.
        gamma: discount factor.
        gae_lambda: GAE lambda.
        learning_rate: Adam step size at the start of training.
        anneal_lr: decay the learning rate linearly to 0 over ``total_steps``.
        clip_range: surrogate clipping of the probability ratio.
        clip_range_vf: clipping of the value change around the old value; ``None`` turns
            value clipping off.
        ent_coef: weight of the entropy bonus.
        vf_coef: weight of the value loss.
        max_grad_norm: global gradient-norm clipping threshold.
        normalize_advantage: standardize advantages in each minibatch.
        normalize_observation: wrap the env in ``NormalizeObservation``.
        normalize_reward: wrap the env in ``NormalizeReward``.
        hidden_sizes: hidden widths of the policy and value networks.
        squash: squash continuous actions with ``tanh`` into the box (else clip).
        log_std_init: initial log standard deviation of continuous policies.
        seed: seeds torch, NumPy and the env; ``None`` for fresh randomness.
        device: ``"cpu"``, ``"cuda"`` or ``"auto"`` (CUDA when available).
        torch_threads: intra-op threads for torch on the CPU.
        window: episodes in the rolling mean of returns that is reported.
        diagnostics: check every env step (innermost :class:`DiagnosticsWrapper`) and every
            update (:class:`TrainingMonitor`), raising at the first problem; slower.
        step_timeout: with ``diagnostics``, seconds one env step may take.

    Example:
        >>> PPOConfig(n_steps=32, batch_size=256).n_epochs
        10
    """

    num_envs: int = 8
    n_steps: int = 2048
    batch_size: int = 64
    n_epochs: int = 10
    gamma: float = 0.99
    gae_lambda: float = 0.95
    learning_rate: float = 3e-4
    anneal_lr: bool = False
    clip_range: float = 0.2
    clip_range_vf: float | None = None
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    normalize_advantage: bool = True
    normalize_observation: bool = False
    normalize_reward: bool = False
    hidden_sizes: tuple[int, ...] = (64, 64)
    squash: bool = False
    log_std_init: float = 0.0
    seed: int | None = 0
    device: str = "cpu"
    torch_threads: int = 1
    window: int = 100
    diagnostics: bool = False
    step_timeout: float | None = None

    def __post_init__(self) -> None:
        for name in ("num_envs", "n_steps", "batch_size", "n_epochs", "window"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"PPOConfig.{name} must be a positive int, got {value!r}.")
        if self.learning_rate <= 0:
            raise ValueError(f"learning_rate must be positive, got {self.learning_rate!r}.")
        self.hidden_sizes = tuple(self.hidden_sizes)


def resolve_device(device: str) -> torch.device:
    """Turn ``"auto"`` into CUDA when available (else CPU) and validate the rest.

    Args:
        device: ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or ``"auto"``.

    Returns:
        The torch device.

    Raises:
        ValueError: if CUDA is requested but not available.

    Example:
        >>> resolve_device("cpu")
        device(type='cpu')
    """
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    resolved = torch.device(device)
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} was requested but CUDA is not available; use device='cpu'."
        )
    return resolved


def seed_everything(seed: int | None) -> None:
    """Seed Python-side randomness used in training: torch and NumPy's global generator.

    Args:
        seed: the seed; ``None`` leaves the generators as they are.

    Example:
        >>> seed_everything(3)
        >>> torch.rand(1).item() == (seed_everything(3) or torch.rand(1).item())
        True
    """
    if seed is None:
        return
    torch.manual_seed(seed)
    np.random.seed(seed % 2**32)


class PPO:
    """PPO with clipped surrogate and value losses, GAE and minibatch epochs.

    Episodes cut by a time limit are bootstrapped with the value of their final observation,
    which the ``NEXT_STEP`` autoreset convention returns as the ordinary next observation;
    the reset step that follows an episode end is masked out of training.

    Args:
        env: an env id (made with :func:`palaestra.make_vec`, using the env's native batched
            implementation when it has one) or a vector env in ``NEXT_STEP`` autoreset mode.
        config: hyper-parameters; defaults to :class:`PPOConfig`.
        monitor: an optional :class:`palaestra.train.diagnostics.TrainingMonitor` that checks
            each update's loss and gradient norm.

    Raises:
        ValueError: if the env does not use ``NEXT_STEP`` autoreset or has an unsupported
            action space.

    Example:
        >>> agent = PPO("CartPole-v1", PPOConfig(num_envs=2, n_steps=8, batch_size=16))
        >>> agent.learn(total_steps=16)[-1]["updates"]
        1
        >>> agent.predict(np.zeros((2, 4), dtype=np.float32)).dtype
        dtype('int64')
    """

    def __init__(self, env: Any, config: PPOConfig | None = None, monitor: Any = None):
        self.config = config if config is not None else PPOConfig()
        cfg = self.config
        torch.set_num_threads(cfg.torch_threads)
        seed_everything(cfg.seed)
        self.device = resolve_device(cfg.device)
        self.env = env if not isinstance(env, str) else make_training_env(env, cfg)
        if self.env.num_envs != cfg.num_envs:
            # A ready-made vector env decides the number of sub-envs.
            self.config = cfg = dataclasses.replace(cfg, num_envs=self.env.num_envs)
        require_autoreset_mode(self.env, NEXT_STEP, "PPO")
        if find_wrapper(self.env, "EpisodeTracker") is None:
            self.env = EpisodeTracker(self.env, window=cfg.window)
        self.tracker = find_wrapper(self.env, "EpisodeTracker")
        self.env_id = _env_id(self.env)
        if monitor is None and cfg.diagnostics:
            monitor = TrainingMonitor()
        self.monitor = monitor
        observation_space = self.env.single_observation_space
        self.obs_dim = int(np.prod(observation_space.shape))
        self.head = make_head(self.env.single_action_space, squash=cfg.squash).to(self.device)
        if hasattr(self.head, "log_std"):
            self.head.log_std.data.fill_(cfg.log_std_init)
        self.model = ActorCritic(self.obs_dim, self.head.num_outputs, cfg.hidden_sizes)
        self.model.to(self.device)
        self._parameters = [*self.model.parameters(), *self.head.parameters()]
        self.optimizer = torch.optim.Adam(
            self._parameters, lr=cfg.learning_rate, eps=1e-5, fused=True
        )
        discrete = isinstance(self.head, CategoricalHead)
        action_shape = () if discrete else (self.head.num_outputs,)
        self.buffer = RolloutBuffer(cfg.n_steps, cfg.num_envs, self.obs_dim, action_shape, discrete)
        self.generator = torch.Generator().manual_seed(0 if cfg.seed is None else cfg.seed)
        self.rng = np.random.default_rng(cfg.seed)
        self._numpy_actor = self.model.numpy_actor() if self.device.type == "cpu" else None
        self.num_steps = 0
        self.num_updates = 0
        self.history: list[dict[str, Any]] = []
        self._observations: np.ndarray | None = None

    def learn(self, total_steps: int, callback: Callback | None = None) -> list[dict[str, Any]]:
        """Train for ``total_steps`` env steps (counted over all sub-envs).

        Args:
            total_steps: env steps to collect; rounded up to whole rollouts.
            callback: called with each update's statistics; returning ``False`` stops.

        Returns:
            One statistics dict per update (also kept in :attr:`history`).

        Raises:
            ValueError: if ``total_steps`` is not positive.
        """
        if total_steps < 1:
            raise ValueError(f"total_steps must be positive, got {total_steps!r}.")
        cfg = self.config
        rollout_size = cfg.n_steps * cfg.num_envs
        updates = math.ceil(total_steps / rollout_size)
        if self._observations is None:
            self._reset_env()
        start = time.perf_counter()
        for update in range(updates):
            if cfg.anneal_lr:
                self._set_learning_rate(cfg.learning_rate * (1.0 - update / updates))
            self._collect_rollout()
            stats = self._update()
            stats["time"] = time.perf_counter() - start
            stats["steps_per_second"] = (update + 1) * rollout_size / stats["time"]
            self.history.append(stats)
            if callback is not None and _asks_to_stop(callback(stats)):
                break
        return self.history

    def _reset_env(self) -> None:
        observations, _ = self.env.reset(seed=self.config.seed)
        self._observations = observations
        self._previous_done = np.zeros(self.config.num_envs, dtype=bool)

    def _set_learning_rate(self, learning_rate: float) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate

    def _collect_rollout(self) -> None:
        buffer, env = self.buffer, self.env
        observations = self._observations
        for t in range(buffer.n_steps):
            obs = buffer.observations[t]
            obs[:] = observations.reshape(buffer.num_envs, -1)
            buffer.actions[t], env_actions = self._sample(obs)
            observations, rewards, terminated, truncated, _ = env.step(env_actions)
            buffer.rewards[t] = rewards
            buffer.terminated[t] = terminated
            buffer.truncated[t] = truncated
            buffer.valid[t] = ~self._previous_done
            self._previous_done = np.logical_or(terminated, truncated)
        self._observations = observations
        self.num_steps += buffer.n_steps * buffer.num_envs

    def _sample(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Sample stored and env actions for one batch of observations."""
        if self._numpy_actor is not None:
            return self.head.sample_numpy(self._numpy_actor(observations), self.rng)
        with torch.no_grad():
            obs = torch.as_tensor(observations, device=self.device)
            actions, _ = self.head.sample(self.model.actor(obs))
        return actions.cpu().numpy(), self.head.to_env(actions)

    @torch.no_grad()
    def _update(self) -> dict[str, Any]:
        cfg = self.config
        batch = self._training_batch()
        self.model.train()
        totals = torch.zeros(6)
        for epoch in range(cfg.n_epochs):
            last_epoch = epoch == cfg.n_epochs - 1
            count = 0
            for minibatch in minibatches(batch, cfg.batch_size, self.generator):
                stats = self._gradient_step(*minibatch, measure=last_epoch)
                if last_epoch:
                    totals += stats
                    count += 1
        self.num_updates += 1
        means = (totals / max(count, 1)).tolist()
        names = ("loss", "policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction")
        stats: dict[str, Any] = dict(zip(names, means))
        stats["grad_norm"] = float(self._last_grad_norm)
        stats["learning_rate"] = self.optimizer.param_groups[0]["lr"]
        stats["steps"] = self.num_steps
        stats["updates"] = self.num_updates
        stats["episodes"] = self.tracker.episodes
        returns_window = self.tracker.returns
        stats["mean_return"] = float(np.mean(returns_window)) if returns_window else math.nan
        return stats

    @torch.no_grad()
    def _training_batch(self) -> tuple[torch.Tensor, ...]:
        """Evaluate the rollout in one batched pass and gather its valid steps as tensors.

        Log-probabilities and values of the whole rollout are computed here, once, rather
        than step by step while acting; the policy did not change in between.
        """
        cfg, buffer = self.config, self.buffer
        device = self.device
        steps = buffer.n_steps * buffer.num_envs
        observations = torch.from_numpy(buffer.observations.reshape(steps, -1)).to(device)
        last_obs = np.asarray(self._observations, dtype=np.float32).reshape(buffer.num_envs, -1)
        everything = torch.cat([observations, torch.from_numpy(last_obs).to(device)])
        policy_out, values = self.model(everything)
        actions = torch.from_numpy(buffer.actions.reshape(steps, *buffer.actions.shape[2:]))
        actions = actions.to(device)
        log_probs, _ = self.head.log_prob_entropy(policy_out[:steps], actions)
        values_np = values.cpu().numpy()
        advantages, returns = buffer.compute_targets(
            values_np[:steps].reshape(buffer.n_steps, -1),
            values_np[steps:],
            cfg.gamma,
            cfg.gae_lambda,
        )
        index = torch.from_numpy(buffer.valid_index()).to(device)
        advantages = torch.from_numpy(advantages.reshape(-1)).to(device)[index]
        if cfg.normalize_advantage and len(index) <= cfg.batch_size and len(index) > 1:
            # One full-batch minibatch: normalize once instead of in every epoch.
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
            self._advantages_normalized = True
        else:
            self._advantages_normalized = False
        return (
            observations[index],
            actions[index],
            log_probs[index],
            values[:steps][index],
            advantages,
            torch.from_numpy(returns.reshape(-1)).to(device)[index],
        )

    def _gradient_step(
        self,
        observations: torch.Tensor,
        actions: torch.Tensor,
        old_log_probs: torch.Tensor,
        old_values: torch.Tensor,
        advantages: torch.Tensor,
        returns: torch.Tensor,
        measure: bool = True,
    ) -> torch.Tensor | None:
        """One optimizer step on a minibatch (called under ``torch.no_grad``).

        Returns:
            ``[loss, policy_loss, value_loss, entropy, approx_kl, clip_fraction]`` when
            ``measure`` (or a monitor is attached), else ``None``.
        """
        cfg = self.config
        size = len(advantages)
        activations = self.model.forward_activations(observations)
        policy_out, values = self.model.split_output(activations[-1])
        need_entropy = measure or self.monitor is not None or cfg.ent_coef != 0.0
        log_probs, entropy, cache = self.head.evaluate(policy_out, actions, need_entropy)
        if cfg.normalize_advantage and size > 1 and not self._advantages_normalized:
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        log_ratio = log_probs - old_log_probs
        ratio = log_ratio.exp()
        unclipped = advantages * ratio
        clipped = advantages * ratio.clamp(1.0 - cfg.clip_range, 1.0 + cfg.clip_range)
        # The surrogate's gradient flows only where the unclipped term is the minimum; by the
        # log-probability it is -advantage * ratio / size there.
        log_prob_grad = unclipped * (unclipped <= clipped) * (-1.0 / size)
        value_loss, value_grad = _value_loss_and_gradient(
            values, old_values, returns, cfg.clip_range_vf
        )
        policy_grad = self.head.output_gradient(cache, log_prob_grad, -cfg.ent_coef / size)
        self.model.backward(activations, policy_grad, value_grad * cfg.vf_coef)
        grad_norm = _clip_gradients(self._parameters, cfg.max_grad_norm)
        measured = None
        if measure or self.monitor is not None:
            policy_loss = -torch.minimum(unclipped, clipped).mean()
            entropy_mean = entropy.mean()
            loss = policy_loss + cfg.vf_coef * value_loss - cfg.ent_coef * entropy_mean
            if self.monitor is not None:
                self.monitor.check_update(loss, grad_norm, step=self.num_steps)
            approx_kl = ((ratio - 1.0) - log_ratio).mean()
            clip_fraction = ((ratio - 1.0).abs() > cfg.clip_range).float().mean()
            measured = torch.stack(
                [loss, policy_loss, value_loss, entropy_mean, approx_kl, clip_fraction]
            )
        self.optimizer.step()
        self._last_grad_norm = grad_norm
        return measured

    @torch.no_grad()
    def predict(self, observations: np.ndarray, deterministic: bool = True) -> np.ndarray:
        """Env actions for a batch of (already normalized) observations.

        Args:
            observations: array of shape ``(batch, *obs_shape)``.
            deterministic: take the most likely action instead of sampling.

        Returns:
            Actions ready for ``env.step`` of a vector env.
        """
        self.model.eval()
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32), device=self.device)
        outputs = self.model.actor(obs.reshape(len(obs), -1))
        actions = self.head.mode(outputs) if deterministic else self.head.sample(outputs)[0]
        return self.head.to_env(actions)

    def state(self) -> dict[str, Any]:
        """Return what rebuilds the trained policy (see :mod:`palaestra.train.checkpoint`)."""
        return {
            "algo": "ppo",
            "env_id": self.env_id,
            "config": dataclasses.asdict(self.config),
            "model": self.model.state_dict(),
            "head": self.head.state_dict(),
            "normalization": normalization_state(self.env),
            "steps": self.num_steps,
        }


def _env_id(env: Any) -> str | None:
    spec = getattr(env, "spec", None)
    return getattr(spec, "id", None)


def _asks_to_stop(answer: Any) -> bool:
    return answer is not None and not answer


def _value_loss_and_gradient(
    values: torch.Tensor,
    old_values: torch.Tensor,
    returns: torch.Tensor,
    clip_range_vf: float | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean squared value error (optionally clipped around the old values) and its gradient."""
    error = values - returns
    scale = 2.0 / len(values)
    if clip_range_vf is None:
        return error.square().mean(), error * scale
    change = values - old_values
    clipped_error = old_values + change.clamp(-clip_range_vf, clip_range_vf) - returns
    use_unclipped = error.square() >= clipped_error.square()
    loss = torch.where(use_unclipped, error.square(), clipped_error.square()).mean()
    # The clipped branch only moves the value while the change is inside the clip range.
    clipped_grad = clipped_error * (change.abs() <= clip_range_vf)
    return loss, torch.where(use_unclipped, error, clipped_grad) * scale


def _clip_gradients(parameters: list[torch.Tensor], max_norm: float) -> torch.Tensor:
    """Scale all gradients down together so their global L2 norm is at most ``max_norm``.

    Returns:
        The global norm before clipping, as a 0-d tensor.
    """
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads)))
    torch._foreach_mul_(grads, (max_norm / (total + 1e-6)).clamp(max=1.0))
    return total
