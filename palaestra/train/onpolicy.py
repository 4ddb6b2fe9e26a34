"""On-policy trainers: rollouts on a vector env, GAE, and a policy module trained on them.

:class:`OnPolicyAgent` is what :class:`~palaestra.train.ppo.PPO` (and any algorithm that
learns from fresh rollouts, such as A2C) shares on top of
:class:`~palaestra.train.core.agent.Agent`: building the policy module (the shipped
``"MlpPolicy"``, ``"CnnPolicy"``, ``"MultiInputPolicy"``, ``"auto"`` or your own, see
:mod:`palaestra.train.policies`), collecting ``n_steps`` per sub-env (acting with the
policy's NumPy ``act_numpy`` where it has one), GAE advantages and value targets with the
``NEXT_STEP`` reset steps masked out, learning-rate annealing, acting, saving and loading.
A subclass sets ``algo`` and ``config_class`` (an :class:`OnPolicyConfig`) and implements
``_update()`` (train on the collected rollout, return its statistics); it trains with
autograd unless it also brings a backend (``_setup_backend``, as PPO does).

Example:
    >>> from palaestra.train.ppo import PPO
    >>> isinstance(PPO("MlpPolicy", "CartPole-v1", num_envs=2, n_steps=4), OnPolicyAgent)
    True
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.buffer import RolloutBuffer, map_structure, write_at
from palaestra.train.checkpoint import CheckpointError
from palaestra.train.core.agent import Agent
from palaestra.train.core.backend import AUTOGRAD, BackendChoice
from palaestra.train.core.config import CommonConfig
from palaestra.train.core.optim import AdamStep, FlatGradients, make_adam
from palaestra.train.core.predict import HeadActor
from palaestra.train.diagnostics import check_finite_observations, check_finite_rewards
from palaestra.train.distributions import make_head
from palaestra.train.networks import ActorCritic
from palaestra.train.policies import (
    POLICY_NAMES,
    check_policy,
    default_policy_name,
    default_to_env,
    make_policy,
    observations_to_tensor,
)

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()


@dataclasses.dataclass
class OnPolicyConfig(CommonConfig):
    """The hyper-parameters of on-policy trainers (PPO's config extends this).

    The fields every trainer has are on :class:`~palaestra.train.core.config.CommonConfig`.

    Attributes:
        n_steps: steps per sub-env per rollout.
        gae_lambda: GAE lambda.
        anneal_lr: decay the learning rate linearly to 0 over each ``learn`` call.
        ent_coef: weight of the entropy bonus.
        vf_coef: weight of the value loss.
        max_grad_norm: global gradient-norm clipping threshold (``math.inf``: none).
        normalize_advantage: standardize advantages in each minibatch.
        features_dim: output width of a CNN feature extractor.
        squash: squash continuous actions with ``tanh`` into the box (else clip).
        log_std_init: initial log standard deviation of continuous policies.

    Example:
        >>> OnPolicyConfig(n_steps=0)
        Traceback (most recent call last):
        ...
        ValueError: OnPolicyConfig.n_steps must be a positive int, got 0.
    """

    positive_numbers: ClassVar[tuple[str, ...]] = ("max_grad_norm",)
    positive_ints: ClassVar[tuple[str, ...]] = ("n_steps",)

    num_envs: int = 8
    n_steps: int = 2048
    batch_size: int = 64
    gae_lambda: float = 0.95
    anneal_lr: bool = False
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    normalize_advantage: bool = True
    features_dim: int = 512
    squash: bool = False
    log_std_init: float = 0.0


class RolloutBatch(NamedTuple):
    """One minibatch of an on-policy trainer's data (rows of the rollout's valid steps).

    Attributes:
        observations: observations (a tensor, or a dict/tuple of them).
        actions: the actions taken.
        old_log_probs: their log-probabilities under the rollout's policy.
        old_values: the rollout's value estimates.
        advantages: GAE advantages (already normalized when the rollout fits in one
            minibatch and ``normalize_advantage`` is set).
        returns: value targets (advantages plus old values).

    Example:
        >>> RolloutBatch(*range(6)).advantages
        4
    """

    observations: Any
    actions: Any
    old_log_probs: Any
    old_values: Any
    advantages: Any
    returns: Any


class OnPolicyAgent(Agent):
    """The rollout loop shared by on-policy trainers (see the module docstring).

    Args:
        policy: a shipped policy name (``"MlpPolicy"``, ``"CnnPolicy"``,
            ``"MultiInputPolicy"``, ``"auto"``) or an ``nn.Module`` following
            :class:`~palaestra.train.policies.Policy`.
        env: an env id, a vector env (``NEXT_STEP`` autoreset) or a single env.
        config: a full config, used instead of the env's preset.
        monitor: an optional :class:`~palaestra.train.diagnostics.TrainingMonitor`.
        **hyper_parameters: config fields overriding the preset (or ``config``).

    Raises:
        ValueError: for an unknown policy name, or a policy that cannot read the spaces.
        TypeError: for a module that is not a policy.
    """

    config: Any
    model: Any
    """The hand-written backends' stacked network (where a subclass has them)."""

    def _setup(self, policy: Any) -> None:
        cfg = self.config
        self.policy_name, self.policy = self._build_policy(policy)
        self.policy.to(self.device)
        self._compiled: Any = None
        self._setup_backend()
        self.generator = torch.Generator().manual_seed(0 if cfg.seed is None else cfg.seed)
        self._last_grad_norm: Any = torch.zeros(())
        self._advantages_normalized = False  # set per rollout by _gather
        self._explained_variance = math.nan

    def _setup_backend(self) -> None:
        """Choose how gradients are computed (here: autograd) and build what it needs."""
        self._setup_autograd_path()
        name = type(self).__name__
        self._use_backend(BackendChoice(AUTOGRAD, f"{name} has no hand-written backend"))

    def _update(self) -> dict[str, Any]:
        """Train on the collected rollout; return the update's statistics."""
        raise NotImplementedError

    @property
    def fast_path(self) -> bool:
        """Whether a hand-written backend computes the gradients (not autograd)."""
        return self.backend != AUTOGRAD

    # --- construction -------------------------------------------------------------------

    def _build_policy(self, policy: Any) -> tuple[str, Any]:
        cfg = self.config
        if isinstance(policy, str):
            name = policy
            if name == "auto":
                name = default_policy_name(self.observation_space)
            if name not in POLICY_NAMES:
                raise ValueError(
                    f"Unknown policy {policy!r}; use one of {(*POLICY_NAMES, 'auto')} or an "
                    "nn.Module (PPO takes (policy, env, **hyper_parameters))."
                )
            module = make_policy(
                name,
                self.observation_space,
                self.action_space,
                hidden_sizes=cfg.hidden_sizes,
                squash=cfg.squash,
                log_std_init=cfg.log_std_init,
                features_dim=cfg.features_dim,
            )
            return name, module
        check_policy(policy)
        return "custom", policy

    def _setup_autograd_path(self) -> None:
        cfg = self.config
        self._parameters = list(self.policy.parameters())
        self.optimizer = make_adam(self._parameters, cfg.learning_rate, self.device, eps=1e-5)
        self._adam_step = AdamStep(self.optimizer)
        self._compiled = None
        # The shipped policies give every parameter a gradient: theirs can live in one flat
        # buffer (one fill to zero, one dot product for the norm).
        shipped = self.policy_name in POLICY_NAMES
        on_cpu = all(p.device.type == "cpu" and p.dtype == torch.float32 for p in self._parameters)
        self._flat_grads = FlatGradients(self._parameters) if shipped and on_cpu else None
        self.buffer = RolloutBuffer(
            cfg.n_steps, cfg.num_envs, self.observation_space, action_shape=(), discrete=True
        )
        self.buffer.log_probs = np.zeros((cfg.n_steps, cfg.num_envs), np.float32)
        self.buffer.values = np.zeros((cfg.n_steps, cfg.num_envs), np.float32)
        self._actions_allocated = False
        # Observations that are one array can be acted on with NumPy when the policy can.
        flat = type(self.observation_space).__name__ not in ("Dict", "Tuple")
        self._act_numpy = getattr(self.policy, "act_numpy", None) if flat else None

    # --- training -----------------------------------------------------------------------

    def _train_steps(self, per_env: int, started: float) -> Iterator[dict[str, Any]]:
        """Collect rollouts of ``n_steps`` (the last one shortened to fit) and update on each."""
        cfg = self.config
        done = 0
        while done < per_env:
            if cfg.anneal_lr:
                self._set_learning_rate(cfg.learning_rate * (1.0 - done / per_env))
            steps = min(cfg.n_steps, per_env - done)
            self._collect_rollout(steps)
            done += steps
            stats = self._update()
            stats.update(self._episode_stats(started))
            stats["steps_per_second"] = done * cfg.num_envs / stats["time"]
            yield stats

    def _set_learning_rate(self, learning_rate: float) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate

    def _collect_rollout(self, steps: int | None = None) -> None:
        buffer, env = self.buffer, self.env
        buffer.size = steps = buffer.n_steps if steps is None else steps
        observations = self._observations
        check = self.config.check_finite
        for t in range(steps):
            if self.fast_path:
                obs = buffer.observations[t]
                obs[:] = observations.reshape(buffer.num_envs, -1)
                buffer.actions[t], env_actions = self._sample(obs)
            else:
                env_actions = self._act_autograd(t, observations)
            observations, rewards, terminated, truncated, _ = env.step(env_actions)
            if check:
                step = self.num_steps + (t + 1) * buffer.num_envs
                check_finite_observations(observations, step)
                check_finite_rewards(rewards, step)
            buffer.rewards[t] = rewards
            buffer.terminated[t] = terminated
            buffer.truncated[t] = truncated
            # The NEXT_STEP reset step after an episode end is no transition: masked out.
            buffer.valid[t] = self._masks.step(terminated, truncated).valid
        self._observations = observations
        self.num_steps += steps * buffer.num_envs

    def _sample(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Sample stored and env actions for flat observations (hand-written backends)."""
        raise NotImplementedError

    @torch.no_grad()
    def _training_batch(self) -> tuple[Any, ...]:
        """Gather the rollout into a training batch (hand-written backends' layout)."""
        raise NotImplementedError

    @torch.inference_mode()
    def _act_autograd(self, t: int, observations: Any) -> np.ndarray:
        buffer = self.buffer
        write_at(buffer.observations, t, observations)
        if self._act_numpy is not None:
            sampled = self._act_numpy(observations, self.rng)
            if sampled is not None:
                action, env_actions, log_prob, value = sampled
                self._store_actions(t, action)
                buffer.log_probs[t] = log_prob
                buffer.values[t] = value
                return env_actions
            self._act_numpy = None  # the policy cannot: act through torch from now on
        obs = observations_to_tensor(observations, self.device)
        act_with_value = getattr(self.policy, "act_with_value", None)
        if callable(act_with_value):
            action, log_prob, value = act_with_value(obs)
        else:
            action, log_prob, _, value = self.policy.get_action_and_value(obs)
        self._store_actions(t, action.cpu().numpy())
        buffer.log_probs[t] = log_prob.cpu().numpy()
        buffer.values[t] = value.cpu().numpy()
        return self._to_env(action)

    def _store_actions(self, t: int, action: np.ndarray) -> None:
        buffer = self.buffer
        if not self._actions_allocated:
            dtype = np.float32 if action.dtype.kind == "f" else np.int64
            buffer.actions = np.zeros((buffer.n_steps, *action.shape), dtype=dtype)
            self._actions_allocated = True
        buffer.actions[t] = action

    def _to_env(self, action: torch.Tensor) -> np.ndarray:
        to_env = getattr(self.policy, "to_env", None)
        return to_env(action) if callable(to_env) else default_to_env(action, self.action_space)

    @torch.no_grad()
    def _autograd_batch(self) -> tuple[Any, ...]:
        buffer, device = self.buffer, self.device
        size = buffer.size
        steps = size * buffer.num_envs
        last = self.policy.get_value(observations_to_tensor(self._observations, device))
        observations = map_structure(
            lambda a: a[:size].reshape(steps, *a.shape[2:]), buffer.observations
        )
        observations = observations_to_tensor(observations, device)
        actions = torch.from_numpy(buffer.actions[:size].reshape(steps, *buffer.actions.shape[2:]))
        values_np = buffer.values[:size].reshape(-1)
        return self._gather(
            observations,
            actions.to(device),
            torch.from_numpy(buffer.log_probs[:size].reshape(-1)).to(device),
            values_np,
            last.cpu().numpy(),
            torch.from_numpy(values_np).to(device),
        )

    def _gather(
        self,
        observations: Any,
        actions: torch.Tensor,
        log_probs: torch.Tensor,
        values_np: np.ndarray,
        last_values: np.ndarray,
        values: torch.Tensor,
    ) -> tuple[Any, ...]:
        """Advantages and targets of the rollout, and its valid steps as a training batch."""
        cfg, buffer, device = self.config, self.buffer, self.device
        advantages_np, returns = buffer.compute_targets(
            values_np.reshape(buffer.size, -1), last_values, cfg.gamma, cfg.gae_lambda
        )
        index_np = buffer.valid_index()
        self._explained_variance = _explained_variance(
            values_np[index_np], returns.reshape(-1)[index_np]
        )
        index = torch.from_numpy(index_np).to(device)
        advantages = torch.from_numpy(advantages_np.reshape(-1)).to(device)[index]
        if cfg.normalize_advantage and len(index) <= cfg.batch_size and len(index) > 1:
            # One full-batch minibatch: normalize once instead of in every epoch.
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
            self._advantages_normalized = True
        else:
            self._advantages_normalized = False
        return (
            map_structure(lambda tensor: tensor[index], observations),
            actions[index],
            log_probs[index],
            values[index],
            advantages,
            torch.from_numpy(returns.reshape(-1)).to(device)[index],
        )

    def _normalized(self, advantages: torch.Tensor) -> torch.Tensor:
        wanted = self.config.normalize_advantage and len(advantages) > 1
        if wanted and not self._advantages_normalized:
            return (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        return advantages

    # --- acting, saving, loading --------------------------------------------------------

    def _actor(self) -> Any:
        if self.fast_path:
            self.sync_policy()
        self.policy.eval()
        return _PolicyActor(self.policy, self.device, self.action_space)

    def sync_policy(self) -> None:
        """Copy the hand-written backends' stacked weights into :attr:`policy` (else a no-op)."""
        if self.fast_path:
            self.model.copy_to_towers(self.policy.actor, self.policy.critic)

    def _networks_state(self) -> dict[str, Any]:
        self.sync_policy()
        return {
            "model": self.policy.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "optimizer_layout": "fast" if self.fast_path else "autograd",
        }

    @classmethod
    def _policy_to_load(cls, state: dict[str, Any], policy: Any, path: Any) -> Any:
        name = state.get("policy", "MlpPolicy")
        if name in POLICY_NAMES:
            return name
        if policy is None:
            raise CheckpointError(
                f"{path}: holds a custom policy; pass a module of its class as policy=."
            )
        return policy

    def _load_networks(self, state: dict[str, Any]) -> None:
        self.policy.load_state_dict(state["model"])
        if self.fast_path:
            fresh = ActorCritic.from_towers(self.policy.actor, self.policy.critic)
            self.model.load_state_dict(fresh.state_dict())
        layout = "fast" if self.fast_path else "autograd"
        if state.get("optimizer") and state.get("optimizer_layout") == layout:
            self.optimizer.load_state_dict(state["optimizer"])


class _PolicyActor:
    """``act(obs_batch, deterministic) -> env actions`` for a policy module."""

    def __init__(self, policy: Any, device: Any, action_space: Any):
        self.policy, self.device, self.action_space = policy, device, action_space

    def act(self, observations: Any, deterministic: bool) -> np.ndarray:
        """Env actions for a batch of observations."""
        obs = observations_to_tensor(observations, self.device)
        get_action = getattr(self.policy, "get_action", None)
        if callable(get_action):
            action = get_action(obs, deterministic=deterministic)
        else:
            action = self.policy.get_action_and_value(obs)[0]
        to_env = getattr(self.policy, "to_env", None)
        return to_env(action) if callable(to_env) else default_to_env(action, self.action_space)


def policy_actor(state: dict[str, Any], observation_space: Any, action_space: Any) -> Any:
    """Return an actor rebuilt from an on-policy checkpoint (PPO's; for ``palaestra eval``).

    Checkpoints without a ``"policy"`` entry come from an earlier version (a stacked
    :class:`~palaestra.train.networks.ActorCritic` and a separate head) and load as such.

    Raises:
        ValueError: for a checkpoint of a custom policy (load it with
            ``PPO.load(path, policy=module)``).

    Example:
        >>> from palaestra.train.ppo import PPO
        >>> agent = PPO("MlpPolicy", "CartPole-v1", num_envs=1, n_steps=4, batch_size=4)
        >>> actor = policy_actor(agent.state(), agent.observation_space, agent.action_space)
        >>> actor.act(np.zeros((2, 4), np.float32), True).shape
        (2,)
    """
    config = state["config"]
    if "policy" not in state:
        head = make_head(action_space, squash=config["squash"])
        head.load_state_dict(state["head"])
        network = ActorCritic(
            int(np.prod(observation_space.shape)), head.num_outputs, tuple(config["hidden_sizes"])
        )
        network.load_state_dict(state["model"])
        network.eval()
        return HeadActor(network, head)
    name = state["policy"]
    if name not in POLICY_NAMES:
        raise ValueError(
            f"it holds a custom policy ({name}); load it with PPO.load(path, policy=module)"
        )
    hidden = config.get("hidden_sizes")
    policy = make_policy(
        name,
        observation_space,
        action_space,
        hidden_sizes=tuple(hidden) if hidden is not None else None,
        squash=config.get("squash", False),
        log_std_init=config.get("log_std_init", 0.0),
        features_dim=config.get("features_dim", 512),
    )
    policy.load_state_dict(state["model"])
    policy.eval()
    return _PolicyActor(policy, torch.device("cpu"), action_space)


def _explained_variance(values: np.ndarray, returns: np.ndarray) -> float:
    variance = float(np.var(returns))
    if len(returns) < 2 or variance == 0.0:
        return math.nan
    return 1.0 - float(np.var(returns - values)) / variance
