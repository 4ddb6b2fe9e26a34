"""Proximal Policy Optimization on a vector environment, with an SB3-shaped API.

``PPO(policy, env, **hyper_parameters)`` trains a policy module (see
:mod:`palaestra.train.policies`) with autograd. The shipped ``"MlpPolicy"`` on flat ``Box``
observations with ``Discrete`` or ``Box`` actions takes a hand-written fast path instead, the
same maths without autograd (``tests/train/test_fast_path.py`` checks both give the same
gradients on the same batch); ``fast_path=False`` turns it off. The fast path is kept lean
because for small networks the time goes to per-call overhead rather than arithmetic:

- acting uses a NumPy view of the policy weights (no torch dispatch per env step) and
  preallocated NumPy buffers; log-probabilities and values of the whole rollout are then
  computed in one batched torch pass;
- the policy and value networks are stacked so each layer is one batched matrix product,
  and their gradients are written out by hand: with numba (the ``fast`` extra) as compiled
  loops around NumPy products into reused buffers
  (:class:`~palaestra.train.ppo_gradients.PPOGradients`), else as torch operations
  (:meth:`ActorCritic.backward`);
- a rollout that fits in one minibatch is gathered and advantage-normalized once per
  update instead of once per epoch;
- torch runs one intra-op thread (thread hand-off costs more than it saves here), and Adam
  is the fused kernel, stepped without ``Adam.step``'s per-call Python
  (:class:`~palaestra.train.offpolicy.AdamStep`).

The autograd path keeps autograd on the same loss; for the shipped policies it keeps the
gradients in one flat buffer (:class:`~palaestra.train.ppo_gradients.FlatGradients`) and
acts with the policy's NumPy ``act_numpy`` where it has one.

Hyper-parameters start from the env's preset (:mod:`palaestra.train.presets`, the same the
command line uses), then ``config`` replaces them and keyword arguments override fields.

Example:
    >>> from palaestra.train.ppo import PPO
    >>> agent = PPO("MlpPolicy", "CartPole-v1", num_envs=2, n_steps=8, batch_size=16)
    >>> history = agent.learn(total_timesteps=30, progress_bar=False)
    >>> agent.num_steps, agent.fast_path
    (30, True)
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.buffer import RolloutBuffer, map_structure, minibatches, write_at
from palaestra.train.diagnostics import (
    NonFiniteError,
    TrainingMonitor,
    check_finite_observations,
    check_finite_rewards,
)
from palaestra.train.distributions import CategoricalHead, GaussianHead
from palaestra.train.envs import (
    NEXT_STEP,
    EpisodeTracker,
    find_wrapper,
    make_training_env,
    normalization_state,
    require_autoreset_mode,
    restore_normalization,
)
from palaestra.train.networks import ActorCritic
from palaestra.train.offpolicy import AdamStep
from palaestra.train.policies import (
    POLICY_NAMES,
    check_policy,
    default_to_env,
    is_image_space,
    make_policy,
    observations_to_tensor,
)
from palaestra.train.ppo_gradients import FlatGradients, PPOGradients
from palaestra.vector.episodes import EpisodeMasks

torch = require_torch()
F = torch.nn.functional

Callback = Callable[[dict[str, Any]], "bool | None"]


@dataclasses.dataclass
class PPOConfig:
    """Hyper-parameters of :class:`PPO` (Stable-Baselines3's defaults unless noted).

    ``PPO(policy, "CartPole-v1")`` does not start from these defaults but from the env's
    preset (:func:`palaestra.train.presets.preset`), exactly as ``palaestra train`` does.

    Attributes:
        num_envs: sub-envs stepped together.
        n_steps: steps per sub-env per rollout.
        batch_size: minibatch size of the updates.
        n_epochs: passes over each rollout.
        gamma: discount factor.
        gae_lambda: GAE lambda.
        learning_rate: Adam step size at the start of training.
        anneal_lr: decay the learning rate linearly to 0 over each ``learn`` call.
        clip_range: surrogate clipping of the probability ratio.
        clip_range_vf: clipping of the value change around the old value; ``None`` turns
            value clipping off.
        ent_coef: weight of the entropy bonus.
        vf_coef: weight of the value loss.
        max_grad_norm: global gradient-norm clipping threshold.
        normalize_advantage: standardize advantages in each minibatch.
        normalize_observation: wrap the env in ``NormalizeObservation``.
        normalize_reward: wrap the env in ``NormalizeReward``.
        hidden_sizes: hidden widths of the policy and value networks (``None``: the
            policy's default, ``(64, 64)`` for MLPs, none after a CNN).
        features_dim: output width of a CNN feature extractor.
        squash: squash continuous actions with ``tanh`` into the box (else clip).
        log_std_init: initial log standard deviation of continuous policies.
        fast_path: ``None`` takes the hand-written MLP path whenever it applies, ``False``
            always trains with autograd, ``True`` demands the fast path.
        check_finite: stop with :class:`~palaestra.train.diagnostics.NonFiniteError` at the
            first non-finite observation, reward, loss or gradient (on by default; opt out
            explicitly).
        seed: seeds torch, NumPy and the env; ``None`` for fresh randomness.
        device: ``"cpu"``, ``"cuda"`` or ``"auto"`` (CUDA when available).
        torch_threads: intra-op threads for torch on the CPU.
        window: episodes in the rolling mean of returns that is reported.
        diagnostics: check every env step (innermost :class:`DiagnosticsWrapper`) and every
            update (:class:`TrainingMonitor`), raising at the first problem; slower.
        step_timeout: seconds one env step may take (the env is wrapped to enforce it).

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
    hidden_sizes: tuple[int, ...] | None = (64, 64)
    features_dim: int = 512
    squash: bool = False
    log_std_init: float = 0.0
    fast_path: bool | None = None
    check_finite: bool = True
    seed: int | None = 0
    device: str = "cpu"
    torch_threads: int = 1
    window: int = 100
    diagnostics: bool = False
    step_timeout: float | None = None

    def __post_init__(self) -> None:
        for name in ("num_envs", "n_steps", "batch_size", "n_epochs", "window"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"PPOConfig.{name} must be a positive int, got {value!r}.")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be positive, got {self.learning_rate!r}.")
        if self.hidden_sizes is not None:
            self.hidden_sizes = tuple(self.hidden_sizes)


def resolve_device(device: str) -> torch.device:
    """Turn ``"auto"`` into CUDA when available (else CPU) and validate the rest.

    Args:
        device: ``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"mps"`` or ``"auto"``.

    Returns:
        The torch device.

    Raises:
        ValueError: for an unknown device name, or CUDA requested but not available.

    Example:
        >>> resolve_device("cpu")
        device(type='cpu')
        >>> resolve_device("tpu")
        Traceback (most recent call last):
        ...
        ValueError: Unknown device 'tpu'; use 'cpu', 'cuda', 'cuda:N', 'mps' or 'auto'.
    """
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(
            f"Unknown device {device!r}; use 'cpu', 'cuda', 'cuda:N', 'mps' or 'auto'."
        ) from None
    if resolved.type not in ("cpu", "cuda", "mps"):
        raise ValueError(
            f"Unknown device {device!r}; use 'cpu', 'cuda', 'cuda:N', 'mps' or 'auto'."
        )
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} was requested but CUDA is not available; use device='cpu'."
        )
    if resolved.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"device={device!r} was requested but MPS is not available; use 'cpu'.")
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


