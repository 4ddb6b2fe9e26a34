"""Proximal Policy Optimization on a vector environment, with an SB3-shaped API.

``PPO(policy, env, **hyper_parameters)`` trains a policy module (see
:mod:`palaestra.train.policies`) on one loss, :meth:`PPO.loss` (clipped surrogate, value
loss, entropy bonus), written for autograd: override it in a subclass to change the
objective. For the shipped ``"MlpPolicy"`` on flat ``Box`` observations with ``Discrete``
or ``Box`` actions, two hand-written backends compute the same gradients without autograd
(:mod:`palaestra.train.core.backend`; ``tests/train/test_backends.py`` checks each against
autograd on the loss); they step aside for an overridden loss, another policy, or a dtype
or torch release they were not written for, and ``fast_path=False`` turns them off.
:attr:`PPO.backend` and :attr:`PPO.backend_reason` say which one trains and why. They are
lean because for small networks the time goes to per-call overhead rather than arithmetic:

- acting uses a NumPy view of the policy weights (no torch dispatch per env step) and
  preallocated NumPy buffers; log-probabilities and values of the whole rollout are then
  computed in one batched torch pass;
- the policy and value networks are stacked so each layer is one batched matrix product,
  and their gradients are written out by hand: with numba (the ``fast`` extra) as compiled
  loops around NumPy products into reused buffers (the ``"compiled"`` backend,
  :class:`~palaestra.train.ppo_gradients.PPOGradients`), else as torch operations (the
  ``"hand-written"`` backend, :meth:`ActorCritic.backward
  <palaestra.train.networks.ActorCritic.backward>`);
- a rollout that fits in one minibatch is gathered and advantage-normalized once per
  update instead of once per epoch;
- torch runs one intra-op thread (thread hand-off costs more than it saves here), and Adam
  is the fused kernel, stepped without ``Adam.step``'s per-call Python
  (:class:`~palaestra.train.core.optim.AdamStep`).

On autograd, the shipped policies keep their gradients in one flat buffer
(:class:`~palaestra.train.core.optim.FlatGradients`) and act with the policy's NumPy
``act_numpy`` where it has one.

Hyper-parameters start from the env's preset (:mod:`palaestra.train.presets`, the same the
command line uses), then ``config`` replaces them and keyword arguments override fields.

Example:
    >>> from palaestra.train.ppo import PPO
    >>> agent = PPO("MlpPolicy", "CartPole-v1", num_envs=2, n_steps=8, batch_size=16)
    >>> agent = agent.learn(total_timesteps=30, progress_bar=False)
    >>> agent.num_steps, agent.backend in ("compiled", "hand-written")
    (30, True)
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.buffer import RolloutBuffer, minibatches
from palaestra.train.core.backend import AUTOGRAD, BackendChoice, choose_backend, overridden_methods
from palaestra.train.core.optim import AdamStep, clip_grad_norm, make_adam, private_torch_apis
from palaestra.train.core.predict import is_single_observation, predict_with
from palaestra.train.core.setup import resolve_config, resolve_device, seed_everything
from palaestra.train.diagnostics import NonFiniteError
from palaestra.train.distributions import CategoricalHead, GaussianHead
from palaestra.train.networks import ActorCritic
from palaestra.train.onpolicy import OnPolicyAgent, OnPolicyConfig, RolloutBatch
from palaestra.train.onpolicy import policy_actor as ppo_actor
from palaestra.train.policies import is_image_space
from palaestra.train.ppo_gradients import PPOGradients

__all__ = [
    "PPO",
    "STATISTICS",
    "PPOBatch",
    "PPOConfig",
    "is_single_observation",
    "ppo_actor",
    "predict_with",
    "resolve_config",
    "resolve_device",
    "seed_everything",
]

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()
F = torch.nn.functional

STATISTICS = ("loss", "policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction")
"""The statistics :meth:`PPO.loss` returns, in order (every backend returns the same)."""


@dataclasses.dataclass
class PPOConfig(OnPolicyConfig):
    """Hyper-parameters of :class:`PPO` (Stable-Baselines3's defaults unless noted).

    The fields every trainer has are documented on
    :class:`~palaestra.train.core.config.CommonConfig`, the on-policy ones (``n_steps``,
    ``gae_lambda``, ``anneal_lr``, ``ent_coef``, ``vf_coef``, ``max_grad_norm``,
    ``normalize_advantage``, ``features_dim``, ``squash``, ``log_std_init``) on
    :class:`~palaestra.train.onpolicy.OnPolicyConfig`. ``PPO(policy, "CartPole-v1")``
    does not start from these defaults but from the env's preset
    (:func:`palaestra.train.presets.preset`), exactly as ``palaestra train`` does.

    Attributes:
        n_epochs: passes over each rollout.
        clip_range: surrogate clipping of the probability ratio.
        clip_range_vf: clipping of the value change around the old value; ``None`` turns
            value clipping off.
        target_kl: stop an update's epochs early, before the step of the first minibatch
            whose approximate KL divergence from the rollout's policy exceeds
            ``1.5 * target_kl`` (Stable-Baselines3's rule); ``None`` never stops early.

    Example:
        >>> PPOConfig(n_steps=32, batch_size=256).n_epochs
        10
        >>> PPOConfig(target_kl=0.0)
        Traceback (most recent call last):
        ...
        ValueError: PPOConfig.target_kl must be positive or None, got 0.0.
    """

    positive_ints = ("n_epochs",)

    n_epochs: int = 10
    clip_range: float = 0.2
    clip_range_vf: float | None = None
    target_kl: float | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.target_kl is not None and not self.target_kl > 0:
            raise ValueError(
                f"PPOConfig.target_kl must be positive or None, got {self.target_kl!r}."
            )


PPOBatch = RolloutBatch
"""One minibatch of PPO's training data (:class:`~palaestra.train.onpolicy.RolloutBatch`)."""


class PPO(OnPolicyAgent):
    """PPO with clipped surrogate and value losses, GAE and minibatch epochs.

    Episodes cut by a time limit are bootstrapped with the value of their final observation,
    which the ``NEXT_STEP`` autoreset convention returns as the ordinary next observation;
    the reset step that follows an episode end is masked out of training.

    Args:
        policy: ``"MlpPolicy"``, ``"CnnPolicy"``, ``"MultiInputPolicy"``, ``"auto"`` (picked
            from the observation space) or an ``nn.Module`` following the policy contract of
            :mod:`palaestra.train.policies`.
        env: an env id (made with :func:`palaestra.make_vec`, using the env's native batched
            implementation when it has one), a vector env in ``NEXT_STEP`` autoreset mode,
            or a single env (stepped as a one-env vector env).
        config: a full :class:`PPOConfig`, used instead of the env's preset.
        monitor: an optional :class:`palaestra.train.diagnostics.TrainingMonitor`.
        **hyper_parameters: :class:`PPOConfig` fields overriding the preset (or ``config``).

    Raises:
        ValueError: if the env does not use ``NEXT_STEP`` autoreset, the policy cannot read
            the spaces, or ``fast_path=True`` does not apply (naming why).
        TypeError: for an unknown hyper-parameter or a module that is not a policy.

    Example:
        >>> agent = PPO("MlpPolicy", "CartPole-v1", num_envs=2, n_steps=8, batch_size=16)
        >>> agent.learn(16, progress_bar=False).history[-1]["updates"]
        1
        >>> agent.predict(np.zeros(4, dtype=np.float32)).shape  # one observation
        ()
        >>> agent.predict(np.zeros((2, 4), dtype=np.float32)).dtype
        dtype('int64')
    """

    algo = "ppo"
    config_class = PPOConfig

    def _setup_backend(self) -> None:
        """Take a hand-written backend where it stands in for :meth:`loss`, else autograd."""
        cfg = self.config
        choice = choose_backend("hand-written", self._backend_blockers(), cfg.fast_path)
        if choice.name != AUTOGRAD:
            self._setup_fast_path()
            if self._compiled is not None:
                choice = BackendChoice("compiled", f"{choice.reason}; numba's compiled loops")
            else:
                choice = BackendChoice(
                    choice.name, f"{choice.reason}; torch operations (numba is not installed)"
                )
        else:
            self._setup_autograd_path()
        self._use_backend(choice)
        self._stat_names: tuple[str, ...] = STATISTICS

    def _backend_blockers(self) -> list[str]:
        """Why the hand-written backends cannot stand in for :meth:`loss` here (if at all)."""
        reasons = [
            f"{type(self).__name__}.{name} overrides PPO's"
            for name in overridden_methods(self, PPO, ["loss"])
        ]
        if self.policy_name != "MlpPolicy":
            reasons.append(f"the policy is {self.policy_name}, not the shipped MlpPolicy")
        if type(self.observation_space).__name__ != "Box" or is_image_space(self.observation_space):
            reasons.append(f"observations are {self.observation_space}, not a flat Box")
        if not isinstance(getattr(self.policy, "head", None), CategoricalHead | GaussianHead):
            reasons.append(f"actions are {self.action_space}, not Discrete or Box")
        if not self.config.hidden_sizes:
            reasons.append("the MLP has no hidden layer")
        if any(p.dtype != torch.float32 for p in self.policy.parameters()):
            reasons.append("the policy is not float32")
        if not private_torch_apis():
            reasons.append(f"torch {torch.__version__} is not a release they were tested with")
        return reasons

    def _setup_fast_path(self) -> None:
        """Build the hand-written backends' stacked network, optimizer and buffer."""
        cfg = self.config
        self.head = self.policy.head
        self.model = ActorCritic.from_towers(self.policy.actor, self.policy.critic)
        self.model.to(self.device)
        self._parameters = [*self.model.parameters(), *self.head.parameters()]
        self.optimizer = make_adam(self._parameters, cfg.learning_rate, self.device, eps=1e-5)
        self._adam_step = AdamStep(self.optimizer)
        # The compiled step (numba) where it applies, else the torch fast path.
        self._compiled: Any = PPOGradients.create(self.model, self.head)
        self.obs_dim = int(np.prod(self.observation_space.shape))
        discrete = isinstance(self.head, CategoricalHead)
        action_shape = () if discrete else (self.head.num_outputs,)
        self.buffer = RolloutBuffer(cfg.n_steps, cfg.num_envs, self.obs_dim, action_shape, discrete)
        self._numpy_actor = self.model.numpy_actor() if self.device.type == "cpu" else None

    # --- training -----------------------------------------------------------------------

    def _sample(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Sample stored and env actions for one batch of flat observations (fast path)."""
        if self._numpy_actor is not None:
            return self.head.sample_numpy(self._numpy_actor(observations), self.rng)
        with torch.no_grad():
            obs = torch.as_tensor(observations, device=self.device)
            actions, _ = self.head.sample(self.model.actor(obs))
        return actions.cpu().numpy(), self.head.to_env(actions)

    def _update(self) -> dict[str, Any]:
        """Run the epochs of minibatch updates on the collected rollout; return the stats."""
        cfg = self.config
        batch = self._training_batch() if self.fast_path else self._autograd_batch()
        self.policy.train()
        watch_kl = cfg.target_kl is not None
        kl_limit = 1.5 * cfg.target_kl if watch_kl else math.inf
        reported: Any = None
        stopped = False
        for epoch in range(cfg.n_epochs):
            last_epoch = epoch == cfg.n_epochs - 1
            totals: Any = 0.0
            count = 0
            for minibatch in minibatches(batch, cfg.batch_size, self.generator):
                measured = self.compute_gradients(minibatch, measure=last_epoch or watch_kl)
                if watch_kl and float(measured[STATISTICS.index("approx_kl")]) > kl_limit:
                    stopped = True
                    if reported is None and count == 0:
                        reported = measured
                    break
                self._adam_step()
                if last_epoch or watch_kl:
                    totals = totals + measured.cpu()
                    count += 1
            if count:
                reported = totals / count
            if stopped:
                break
        self.num_updates += 1
        means = reported.tolist() if reported is not None else [math.nan] * len(STATISTICS)
        stats: dict[str, Any] = dict(zip(self._stat_names, means))
        stats["grad_norm"] = float(self._last_grad_norm)
        stats["explained_variance"] = self._explained_variance
        stats["learning_rate"] = self.optimizer.param_groups[0]["lr"]
        return stats

    def loss(self, batch: PPOBatch) -> tuple[Any, dict[str, Any]]:
        """PPO's loss on one minibatch, for autograd: the definition every backend follows.

        ``policy_loss + vf_coef * value_loss - ent_coef * entropy``: the clipped surrogate
        ``-mean(min(A * r, A * clip(r, 1 - clip_range, 1 + clip_range)))`` of the
        probability ratio ``r`` and (normalized) advantages ``A``; the squared value error
        (clipped around the old values when ``clip_range_vf`` is set); the mean entropy.
        Override it in a subclass to change PPO's objective (call ``super().loss(batch)``
        and add terms): the hand-written backends then step aside and autograd trains
        on the override.

        Args:
            batch: the minibatch.

        Returns:
            ``(loss, stats)``: the scalar loss to differentiate and a dict of detached
            scalar tensors, :data:`STATISTICS` in that order (an override may add more).

        Example:
            >>> agent = PPO("MlpPolicy", "CartPole-v1", num_envs=2, n_steps=4, batch_size=8)
            >>> observations = torch.zeros(3, 4)
            >>> actions, log_probs, _, values = agent.policy.get_action_and_value(observations)
            >>> batch = PPOBatch(observations, actions, log_probs.detach(), values.detach(),
            ...                  torch.ones(3), values.detach() + 1.0)
            >>> loss, stats = agent.loss(batch)
            >>> tuple(stats) == STATISTICS, loss.requires_grad
            (True, True)
        """
        cfg = self.config
        _, log_probs, entropy, values = self.policy.get_action_and_value(
            batch.observations, batch.actions
        )
        advantages = self._normalized(batch.advantages)
        log_ratio = log_probs - batch.old_log_probs
        ratio = log_ratio.exp()
        unclipped = advantages * ratio
        clipped = advantages * ratio.clamp(1.0 - cfg.clip_range, 1.0 + cfg.clip_range)
        policy_loss = -torch.minimum(unclipped, clipped).mean()
        if cfg.clip_range_vf is None:
            value_loss = F.mse_loss(values, batch.returns)  # one autograd node instead of three
        else:
            change = (values - batch.old_values).clamp(-cfg.clip_range_vf, cfg.clip_range_vf)
            value_loss = torch.maximum(
                (values - batch.returns).square(),
                (batch.old_values + change - batch.returns).square(),
            ).mean()
        loss = torch.add(policy_loss, value_loss, alpha=cfg.vf_coef)
        if cfg.ent_coef != 0.0:
            entropy_mean = entropy.mean()
            loss = loss - cfg.ent_coef * entropy_mean
        else:  # no entropy term in the graph: nothing to differentiate through it
            entropy_mean = entropy.detach().mean()
        with torch.no_grad():
            stats = {
                "loss": loss.detach(),
                "policy_loss": policy_loss.detach(),
                "value_loss": value_loss.detach(),
                "entropy": entropy_mean.detach(),
                "approx_kl": ((ratio - 1.0) - log_ratio).mean(),
                "clip_fraction": ((ratio - 1.0).abs() > cfg.clip_range).float().mean(),
            }
        return loss, stats

    def compute_gradients(self, minibatch: tuple[Any, ...], measure: bool = True) -> Any:
        """Write the (clipped) gradients of :meth:`loss` on one minibatch into ``.grad``.

        Through the chosen :attr:`backend`: autograd on :meth:`loss`, or a hand-written
        backend computing the same gradients.

        Args:
            minibatch: ``(observations, actions, old_log_probs, old_values, advantages,
                returns)`` (a :class:`PPOBatch`).
            measure: compute the statistics (zeros are returned otherwise, where the
                backend can skip them).

        Returns:
            The statistics as one tensor, in the order of the loss's stats (zeros when
            not measured).

        Raises:
            palaestra.train.diagnostics.NonFiniteError: with ``check_finite``, when the
                gradient norm is not finite.
        """
        if self.backend == "compiled":
            measured = self._compiled_gradients(minibatch, measure)
        elif self.backend != AUTOGRAD:
            with torch.no_grad():
                measured = self._fast_gradients(*PPOBatch(*minibatch), measure=measure)
        else:
            measured = self._autograd_gradients(PPOBatch(*minibatch), measure)
        if self.config.check_finite and not math.isfinite(float(self._last_grad_norm)):
            raise NonFiniteError(
                f"non-finite loss or gradient at update {self.num_updates + 1} (env step "
                f"{self.num_steps}): gradient norm {float(self._last_grad_norm)}."
            )
        return measured if measured is not None else torch.zeros(len(self._stat_names))

    def _autograd_gradients(self, batch: PPOBatch, measure: bool) -> Any:
        """Autograd on :meth:`loss`: backward, then clip the global gradient norm."""
        cfg = self.config
        loss, stats = self.loss(batch)
        if self._flat_grads is not None:
            self._flat_grads.zero()
            loss.backward()
            grad_norm = self._flat_grads.clip(cfg.max_grad_norm)
        else:
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            grad_norm = clip_grad_norm(self._parameters, cfg.max_grad_norm)
        self._last_grad_norm = grad_norm
        if self.monitor is not None:
            self.monitor.check_update(loss, grad_norm, step=self.num_steps)
        self._stat_names = tuple(stats)
        if not measure:
            return None
        return torch.stack([value.reshape(()) for value in stats.values()])

    @torch.no_grad()
    def _training_batch(self) -> tuple[torch.Tensor, ...]:
        """Evaluate the rollout in one batched pass and gather its valid steps as tensors."""
        buffer = self.buffer
        device = self.device
        size = buffer.size
        steps = size * buffer.num_envs
        observations_np = buffer.observations[:size].reshape(steps, -1)
        last_obs = np.asarray(self._observations, dtype=np.float32).reshape(buffer.num_envs, -1)
        actions_np = buffer.actions[:size].reshape(steps, *buffer.actions.shape[2:])
        if self._compiled is not None:
            everything_np = np.concatenate([observations_np, last_obs])
            log_probs_np, values_np = self._compiled.evaluate(everything_np, actions_np)
            return self._gather(
                torch.from_numpy(observations_np),
                torch.from_numpy(actions_np),
                torch.from_numpy(log_probs_np),
                values_np[:steps],
                values_np[steps:],
                torch.from_numpy(values_np[:steps]),
            )
        observations = torch.from_numpy(observations_np).to(device)
        everything = torch.cat([observations, torch.from_numpy(last_obs).to(device)])
        policy_out, values = self.model(everything)
        actions = torch.from_numpy(actions_np).to(device)
        log_probs, _ = self.head.log_prob_entropy(policy_out[:steps], actions)
        values_np = values.cpu().numpy()
        return self._gather(
            observations, actions, log_probs, values_np[:steps], values_np[steps:], values[:steps]
        )

    def _fast_gradients(
        self,
        observations: torch.Tensor,
        actions: torch.Tensor,
        old_log_probs: torch.Tensor,
        old_values: torch.Tensor,
        advantages: torch.Tensor,
        returns: torch.Tensor,
        measure: bool = True,
    ) -> torch.Tensor | None:
        """Write :meth:`loss`'s gradients by hand: the hand-written backend (no autograd)."""
        cfg = self.config
        size = len(advantages)
        activations = self.model.forward_activations(observations)
        policy_out, values = self.model.split_output(activations[-1])
        need_entropy = measure or self.monitor is not None or cfg.ent_coef != 0.0
        log_probs, entropy, cache = self.head.evaluate(policy_out, actions, need_entropy)
        advantages = self._normalized(advantages)
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
        grad_norm = clip_grad_norm(self._parameters, cfg.max_grad_norm)
        self._last_grad_norm = grad_norm
        if not (measure or self.monitor is not None):
            return None
        policy_loss = -torch.minimum(unclipped, clipped).mean()
        entropy_mean = entropy.mean()
        loss = policy_loss + cfg.vf_coef * value_loss - cfg.ent_coef * entropy_mean
        if self.monitor is not None:
            self.monitor.check_update(loss, grad_norm, step=self.num_steps)
        approx_kl = ((ratio - 1.0) - log_ratio).mean()
        clip_fraction = ((ratio - 1.0).abs() > cfg.clip_range).float().mean()
        return torch.stack([loss, policy_loss, value_loss, entropy_mean, approx_kl, clip_fraction])

    def _compiled_gradients(self, minibatch: tuple[Any, ...], measure: bool) -> Any:
        """Write :meth:`loss`'s gradients with the compiled loops of :mod:`.ppo_gradients`."""
        cfg = self.config
        stats, grad_norm = self._compiled(
            *minibatch,
            clip_range=cfg.clip_range,
            clip_range_vf=cfg.clip_range_vf,
            vf_coef=cfg.vf_coef,
            ent_coef=cfg.ent_coef,
            max_grad_norm=cfg.max_grad_norm,
            normalize_advantage=cfg.normalize_advantage and not self._advantages_normalized,
        )
        self._last_grad_norm = grad_norm
        if self.monitor is not None:
            self.monitor.check_update(stats[0], grad_norm, step=self.num_steps)
        return torch.from_numpy(stats.astype(np.float32)) if measure else None


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
