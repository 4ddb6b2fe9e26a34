"""The agent skeleton every trainer of :mod:`palaestra.train` is built on.

:class:`Agent` does what PPO, DQN and SAC share: resolve the config (the env's preset,
then ``config``, then keyword overrides), set torch's threads, seed, pick the device, make
the vector env (``NEXT_STEP`` autoreset, an :class:`~palaestra.train.envs.EpisodeTracker`
on top), run the ``learn`` loop (step budget, progress bar, callback, history), act
(:meth:`Agent.predict`), and save and load checkpoints. An algorithm subclasses it and
fills in the hooks: ``_setup`` (networks, optimizers, buffers, backend), ``_train_steps``
(a generator that trains and yields a statistics row now and then), ``_actor``,
``_networks_state`` and ``_load_networks``.

Example:
    >>> from palaestra.train.dqn import DQN
    >>> isinstance(DQN("MlpPolicy", "CartPole-v1", hidden_sizes=(8,)), Agent)
    True
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from typing_extensions import Self

from palaestra.train._torch import require_torch
from palaestra.train.checkpoint import (
    CheckpointError,
    check_weights_fit,
    load_state,
    resolve_env_id,
    save_agent,
)
from palaestra.train.core.backend import AUTOGRAD, BackendChoice, announce
from palaestra.train.core.config import CommonConfig
from palaestra.train.core.predict import predict_with
from palaestra.train.core.setup import (
    asks_to_stop,
    config_from_state,
    env_id_of,
    resolve_config,
    resolve_device,
    seed_everything,
)
from palaestra.train.core.setup import progress_bar as make_progress_bar
from palaestra.train.diagnostics import NonFiniteError, TrainingMonitor
from palaestra.train.envs import (
    NEXT_STEP,
    EpisodeTracker,
    find_wrapper,
    make_training_env,
    normalization_state,
    require_autoreset_mode,
    restore_normalization,
)
from palaestra.vector.episodes import EpisodeMasks

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()

Callback = Callable[[dict[str, Any]], "bool | None"]
"""``callback(stats)``: called with each statistics row; returning ``False`` stops."""


class Agent:
    """The shared skeleton of a trainer: ``Algo(policy, env, config=None, **hyper_parameters)``.

    Subclasses set :attr:`algo` (the registry name) and :attr:`config_class`, and
    implement the hooks named in the module docstring.

    Args:
        policy: a policy name (``"MlpPolicy"``, ...) or, where the algorithm takes one, a
            policy module.
        env: an env id (made with :func:`palaestra.make_vec`), a vector env in
            ``NEXT_STEP`` autoreset mode, or a single env (stepped as a one-env vector env).
        config: a full config, used instead of the env's preset.
        monitor: an optional :class:`~palaestra.train.diagnostics.TrainingMonitor`.
        **hyper_parameters: config fields overriding the preset (or ``config``).

    Raises:
        TypeError: for a missing env, a config passed positionally, or an unknown
            hyper-parameter.
        ValueError: for an env that does not use ``NEXT_STEP`` autoreset, or a bad field.

    Attributes:
        config: the resolved config.
        env: the training vector env.
        backend: the gradient backend in use (see :mod:`palaestra.train.core.backend`).
        backend_reason: why that backend was chosen.
        history: every statistics row of every ``learn`` call.
        num_steps: env steps taken (over all sub-envs).
        num_updates: updates (gradient steps) taken.

    Example:
        >>> from palaestra.train.dqn import DQN
        >>> agent = DQN("MlpPolicy", "CartPole-v1", hidden_sizes=(8,), fast_path=False)
        >>> agent.learn(8, progress_bar=False) is agent, agent.num_steps, agent.backend
        (True, 8, 'autograd')
    """

    algo: ClassVar[str] = ""
    config_class: ClassVar[type] = CommonConfig
    example_env: ClassVar[str] = "CartPole-v1"

    def __init__(
        self,
        policy: Any = "MlpPolicy",
        env: Any = None,
        config: Any = None,
        monitor: Any = None,
        **hyper_parameters: Any,
    ):
        name = type(self).__name__
        if env is None or isinstance(policy, CommonConfig) or isinstance(env, CommonConfig):
            raise TypeError(
                f"{name} takes (policy, env, **hyper_parameters), e.g. "
                f"{name}('MlpPolicy', {self.example_env!r}); pass a "
                f"{self.config_class.__name__} as config=."
            )
        self.config = cfg = resolve_config(
            self.config_class, self.algo, env, config, hyper_parameters
        )
        torch.set_num_threads(cfg.torch_threads)
        seed_everything(cfg.seed)
        self.device = resolve_device(cfg.device)
        self.env = make_training_env(env, cfg)
        if self.env.num_envs != cfg.num_envs:
            # A ready-made vector env decides the number of sub-envs.
            self.config = cfg = dataclasses.replace(cfg, num_envs=self.env.num_envs)
        require_autoreset_mode(self.env, NEXT_STEP, name)
        if find_wrapper(self.env, "EpisodeTracker") is None:
            self.env = EpisodeTracker(self.env, window=cfg.window)
        self.tracker: Any = find_wrapper(self.env, "EpisodeTracker")
        self.env_id = env_id_of(self.env)
        if monitor is None and cfg.diagnostics:
            monitor = TrainingMonitor()
        self.monitor = monitor
        self.observation_space = self.env.single_observation_space
        self.action_space = self.env.single_action_space
        self.rng = np.random.default_rng(cfg.seed)
        self.num_steps = 0
        self.num_updates = 0
        self.history: list[dict[str, Any]] = []
        self._observations: Any = None
        self._masks: Any = None
        self.backend = AUTOGRAD
        self.backend_reason = "not chosen yet"
        self._setup(policy)

    # --- hooks --------------------------------------------------------------------------

    def _setup(self, policy: Any) -> None:
        """Build the policy, networks, optimizers and buffers; choose the backend."""
        raise NotImplementedError

    def _train_steps(self, per_env: int, started: float) -> Iterator[dict[str, Any]]:
        """Take ``per_env`` vector steps, training as the algorithm does; yield stats rows."""
        raise NotImplementedError

    def _actor(self) -> Any:
        """Return an object with ``act(batch, deterministic) -> env actions``."""
        raise NotImplementedError

    def _networks_state(self) -> dict[str, Any]:
        """Return the weights and optimizer states of a checkpoint."""
        raise NotImplementedError

    def _load_networks(self, state: dict[str, Any]) -> None:
        """Load what :meth:`_networks_state` returned."""
        raise NotImplementedError

    def _prepare_observations(self, observations: Any) -> Any:
        """Turn the env's observations into what the algorithm stores (as they are)."""
        return observations

    def _use_backend(self, choice: BackendChoice) -> None:
        """Record and announce the gradient backend (once per agent)."""
        self.backend, self.backend_reason = choice.name, choice.reason
        announce(type(self).__name__, choice)

    # --- training -----------------------------------------------------------------------

    def learn(
        self,
        total_timesteps: int,
        callback: Callback | None = None,
        progress_bar: bool = True,
    ) -> Self:
        """Train for ``total_timesteps`` env steps (counted over all sub-envs).

        The count is exact when it is a multiple of ``num_envs`` (every sub-env steps
        together), else rounded up to the next multiple.

        Args:
            total_timesteps: env steps to collect in this call.
            callback: called with each statistics row; returning ``False`` stops.
            progress_bar: show a tqdm bar (when tqdm is installed).

        Returns:
            The agent itself, as Stable-Baselines3's ``learn`` (``agent.learn(n).save(p)``);
            the statistics rows of every call so far are in :attr:`history`.

        Raises:
            ValueError: if ``total_timesteps`` is not a positive int.
            palaestra.train.diagnostics.NonFiniteError: with ``check_finite`` at the first
                non-finite observation, reward, loss or gradient.
        """
        if not isinstance(total_timesteps, int | np.integer) or isinstance(total_timesteps, bool):
            raise ValueError(f"total_timesteps must be a positive int, got {total_timesteps!r}.")
        if total_timesteps < 1:
            raise ValueError(f"total_timesteps must be a positive int, got {total_timesteps!r}.")
        n = self.config.num_envs
        per_env = math.ceil(int(total_timesteps) / n)
        if self._observations is None:
            self._reset_env()
        bar = make_progress_bar(per_env * n) if progress_bar else None
        first_step = self.num_steps
        try:
            for stats in self._train_steps(per_env, time.perf_counter()):
                self.history.append(stats)
                if bar is not None:
                    bar.update(self.num_steps - first_step - bar.n)
                if callback is not None and asks_to_stop(callback(stats)):
                    break
        finally:
            if bar is not None:
                bar.close()
        return self

    def _reset_env(self) -> None:
        observations, _ = self.env.reset(seed=self.config.seed)
        self._observations = self._prepare_observations(observations)
        self._masks = EpisodeMasks.of(self.env)
        self._masks.reset()

    def _episode_stats(self, started: float) -> dict[str, Any]:
        """Return the counters, rolling episode statistics and elapsed time of a stats row."""
        returns, lengths = self.tracker.returns, self.tracker.lengths
        elapsed = time.perf_counter() - started
        return {
            "steps": self.num_steps,
            "updates": self.num_updates,
            "episodes": self.tracker.episodes,
            "mean_return": float(np.mean(returns)) if returns else math.nan,
            "mean_length": float(np.mean(lengths)) if lengths else math.nan,
            "time": elapsed,
        }

    def _check_update(self, loss: Any, grad_norm: Any, update: int | None = None) -> None:
        """Run the monitor's checks and stop at a non-finite gradient (with ``check_finite``).

        ``update`` numbers the update in the message (default: :attr:`num_updates`).

        Raises:
            palaestra.train.diagnostics.NonFiniteError: naming the update and the env step.
        """
        if self.monitor is not None:
            self.monitor.check_update(loss, grad_norm, step=self.num_steps)
        if self.config.check_finite and not math.isfinite(float(grad_norm)):
            number = self.num_updates if update is None else update
            raise NonFiniteError(
                f"non-finite loss or gradient at update {number} (env step {self.num_steps}): "
                f"loss {float(loss)}, gradient norm {float(grad_norm)}."
            )

    # --- acting, saving, loading --------------------------------------------------------

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
        return predict_with(self._actor(), observations, self.observation_space, deterministic)

    def state(self) -> dict[str, Any]:
        """Return what rebuilds the agent (see :mod:`palaestra.train.checkpoint`)."""
        state = {
            "algo": self.algo,
            "env_id": self.env_id,
            "config": dataclasses.asdict(self.config),
            "policy": getattr(self, "policy_name", "MlpPolicy"),
            "normalization": normalization_state(self.env),
            "steps": self.num_steps,
            "updates": self.num_updates,
        }
        state.update(self._networks_state())
        return state

    def save(self, path: str | Path) -> None:
        """Save the agent atomically to ``path`` (see :mod:`palaestra.train.checkpoint`)."""
        save_agent(self, path)

    @classmethod
    def load(
        cls,
        path: str | Path,
        env: Any = None,
        policy: Any = None,
        allow_import: bool = False,
        **hyper_parameters: Any,
    ) -> Any:
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
        state = load_state(path)
        if state["algo"] != cls.algo:
            raise CheckpointError(f"{path}: holds a {state['algo']} agent, not {cls.__name__}.")
        if env is None:
            env = resolve_env_id(state, path, allow_import)
        saved = config_from_state(cls.config_class, state["config"])
        config = dataclasses.replace(saved, **hyper_parameters)
        policy = cls._policy_to_load(state, policy, path)
        if isinstance(policy, str):
            check_weights_fit(state, env, path)  # before the agent allocates its networks
        agent = cls(policy, env, config=config)
        agent.load_state(state)
        return agent

    @classmethod
    def _policy_to_load(cls, state: dict[str, Any], policy: Any, path: Any) -> Any:
        """Return the policy argument that rebuilds a checkpoint's agent (its shipped name)."""
        return state.get("policy", "MlpPolicy")

    def load_state(self, state: dict[str, Any]) -> None:
        """Load weights, optimizers, normalization and step counters from a checkpoint dict."""
        self._load_networks(state)
        restore_normalization(self.env, state.get("normalization", {}))
        self.num_steps = int(state.get("steps", 0))
        self.num_updates = int(state.get("updates", 0))