def resolve_config(
    config_class: type, algo: str, env: Any, config: Any, hyper_parameters: dict[str, Any]
) -> Any:
    """Return the config an algorithm trains with: the env's preset, or ``config``, plus overrides.

    Args:
        config_class: the algorithm's config dataclass.
        algo: the algorithm's preset name (``"ppo"``, ``"dqn"``, ...).
        env: an env id or env (its spec id picks the preset).
        config: an explicit config, used instead of the preset when given.
        hyper_parameters: field overrides.

    Raises:
        TypeError: naming unknown hyper-parameters and the valid ones.

    Example:
        >>> resolve_config(PPOConfig, "ppo", "CartPole-v1", None, {"seed": 3}).n_steps
        32
    """
    fields = {field.name for field in dataclasses.fields(config_class)}
    unknown = sorted(set(hyper_parameters) - fields)
    if unknown:
        raise TypeError(
            f"Unknown {config_class.__name__} hyper-parameters {unknown}; valid ones: "
            f"{sorted(fields)}."
        )
    if config is not None:
        return dataclasses.replace(config, **hyper_parameters)
    from palaestra.train.presets import preset

    env_id = env if isinstance(env, str) else _env_id(env)
    base = preset(env_id, algo).config if env_id is not None else {}
    values = {key: value for key, value in base.items() if key in fields}
    values.update(hyper_parameters)
    return config_class(**values)


