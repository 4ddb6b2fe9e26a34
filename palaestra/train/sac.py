"""Soft Actor-Critic: twin critics, automatic entropy tuning, a tanh-squashed Gaussian.

The actor outputs a Gaussian's mean and log standard deviation (clamped to ``[-20, 2]``);
actions are ``tanh`` of a sample, scaled to the action box, and their log-probability
includes the ``tanh`` change of variables (with Stable-Baselines3's ``1e-6`` inside the
logarithm). The entropy coefficient used in a gradient step's losses is its value before
that step's update, as in Stable-Baselines3. The target critics follow by Polyak averaging,
and the entropy coefficient is learned towards ``-dim(action)`` unless fixed.
The losses are defined once, for autograd, as :meth:`SAC.critic_loss` and
:meth:`SAC.actor_loss`; the actor's reads the critics through detached weights, so its
backward pass does not compute critic weight gradients that would be thrown away. Unless a
subclass overrides them, :class:`~palaestra.train.sac_gradients.SACGradients` computes the
same gradients by hand (the ``"compiled"``/``"hand-written"`` backends). Acting reads NumPy
views of the actor's weights.

Example:
    >>> from palaestra.train.sac import SAC
    >>> agent = SAC("MlpPolicy", "Pendulum-v1", learning_starts=32, batch_size=16,
    ...             hidden_sizes=(16,))
    >>> agent = agent.learn(64, progress_bar=False)
    >>> agent.num_steps, agent.predict(np.zeros(3, np.float32)).shape
    (64, (1,))
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from palaestra.train._mlp_kernels import COMPILED_INPUT, numba_installed
from palaestra.train._torch import require_torch
from palaestra.train.core.backend import AUTOGRAD, BackendChoice, choose_backend, overridden_methods
from palaestra.train.core.config import CommonConfig
from palaestra.train.core.optim import AdamStep, polyak_update, private_torch_apis
from palaestra.train.distributions import is_box
from palaestra.train.offpolicy import OffPolicyAgent, ReplayBuffer
from palaestra.train.sac_gradients import SACGradients
from palaestra.train.sac_networks import (
    SquashedGaussianActor,
    TwinCritic,
)

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()


STATISTICS = ("loss", "q_loss", "actor_loss", "ent_coef")
"""The statistics a SAC update reports (every backend reports the same)."""


@dataclasses.dataclass
class SACConfig(CommonConfig):
    """Hyper-parameters of :class:`SAC` (Stable-Baselines3's defaults unless noted).

    The shared fields are documented on :class:`~palaestra.train.core.config.CommonConfig`
    (here ``learning_rate`` is the step size of the actor, the critics and the entropy
    coefficient, and ``fast_path=True``, the default, takes the hand-written backend
    wherever it applies). ``SAC(policy, "Pendulum-v1")`` starts from the env's preset
    instead (rl-zoo's tuned set), as ``palaestra train --algo sac`` does.

    Attributes:
        buffer_size: transitions the replay buffer keeps.
        learning_starts: env steps of uniform random actions before training.
        tau: Polyak rate of the target critics.
        train_freq: vector steps between training rounds.
        gradient_steps: gradient steps per training round.
        ent_coef: ``"auto"`` (learned, starting at 1), ``"auto_<x>"`` (learned, starting
            at x) or a fixed float.
        target_entropy: ``"auto"`` (``-dim(action)``) or a float.
        target_update_interval: gradient steps between target updates.
        log_interval: env steps between statistics rows (and callback calls).

    Example:
        >>> SACConfig().tau
        0.005
    """

    positive_ints = ("buffer_size", "train_freq", "gradient_steps")

    learning_rate: float = 3e-4
    buffer_size: int = 1_000_000
    learning_starts: int = 100
    batch_size: int = 256
    tau: float = 0.005
    train_freq: int = 1
    gradient_steps: int = 1
    ent_coef: Any = "auto"
    target_entropy: Any = "auto"
    target_update_interval: int = 1
    fast_path: bool | None = True
    hidden_sizes: tuple[int, ...] | None = (256, 256)
    log_interval: int = 1000

    def __post_init__(self) -> None:
        super().__post_init__()
        _initial_ent_coef(self.ent_coef)


class SACBatch(NamedTuple):
    """One minibatch of SAC's training data.

    Attributes:
        observations: ``(batch, obs_dim)``.
        actions: the stored actions, in ``[-1, 1]`` (before scaling to the box).
        rewards: ``(batch,)``.
        next_observations: ``(batch, obs_dim)``.
        discounts: ``gamma * (1 - terminated)``, ``(batch,)``.

    Example:
        >>> SACBatch(*range(5)).next_observations
        3
    """

    observations: Any
    actions: Any
    rewards: Any
    next_observations: Any
    discounts: Any


def _initial_ent_coef(value: Any) -> tuple[bool, float]:
    """``(learned, initial value)`` of an ``ent_coef`` setting."""
    if isinstance(value, str):
        if value == "auto":
            return True, 1.0
        if value.startswith("auto_"):
            try:
                return True, float(value[5:])
            except ValueError:
                pass
        raise ValueError(f"ent_coef must be 'auto', 'auto_<float>' or a float, got {value!r}.")
    if not float(value) > 0:
        raise ValueError(f"ent_coef must be positive, got {value!r}.")
    return False, float(value)


class SAC(OffPolicyAgent):
    """Soft Actor-Critic for bounded ``Box`` actions and ``Box`` observations.

    Args:
        policy: ``"MlpPolicy"``.
        env: an env id, a vector env (``NEXT_STEP`` autoreset) or a single env.
        config: a full :class:`SACConfig`, used instead of the env's preset.
        monitor: an optional :class:`~palaestra.train.diagnostics.TrainingMonitor`.
        **hyper_parameters: :class:`SACConfig` fields overriding the preset.

    Raises:
        ValueError: for non-``Box`` or unbounded action spaces.

    Example:
        >>> agent = SAC("MlpPolicy", "Pendulum-v1", hidden_sizes=(8,))
        >>> agent.target_entropy, agent.ent_coef()
        (-1.0, 1.0)
    """

    algo = "sac"
    config_class = SACConfig

    def _build(self) -> None:
        cfg = self.config
        space = self.action_space
        if not is_box(space) or not (
            np.isfinite(space.low).all() and np.isfinite(space.high).all()
        ):
            raise ValueError(
                f"SAC needs a bounded Box action space, got {space}; use DQN or PPO for "
                "discrete actions."
            )
        device = self.device
        self.action_dim = int(np.prod(space.shape))
        low = space.low.astype(np.float32).ravel()
        high = space.high.astype(np.float32).ravel()
        self._scale, self._offset = (high - low) / 2.0, (high + low) / 2.0
        self.actor = SquashedGaussianActor(self.obs_dim, self.action_dim, cfg.hidden_sizes or ())
        self.critic = TwinCritic(self.obs_dim + self.action_dim, cfg.hidden_sizes or ())
        self.critic_target = TwinCritic(self.obs_dim + self.action_dim, cfg.hidden_sizes or ())
        self.critic_target.load_state_dict(self.critic.state_dict())
        self.critic_target.requires_grad_(False)
        for module in (self.actor, self.critic, self.critic_target):
            module.to(device)
        fused = device.type in ("cpu", "cuda")
        self.actor_optimizer = torch.optim.Adam(
            self.actor.parameters(), lr=cfg.learning_rate, fused=fused
        )
        self.critic_optimizer = torch.optim.Adam(
            self.critic.parameters(), lr=cfg.learning_rate, fused=fused
        )
        self.learn_ent_coef, initial = _initial_ent_coef(cfg.ent_coef)
        self.log_ent_coef = torch.tensor([math.log(initial)], device=device, requires_grad=True)
        self.ent_coef_optimizer = (
            torch.optim.Adam([self.log_ent_coef], lr=cfg.learning_rate, fused=fused)
            if self.learn_ent_coef
            else None
        )
        self.target_entropy = (
            -float(self.action_dim) if cfg.target_entropy == "auto" else float(cfg.target_entropy)
        )
        self._steps = [
            AdamStep(optimizer)
            for optimizer in (
                self.actor_optimizer,
                self.critic_optimizer,
                self.ent_coef_optimizer or self.actor_optimizer,
            )
        ]
        self._critic_parameters = list(self.critic.parameters())
        self._target_parameters = list(self.critic_target.parameters())
        self.buffer = ReplayBuffer(cfg.buffer_size, self.obs_dim, (self.action_dim,), np.float32)
        self._numpy_actor = self.actor.numpy_forward() if device.type == "cpu" else None
        self._gradient_steps_done = 0
        # Made at the first training round (the compiled kernels load then, not for an
        # agent that only acts or is evaluated).
        self._gradients: SACGradients | None = None
        self._use_backend(self._choose_backend())

    def _choose_backend(self) -> BackendChoice:
        """Choose :class:`SACGradients` where it equals the losses, else autograd."""
        cfg = self.config
        reasons = [
            f"{type(self).__name__}.{name} overrides SAC's"
            for name in overridden_methods(self, SAC, ["critic_loss", "actor_loss"])
        ]
        if not cfg.hidden_sizes:
            reasons.append("the networks have no hidden layer")
        if not private_torch_apis():
            reasons.append(f"torch {torch.__version__} is not a release it was tested with")
        choice = choose_backend("hand-written", reasons, None if cfg.fast_path else False)
        if choice.name == AUTOGRAD:
            return choice
        narrow = self.obs_dim + self.action_dim <= COMPILED_INPUT
        if self.device.type == "cpu" and narrow and numba_installed():
            return BackendChoice("compiled", f"{choice.reason}; numba's compiled loops")
        return BackendChoice(choice.name, f"{choice.reason}; torch operations")

    def ent_coef(self) -> float:
        """Return the current entropy coefficient."""
        return float(self.log_ent_coef.detach().exp())

    def _to_env(self, unit_actions: np.ndarray) -> np.ndarray:
        shape = self.action_space.shape
        scaled = self._offset + self._scale * unit_actions
        return scaled.astype(np.float32).reshape(len(unit_actions), *shape)

    def _unit_actions(self, observations: np.ndarray, deterministic: bool) -> np.ndarray:
        if self._numpy_actor is not None:
            mean, log_std = self._numpy_actor(observations)
        else:
            with torch.no_grad():
                mean_t, log_std_t = self.actor(torch.as_tensor(observations, device=self.device))
            mean, log_std = mean_t.cpu().numpy(), log_std_t.cpu().numpy()
        if deterministic:
            return np.tanh(mean)
        return np.tanh(mean + np.exp(log_std) * self.rng.standard_normal(mean.shape))

    def _act(self, observations: np.ndarray, progress: float) -> tuple[np.ndarray, np.ndarray]:
        if self.num_steps < self.config.learning_starts:
            unit = self.rng.uniform(-1.0, 1.0, size=(len(observations), self.action_dim))
        else:
            unit = self._unit_actions(observations, deterministic=False)
        unit = unit.astype(np.float32)
        return unit, self._to_env(unit)

    def _greedy(self, observations: np.ndarray, deterministic: bool) -> np.ndarray:
        return self._to_env(self._unit_actions(observations, deterministic))

    def _train(self) -> None:
        cfg = self.config
        device = self.device
        batches = self.buffer.sample_batches(cfg.gradient_steps, cfg.batch_size, self.rng, device)
        with torch.no_grad():
            discounts = (1.0 - batches[4]).mul_(cfg.gamma)
        if self._gradients is None and self.backend != AUTOGRAD:
            compiled = None if self.backend == "compiled" else False
            self._gradients = SACGradients(
                self.actor, self.critic, self.critic_target, compiled=compiled
            )
        step = self._fast_step if self._gradients is not None else self._autograd_step
        for i in range(cfg.gradient_steps):
            obs, actions, rewards, next_obs = (part[i] for part in batches[:4])
            batch = SACBatch(obs, actions, rewards, next_obs, discounts[i])
            critic_loss, actor_loss, ent_coef = step(batch)
            self.num_updates += 1
            if self.num_updates % cfg.target_update_interval == 0:
                polyak_update(self._critic_parameters, self._target_parameters, cfg.tau)
        critic_value, actor_value = float(critic_loss.detach()), float(actor_loss.detach())
        values = (critic_value + actor_value, critic_value, actor_value, float(ent_coef))
        self._last = {**dict(zip(STATISTICS, values)), "learning_rate": cfg.learning_rate}

    def _ent_coef_update(self, log_probs: torch.Tensor, by_hand: bool = False) -> torch.Tensor:
        """Step the entropy coefficient; return its value before the step (as SB3 uses).

        The loss is ``-mean(log_ent_coef * (log_prob + target_entropy))``; ``by_hand``
        writes its gradient, ``-mean(log_prob + target_entropy)``, without autograd.
        """
        ent_coef = self.log_ent_coef.detach().exp()
        if self.learn_ent_coef and by_hand:
            with torch.no_grad():
                self.log_ent_coef.grad = (log_probs + self.target_entropy).mean().neg().reshape(1)
            self._steps[2]()
        elif self.ent_coef_optimizer is not None:
            ent_coef_loss = -(self.log_ent_coef * (log_probs.detach() + self.target_entropy)).mean()
            self.ent_coef_optimizer.zero_grad(set_to_none=True)
            ent_coef_loss.backward()
            self._steps[2]()
        return ent_coef

    def critic_loss(self, batch: SACBatch, ent_coef: Any) -> tuple[Any, dict[str, Any]]:
        """SAC's critic loss on one minibatch, for autograd (the definition backends follow).

        ``0.5 * sum over both critics of mean((Q_i(obs, action) - target)^2)`` with the
        soft target ``reward + discount * (min_i Q_target_i(next, a') - ent_coef *
        log_prob(a'))`` for ``a'`` sampled from the actor at the next observations (no
        gradient through the target). Override it (or :meth:`actor_loss`) in a subclass
        to change the objective; the hand-written backend then steps aside.

        Args:
            batch: the minibatch.
            ent_coef: the entropy coefficient (its value before this step's update).

        Returns:
            ``(loss, stats)``: the scalar loss and ``{"q_loss": detached loss}``.

        Example:
            >>> agent = SAC("MlpPolicy", "Pendulum-v1", hidden_sizes=(8,))
            >>> batch = SACBatch(torch.zeros(2, 3), torch.zeros(2, 1), torch.ones(2),
            ...                  torch.zeros(2, 3), torch.full((2,), 0.99))
            >>> loss, stats = agent.critic_loss(batch, torch.tensor(0.1))
            >>> list(stats), loss.requires_grad
            (['q_loss'], True)
        """
        with torch.no_grad():
            next_actions, next_log_probs = self.actor.sample(batch.next_observations)
            next_q = self.critic_target(batch.next_observations, next_actions).min(0).values
            next_q = next_q - ent_coef * next_log_probs
            target = torch.addcmul(batch.rewards, batch.discounts, next_q)
        q = self.critic(batch.observations, batch.actions)
        loss = 0.5 * (q - target).square().mean(1).sum()
        return loss, {"q_loss": loss.detach()}

    def actor_loss(
        self, batch: SACBatch, actions: Any, log_probs: Any, ent_coef: Any
    ) -> tuple[Any, dict[str, Any]]:
        """SAC's actor loss on one minibatch, for autograd (the definition backends follow).

        ``mean(ent_coef * log_prob(a) - min_i Q_i(obs, a))`` for actions ``a`` sampled
        (reparameterized) from the actor at the observations; the critics are read
        through detached weights, so only the actor gets gradients.

        Args:
            batch: the minibatch.
            actions: the actor's sampled actions at ``batch.observations`` (with their
                graph), drawn before this step's critic update.
            log_probs: their log-probabilities (with their graph).
            ent_coef: the entropy coefficient (its value before this step's update).

        Returns:
            ``(loss, stats)``: the scalar loss and ``{"actor_loss": detached loss}``.

        Example:
            >>> agent = SAC("MlpPolicy", "Pendulum-v1", hidden_sizes=(8,))
            >>> batch = SACBatch(torch.zeros(2, 3), torch.zeros(2, 1), torch.ones(2),
            ...                  torch.zeros(2, 3), torch.full((2,), 0.99))
            >>> actions, log_probs = agent.actor.sample(batch.observations)
            >>> list(agent.actor_loss(batch, actions, log_probs, torch.tensor(0.1))[1])
            ['actor_loss']
        """
        q_pi = self.critic(batch.observations, actions, detach_weights=True).min(0).values
        loss = (ent_coef * log_probs - q_pi).mean()
        return loss, {"actor_loss": loss.detach()}

    def _autograd_step(self, batch: SACBatch) -> tuple[Any, Any, Any]:
        """One gradient step with autograd; return ``(critic loss, actor loss, ent_coef)``."""
        actor_step, critic_step, _ = self._steps
        pi_actions, pi_log_probs = self.actor.sample(batch.observations)
        ent_coef = self._ent_coef_update(pi_log_probs)
        critic_loss, _ = self.critic_loss(batch, ent_coef)
        self.critic_optimizer.zero_grad(set_to_none=True)
        critic_loss.backward()
        self._check_update(critic_loss, critic_loss.detach())
        critic_step()
        actor_loss, _ = self.actor_loss(batch, pi_actions, pi_log_probs, ent_coef)
        self.actor_optimizer.zero_grad(set_to_none=True)
        actor_loss.backward()
        actor_step()
        return critic_loss, actor_loss, ent_coef

    def _fast_step(self, batch: SACBatch) -> tuple[Any, Any, Any]:
        """Take the same step through :class:`SACGradients` (no autograd graph)."""
        obs_t, actions, rewards, next_t, discount = batch
        actor_step, critic_step, _ = self._steps
        gradients = self._gradients
        assert gradients is not None  # made by _train for the hand-written backends
        _, pi_log_probs, next_actions, next_log_probs = gradients.sample(obs_t, next_t)
        ent_coef = self._ent_coef_update(pi_log_probs, by_hand=True)
        target = gradients.target(next_t, next_actions, next_log_probs, rewards, discount, ent_coef)
        critic_loss = gradients.critic_gradients(obs_t, actions, target)
        self._check_update(critic_loss, critic_loss)
        critic_step()
        actor_loss = gradients.actor_gradients(obs_t, ent_coef)
        actor_step()
        return critic_loss, actor_loss, ent_coef

    def _networks_state(self) -> dict[str, Any]:
        state = {
            "model": self.actor.state_dict(),
            "critic": self.critic.state_dict(),
            "critic_target": self.critic_target.state_dict(),
            "log_ent_coef": self.log_ent_coef.detach().clone(),
            "actor_optimizer": self.actor_optimizer.state_dict(),
            "critic_optimizer": self.critic_optimizer.state_dict(),
        }
        if self.ent_coef_optimizer is not None:
            state["ent_coef_optimizer"] = self.ent_coef_optimizer.state_dict()
        return state

    def _load_networks(self, state: dict[str, Any]) -> None:
        self.actor.load_state_dict(state["model"])
        self.critic.load_state_dict(state["critic"])
        self.critic_target.load_state_dict(state["critic_target"])
        with torch.no_grad():
            self.log_ent_coef.copy_(torch.as_tensor(state["log_ent_coef"]))
        self.actor_optimizer.load_state_dict(state["actor_optimizer"])
        self.critic_optimizer.load_state_dict(state["critic_optimizer"])
        if self.ent_coef_optimizer is not None and "ent_coef_optimizer" in state:
            self.ent_coef_optimizer.load_state_dict(state["ent_coef_optimizer"])


class _SACActor:
    def __init__(self, actor: Any, scale: np.ndarray, offset: np.ndarray, shape: tuple):
        self.actor, self.scale, self.offset, self.shape = actor, scale, offset, shape

    @torch.no_grad()
    def act(self, observations: Any, deterministic: bool) -> np.ndarray:
        obs = torch.as_tensor(np.asarray(observations, np.float32)).reshape(len(observations), -1)
        if deterministic:
            unit = torch.tanh(self.actor(obs)[0])
        else:
            unit = self.actor.sample(obs)[0]
        scaled = self.offset + self.scale * unit.numpy()
        return scaled.astype(np.float32).reshape(len(obs), *self.shape)


def sac_actor(state: dict[str, Any], observation_space: Any, action_space: Any) -> Any:
    """Return an actor rebuilt from a SAC checkpoint (for ``palaestra eval``).

    Example:
        >>> agent = SAC("MlpPolicy", "Pendulum-v1", hidden_sizes=(8,))
        >>> actor = sac_actor(agent.state(), agent.observation_space, agent.action_space)
        >>> actor.act(np.zeros((2, 3)), True).shape
        (2, 1)
    """
    hidden = tuple(state["config"]["hidden_sizes"])
    obs_dim = int(np.prod(observation_space.shape))
    action_dim = int(np.prod(action_space.shape))
    actor = SquashedGaussianActor(obs_dim, action_dim, hidden)
    actor.load_state_dict(state["model"])
    actor.eval()
    low = action_space.low.astype(np.float32).ravel()
    high = action_space.high.astype(np.float32).ravel()
    return _SACActor(actor, (high - low) / 2.0, (high + low) / 2.0, action_space.shape)