class PPO:
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
            the spaces, or ``fast_path=True`` does not apply.
        TypeError: for an unknown hyper-parameter or a module that is not a policy.

    Example:
        >>> agent = PPO("MlpPolicy", "CartPole-v1", num_envs=2, n_steps=8, batch_size=16)
        >>> agent.learn(16, progress_bar=False)[-1]["updates"]
        1
        >>> agent.predict(np.zeros(4, dtype=np.float32)).shape  # one observation
        ()
        >>> agent.predict(np.zeros((2, 4), dtype=np.float32)).dtype
        dtype('int64')
    """

    def __init__(
        self,
        policy: Any = "MlpPolicy",
        env: Any = None,
        config: PPOConfig | None = None,
        monitor: Any = None,
        **hyper_parameters: Any,
    ):
        if env is None or isinstance(policy, PPOConfig) or isinstance(env, PPOConfig):
            raise TypeError(
                "PPO takes (policy, env, **hyper_parameters), e.g. "
                "PPO('MlpPolicy', 'CartPole-v1', n_steps=32); pass a PPOConfig as config=."
            )
        self.config = cfg = resolve_config(PPOConfig, "ppo", env, config, hyper_parameters)
        torch.set_num_threads(cfg.torch_threads)
        seed_everything(cfg.seed)
        self.device = resolve_device(cfg.device)
        self.env = make_training_env(env, cfg)
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
        self.observation_space = self.env.single_observation_space
        self.action_space = self.env.single_action_space
        self.policy_name, self.policy = self._build_policy(policy)
        self.policy.to(self.device)
        self.fast_path = self._choose_path(cfg.fast_path)
        if self.fast_path:
            self._setup_fast_path()
        else:
            self._setup_autograd_path()
        self.generator = torch.Generator().manual_seed(0 if cfg.seed is None else cfg.seed)
        self.rng = np.random.default_rng(cfg.seed)
        self.num_steps = 0
        self.num_updates = 0
        self.history: list[dict[str, Any]] = []
        self._observations: Any = None
        self._last_grad_norm = torch.zeros(())

    # --- construction -------------------------------------------------------------------

    def _build_policy(self, policy: Any) -> tuple[str, Any]:
        cfg = self.config
        if isinstance(policy, str):
            name = policy
            if name == "auto":
                from palaestra.train.policies import default_policy_name

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

    def _choose_path(self, wanted: bool | None) -> bool:
        reason = self._fast_path_blocker()
        if wanted and reason is not None:
            raise ValueError(f"fast_path=True does not apply here: {reason}.")
        return reason is None and wanted is not False

    def _fast_path_blocker(self) -> str | None:
        if self.policy_name != "MlpPolicy":
            return f"the policy is {self.policy_name}, not the shipped MlpPolicy"
        if type(self.observation_space).__name__ != "Box" or is_image_space(self.observation_space):
            return f"observations are {self.observation_space}, not a flat Box"
        if not isinstance(self.policy.head, (CategoricalHead, GaussianHead)):
            return f"actions are {self.action_space}, not Discrete or Box"
        if not self.config.hidden_sizes:
            return "the MLP has no hidden layer"
        return None

    def _setup_fast_path(self) -> None:
        cfg = self.config
        self.head = self.policy.head
        self.model = ActorCritic.from_towers(self.policy.actor, self.policy.critic)
        self.model.to(self.device)
        self._parameters = [*self.model.parameters(), *self.head.parameters()]
        self.optimizer = _adam(self._parameters, cfg.learning_rate, self.device)
        self._adam_step = AdamStep(self.optimizer)
        # The compiled step (numba) where it applies, else the torch fast path.
        self._compiled = PPOGradients.create(self.model, self.head)
        self.obs_dim = int(np.prod(self.observation_space.shape))
        discrete = isinstance(self.head, CategoricalHead)
        action_shape = () if discrete else (self.head.num_outputs,)
        self.buffer = RolloutBuffer(cfg.n_steps, cfg.num_envs, self.obs_dim, action_shape, discrete)
        self._numpy_actor = self.model.numpy_actor() if self.device.type == "cpu" else None

    def _setup_autograd_path(self) -> None:
        cfg = self.config
        self._parameters = list(self.policy.parameters())
        self.optimizer = _adam(self._parameters, cfg.learning_rate, self.device)
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

    def learn(
        self,
        total_timesteps: int,
        callback: Callback | None = None,
        progress_bar: bool = True,
    ) -> list[dict[str, Any]]:
        """Train for ``total_timesteps`` env steps (counted over all sub-envs).

        The count is exact when it is a multiple of ``num_envs`` (every sub-env steps
        together), else rounded up to the next multiple; the last rollout is shortened to
        fit, so no more steps are taken than asked.

        Args:
            total_timesteps: env steps to collect in this call.
            callback: called with each update's statistics; returning ``False`` stops.
            progress_bar: show a tqdm bar (when tqdm is installed).

        Returns:
            One statistics dict per update (also kept in :attr:`history`).

        Raises:
            ValueError: if ``total_timesteps`` is not positive.
            palaestra.train.diagnostics.NonFiniteError: with ``check_finite`` at the first
                non-finite reward, loss or gradient.
        """
        if not isinstance(total_timesteps, (int, np.integer)) or total_timesteps < 1:
            raise ValueError(f"total_timesteps must be a positive int, got {total_timesteps!r}.")
        cfg = self.config
        per_env = math.ceil(total_timesteps / cfg.num_envs)
        planned = per_env * cfg.num_envs
        if self._observations is None:
            self._reset_env()
        bar = _progress_bar(planned) if progress_bar else None
        start = time.perf_counter()
        done = 0
        try:
            while done < per_env:
                if cfg.anneal_lr:
                    self._set_learning_rate(cfg.learning_rate * (1.0 - done / per_env))
                steps = min(cfg.n_steps, per_env - done)
                self._collect_rollout(steps)
                done += steps
                stats = self._update()
                stats["time"] = time.perf_counter() - start
                stats["steps_per_second"] = done * cfg.num_envs / stats["time"]
                self.history.append(stats)
                if bar is not None:
                    bar.update(steps * cfg.num_envs)
                if callback is not None and _asks_to_stop(callback(stats)):
                    break
        finally:
            if bar is not None:
                bar.close()
        return self.history

    def _reset_env(self) -> None:
        observations, _ = self.env.reset(seed=self.config.seed)
        self._observations = observations
        self._masks = EpisodeMasks.of(self.env)
        self._masks.reset()

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
        """Sample stored and env actions for one batch of flat observations (fast path)."""
        if self._numpy_actor is not None:
            return self.head.sample_numpy(self._numpy_actor(observations), self.rng)
        with torch.no_grad():
            obs = torch.as_tensor(observations, device=self.device)
            actions, _ = self.head.sample(self.model.actor(obs))
        return actions.cpu().numpy(), self.head.to_env(actions)

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

    def _update(self) -> dict[str, Any]:
        cfg = self.config
        batch = self._training_batch() if self.fast_path else self._autograd_batch()
        self.policy.train()
        totals = torch.zeros(6)
        count = 0
        for epoch in range(cfg.n_epochs):
            last_epoch = epoch == cfg.n_epochs - 1
            for minibatch in minibatches(batch, cfg.batch_size, self.generator):
                stats = self.compute_gradients(minibatch, measure=last_epoch)
                self._adam_step()
                if last_epoch:
                    totals += stats.cpu()
                    count += 1
        self.num_updates += 1
        means = (totals / max(count, 1)).tolist()
        names = ("loss", "policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction")
        stats: dict[str, Any] = dict(zip(names, means))
        stats["grad_norm"] = float(self._last_grad_norm)
        stats["explained_variance"] = self._explained_variance
        stats["learning_rate"] = self.optimizer.param_groups[0]["lr"]
        stats["steps"] = self.num_steps
        stats["updates"] = self.num_updates
        stats["episodes"] = self.tracker.episodes
        returns_window = self.tracker.returns
        stats["mean_return"] = float(np.mean(returns_window)) if returns_window else math.nan
        lengths = self.tracker.lengths
        stats["mean_length"] = float(np.mean(lengths)) if lengths else math.nan
        return stats

    def compute_gradients(self, minibatch: tuple[Any, ...], measure: bool = True) -> Any:
        """Write the PPO loss's (clipped) gradients of one minibatch into ``.grad``.

        Both paths take the same minibatch ``(observations, actions, old_log_probs,
        old_values, advantages, returns)``; the fast path writes the gradients of its
        stacked network by hand, the autograd path calls ``backward``.

        Returns:
            ``[loss, policy_loss, value_loss, entropy, approx_kl, clip_fraction]`` as a
            tensor when ``measure`` (zeros otherwise).

        Raises:
            palaestra.train.diagnostics.NonFiniteError: with ``check_finite``, when the
                gradient norm is not finite.
        """
        if self._compiled is not None:
            measured = self._compiled_gradients(minibatch, measure)
        elif self.fast_path:
            with torch.no_grad():
                measured = self._fast_gradients(*minibatch, measure=measure)
        else:
            measured = self._autograd_gradients(*minibatch, measure=measure)
        if self.config.check_finite and not math.isfinite(float(self._last_grad_norm)):
            raise NonFiniteError(
                f"non-finite loss or gradient at update {self.num_updates + 1} (env step "
                f"{self.num_steps}): gradient norm {float(self._last_grad_norm)}."
            )
        return measured if measured is not None else torch.zeros(6)

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
        advantages, returns = buffer.compute_targets(
            values_np.reshape(buffer.size, -1), last_values, cfg.gamma, cfg.gae_lambda
        )
        index_np = buffer.valid_index()
        self._explained_variance = _explained_variance(
            values_np[index_np], returns.reshape(-1)[index_np]
        )
        index = torch.from_numpy(index_np).to(device)
        advantages = torch.from_numpy(advantages.reshape(-1)).to(device)[index]
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
        """Hand-written gradients of one minibatch (called under ``torch.no_grad``)."""
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
        grad_norm = _clip_gradients(self._parameters, cfg.max_grad_norm)
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
        """Take the fast path's step through the compiled loops (:mod:`.ppo_gradients`)."""
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

    def _autograd_gradients(
        self,
        observations: Any,
        actions: torch.Tensor,
        old_log_probs: torch.Tensor,
        old_values: torch.Tensor,
        advantages: torch.Tensor,
        returns: torch.Tensor,
        measure: bool = True,
    ) -> torch.Tensor | None:
        """Autograd gradients of one minibatch: the same loss as the fast path."""
        cfg = self.config
        _, log_probs, entropy, values = self.policy.get_action_and_value(observations, actions)
        advantages = self._normalized(advantages)
        log_ratio = log_probs - old_log_probs
        ratio = log_ratio.exp()
        unclipped = advantages * ratio
        clipped = advantages * ratio.clamp(1.0 - cfg.clip_range, 1.0 + cfg.clip_range)
        policy_loss = -torch.minimum(unclipped, clipped).mean()
        if cfg.clip_range_vf is None:
            value_loss = F.mse_loss(values, returns)  # one autograd node instead of three
        else:
            change = (values - old_values).clamp(-cfg.clip_range_vf, cfg.clip_range_vf)
            value_loss = torch.maximum(
                (values - returns).square(), (old_values + change - returns).square()
            ).mean()
        loss = torch.add(policy_loss, value_loss, alpha=cfg.vf_coef)
        if cfg.ent_coef != 0.0:
            entropy_mean = entropy.mean()
            loss = loss - cfg.ent_coef * entropy_mean
        else:  # no entropy term in the graph: nothing to differentiate through it
            entropy_mean = entropy.detach().mean()
        if self._flat_grads is not None:
            self._flat_grads.zero()
            loss.backward()
            grad_norm = self._flat_grads.clip(cfg.max_grad_norm)
        else:
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            grad_norm = _clip_gradients(self._parameters, cfg.max_grad_norm)
        self._last_grad_norm = grad_norm
        if self.monitor is not None:
            self.monitor.check_update(loss, grad_norm, step=self.num_steps)
        if not measure:
            return None
        with torch.no_grad():
            approx_kl = ((ratio - 1.0) - log_ratio).mean()
            clip_fraction = ((ratio - 1.0).abs() > cfg.clip_range).float().mean()
            return torch.stack(
                [loss, policy_loss, value_loss, entropy_mean, approx_kl, clip_fraction]
            ).detach()

    # --- acting, saving, loading --------------------------------------------------------

    @torch.no_grad()
    def predict(self, observations: Any, deterministic: bool = True) -> np.ndarray:
        """Env actions for one observation or a batch of (already normalized) observations.

        Unlike Stable-Baselines3, which returns ``(actions, state)``, this returns the
        actions only.

        Args:
            observations: one observation of the env's single observation space, or a batch
                of them (leading batch dimension).
            deterministic: take the most likely action instead of sampling.

        Returns:
            One env action for one observation, else a batch ready for a vector env.
        """
        return predict_with(
            self._acting_policy(), observations, self.observation_space, deterministic
        )

    def _acting_policy(self) -> Any:
        if self.fast_path:
            self.sync_policy()
        self.policy.eval()
        return _PolicyActor(self.policy, self.device, self.action_space)

    def sync_policy(self) -> None:
        """Copy the fast path's stacked weights into :attr:`policy` (a no-op otherwise)."""
        if self.fast_path:
            self.model.copy_to_towers(self.policy.actor, self.policy.critic)

    def state(self) -> dict[str, Any]:
        """Return what rebuilds the agent (see :mod:`palaestra.train.checkpoint`)."""
        self.sync_policy()
        return {
            "algo": "ppo",
            "env_id": self.env_id,
            "config": dataclasses.asdict(self.config),
            "policy": self.policy_name,
            "model": self.policy.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "optimizer_layout": "fast" if self.fast_path else "autograd",
            "normalization": normalization_state(self.env),
            "steps": self.num_steps,
            "updates": self.num_updates,
        }

    def save(self, path: str | Path) -> None:
        """Save the agent atomically to ``path`` (see :mod:`palaestra.train.checkpoint`).

        Example:
            >>> import tempfile, pathlib
            >>> agent = PPO("MlpPolicy", "CartPole-v1", num_envs=1, n_steps=4, batch_size=4)
            >>> path = pathlib.Path(tempfile.mkdtemp()) / "agent.pt"
            >>> agent.save(path)
            >>> PPO.load(path).num_steps
            0
        """
        from palaestra.train.checkpoint import save_agent

        save_agent(self, path)

    @classmethod
    def load(
        cls,
        path: str | Path,
        env: Any = None,
        policy: Any = None,
        allow_import: bool = False,
        **hyper_parameters: Any,
    ) -> PPO:
        """Rebuild a saved agent, ready to predict or to continue training.

        Args:
            path: a file written by :meth:`save` (or ``palaestra train``).
            env: the env to continue on; ``None`` makes the saved env id.
            policy: for a custom policy, a freshly built module of the same class (its
                weights are replaced); shipped policies are rebuilt by name.
            allow_import: allow a saved ``module:Env`` id to import its module.
            **hyper_parameters: config fields to change (e.g. ``learning_rate``).

        Raises:
            palaestra.train.checkpoint.CheckpointError: for a corrupt, truncated or foreign
                file, or a checkpoint of another algorithm.
        """
        from palaestra.train.checkpoint import (
            CheckpointError,
            check_weights_fit,
            load_state,
            resolve_env_id,
        )

        state = load_state(path)
        if state["algo"] != "ppo":
            raise CheckpointError(f"{path}: holds a {state['algo']} agent, not PPO.")
        if env is None:
            env = resolve_env_id(state, path, allow_import)
        saved = _config_from_state(PPOConfig, state["config"])
        config = dataclasses.replace(saved, **hyper_parameters)
        name = state.get("policy", "MlpPolicy")
        if name not in POLICY_NAMES:
            if policy is None:
                raise CheckpointError(
                    f"{path}: holds a custom policy; pass a module of its class as policy=."
                )
        else:
            check_weights_fit(state, env, path)  # before the agent allocates its networks
            policy = name
        agent = cls(policy, env, config=config)
        agent.load_state(state)
        return agent

    def load_state(self, state: dict[str, Any]) -> None:
        """Load weights, optimizer, normalization and step counters from a checkpoint dict."""
        self.policy.load_state_dict(state["model"])
        if self.fast_path:
            fresh = ActorCritic.from_towers(self.policy.actor, self.policy.critic)
            self.model.load_state_dict(fresh.state_dict())
        layout = "fast" if self.fast_path else "autograd"
        if state.get("optimizer") and state.get("optimizer_layout") == layout:
            self.optimizer.load_state_dict(state["optimizer"])
        restore_normalization(self.env, state.get("normalization", {}))
        self.num_steps = int(state.get("steps", 0))
        self.num_updates = int(state.get("updates", 0))


class _PolicyActor:
    """``act(obs_batch, deterministic) -> env actions`` for a policy module."""

    def __init__(self, policy: Any, device: Any, action_space: Any):
        self.policy, self.device, self.action_space = policy, device, action_space

    def act(self, observations: Any, deterministic: bool) -> np.ndarray:
        obs = observations_to_tensor(observations, self.device)
        get_action = getattr(self.policy, "get_action", None)
        if callable(get_action):
            action = get_action(obs, deterministic=deterministic)
        else:
            action = self.policy.get_action_and_value(obs)[0]
        to_env = getattr(self.policy, "to_env", None)
        return to_env(action) if callable(to_env) else default_to_env(action, self.action_space)


def is_single_observation(observations: Any, space: Any) -> bool:
    """Whether ``observations`` is one observation of ``space`` rather than a batch.

    Example:
        >>> from palaestra.spaces import Box, Discrete
        >>> is_single_observation(np.zeros(3), Box(-1, 1, (3,)))
        True
        >>> is_single_observation(np.array([1, 2]), Discrete(3))
        False
    """
    kind = type(space).__name__
    if kind == "Dict":
        key = next(iter(space.spaces))
        return is_single_observation(observations[key], space[key])
    if kind == "Tuple":
        return is_single_observation(observations[0], space[0])
    return np.shape(observations) == tuple(space.shape or ())


def predict_with(actor: Any, observations: Any, space: Any, deterministic: bool) -> np.ndarray:
    """Act on one observation or a batch with ``actor.act(batch, deterministic)``.

    Example:
        >>> from palaestra.spaces import Box
        >>> class Zero:
        ...     def act(self, batch, deterministic):
        ...         return np.zeros(len(batch), dtype=np.int64)
        >>> int(predict_with(Zero(), np.zeros(3), Box(-1, 1, (3,)), True))
        0
    """
    if is_single_observation(observations, space):
        batch = map_structure(lambda value: np.asarray(value)[None], _as_arrays(observations))
        return np.asarray(actor.act(batch, deterministic))[0]
    return actor.act(_as_arrays(observations), deterministic)


def _as_arrays(observations: Any) -> Any:
    if isinstance(observations, dict):
        return {key: _as_arrays(value) for key, value in observations.items()}
    if isinstance(observations, tuple):
        return tuple(_as_arrays(value) for value in observations)
    return np.asarray(observations)


def _config_from_state(config_class: type, values: dict[str, Any]) -> Any:
    """Rebuild a config from saved data, ignoring fields this version does not know."""
    known = {field.name for field in dataclasses.fields(config_class)}
    kept = {key: value for key, value in values.items() if key in known}
    if isinstance(kept.get("hidden_sizes"), list):
        kept["hidden_sizes"] = tuple(kept["hidden_sizes"])
    return config_class(**kept)


def _adam(parameters: list[Any], learning_rate: float, device: Any) -> Any:
    fused = device.type in ("cpu", "cuda")
    return torch.optim.Adam(parameters, lr=learning_rate, eps=1e-5, fused=fused)


def _progress_bar(total: int) -> Any:
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="step", dynamic_ncols=True)


def _explained_variance(values: np.ndarray, returns: np.ndarray) -> float:
    variance = float(np.var(returns))
    if len(returns) < 2 or variance == 0.0:
        return math.nan
    return 1.0 - float(np.var(returns - values)) / variance


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
