"""REINFORCE: Monte-Carlo policy gradient on a single environment.

Each episode is played with the current policy, its discounted returns are computed
backwards (restarting at every episode end) and standardized per episode, and the policy
takes one gradient step on ``-sum(log_prob * normalized_return)``.

Example:
    >>> from palaestra.train.reinforce import Reinforce, ReinforceConfig
    >>> agent = Reinforce("CartPole-v1", ReinforceConfig(print_interval=0, hidden_dim=16))
    >>> result = agent.learn(max_episodes=3)
    >>> result.episodes, result.stop_reason
    (3, 'max_episodes')
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.core.predict import HeadActor
from palaestra.train.core.setup import asks_to_stop, resolve_device, seed_everything
from palaestra.train.diagnostics import (
    DiagnosticsWrapper,
    NonFiniteError,
    TrainingMonitor,
    check_finite_observations,
    check_finite_rewards,
)
from palaestra.train.distributions import is_box, make_head
from palaestra.train.evaluation import episode_step_cap
from palaestra.train.networks import PolicyNetwork
from palaestra.train.returns import discounted_returns, normalize_per_episode

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()


@dataclasses.dataclass
class ReinforceConfig:
    """Hyper-parameters of :class:`Reinforce`.

    Attributes:
        learning_rate: Adam step size.
        gamma: discount factor.
        hidden_dim: width of the policy network.
        dropout: dropout probability of the policy network (active in updates only).
        max_grad_norm: global gradient-norm clipping; ``None`` disables it.
        n_trials: episodes in the rolling mean that decides success and early stopping.
        reward_threshold: stop once the rolling mean reaches it; ``None`` takes the env
            spec's ``reward_threshold`` (and never stops early when that is ``None`` too).
        patience: stop after this many episodes without the rolling mean improving by more
            than ``min_improvement``; ``None`` never stops early.
        min_improvement: the improvement that resets the patience counter.
        print_interval: print a progress line every this many episodes (0 is silent).
        squash: for ``Box`` actions, squash with ``tanh`` into the box (else clip a Gaussian).
        log_std_init: initial log standard deviation of continuous policies.
        seed: seeds torch, NumPy and the env; ``None`` for fresh randomness.
        device: ``"cpu"``, ``"cuda"`` or ``"auto"``.
        torch_threads: intra-op threads for torch on the CPU.
        diagnostics: check every env step (:class:`DiagnosticsWrapper`) and every update
            (:class:`TrainingMonitor`), raising at the first problem; slower.
        step_timeout: with ``diagnostics``, seconds one env step may take.
        max_episode_steps: cut (truncate) a training episode after this many steps;
            ``None``: the env's own time limit, or
            :data:`~palaestra.train.evaluation.EPISODE_STEP_CAP` (with a warning) for an
            env without one, so an episode that never ends cannot hang training.
        check_finite: stop with :class:`~palaestra.train.diagnostics.NonFiniteError` at the
            first non-finite observation, reward or gradient (on by default, as for PPO,
            DQN and SAC; opt out explicitly).

    Example:
        >>> ReinforceConfig().n_trials
        10
    """

    learning_rate: float = 1e-3
    gamma: float = 0.99
    hidden_dim: int = 128
    dropout: float = 0.1
    max_grad_norm: float | None = 1.0
    n_trials: int = 10
    reward_threshold: float | None = None
    patience: int | None = None
    min_improvement: float = 0.0
    print_interval: int = 10
    squash: bool = True
    log_std_init: float = 0.0
    seed: int | None = 0
    device: str = "cpu"
    torch_threads: int = 1
    diagnostics: bool = False
    step_timeout: float | None = None
    check_finite: bool = True
    max_episode_steps: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.n_trials, int) or self.n_trials < 1:
            raise ValueError(f"n_trials must be a positive int, got {self.n_trials!r}.")
        if self.patience is not None and self.patience < 1:
            raise ValueError(f"patience must be a positive int or None, got {self.patience!r}.")


@dataclasses.dataclass
class ReinforceResult:
    """What a :meth:`Reinforce.learn` call did.

    Attributes:
        episode_returns: undiscounted return of every training episode.
        rolling_means: rolling mean over ``n_trials`` episodes after each episode.
        episodes: episodes played.
        steps: env steps taken.
        solved: whether the rolling mean reached the reward threshold.
        stop_reason: ``"solved"``, ``"no_improvement"``, ``"max_episodes"``, ``"max_steps"``
            or ``"callback"``.
    """

    episode_returns: list[float]
    rolling_means: list[float]
    episodes: int
    steps: int
    solved: bool
    stop_reason: str


class Reinforce:
    """The REINFORCE algorithm with a :class:`PolicyNetwork` policy.

    Args:
        env: an env id (made with :func:`palaestra.make`) or a single env.
        config: hyper-parameters; defaults to :class:`ReinforceConfig`.
        monitor: an optional :class:`palaestra.train.diagnostics.TrainingMonitor` that
            checks each update's loss and gradient norm.
        log: where progress lines go.

    Raises:
        ValueError: for action spaces other than ``Discrete`` and ``Box``.

    Example:
        >>> agent = Reinforce("Pendulum-v1", ReinforceConfig(hidden_dim=8, print_interval=0))
        >>> agent.learn(max_episodes=1).steps
        200
        >>> bool(abs(agent.predict(np.zeros((1, 3)))[0, 0]) <= 2.0)
        True
    """

    def __init__(
        self,
        env: Any,
        config: ReinforceConfig | None = None,
        monitor: Any = None,
        log: Callable[[str], None] = print,
    ):
        self.config = config if config is not None else ReinforceConfig()
        cfg = self.config
        torch.set_num_threads(cfg.torch_threads)
        seed_everything(cfg.seed)
        self.device = resolve_device(cfg.device)
        if isinstance(env, str):
            from palaestra import make

            env = make(env)
        if cfg.diagnostics:
            env = DiagnosticsWrapper(env, step_timeout=cfg.step_timeout)
            monitor = monitor if monitor is not None else TrainingMonitor()
        self.env = env
        spec = getattr(env, "spec", None)
        self.env_id = getattr(spec, "id", None)
        self.reward_threshold = (
            cfg.reward_threshold
            if cfg.reward_threshold is not None
            else getattr(spec, "reward_threshold", None)
        )
        self.monitor = monitor
        self.log = log
        self.episode_cap = cfg.max_episode_steps or episode_step_cap(env, "training")
        self.obs_dim = int(np.prod(env.observation_space.shape))
        self.head = make_head(env.action_space, squash=cfg.squash).to(self.device)
        if is_box(env.action_space):
            self.head.log_std.data.fill_(cfg.log_std_init)
        self.model = PolicyNetwork(self.obs_dim, self.head.num_outputs, cfg.hidden_dim, cfg.dropout)
        self.model.to(self.device)
        self._parameters = [*self.model.parameters(), *self.head.parameters()]
        self.optimizer = torch.optim.Adam(self._parameters, lr=cfg.learning_rate)
        self.num_steps = 0
        self.num_episodes = 0
        self.backend, self.backend_reason = "autograd", "REINFORCE has no hand-written backend"
        self._first_reset = True

    def learn(
        self,
        max_episodes: int = 1000,
        max_steps: int | None = None,
        callback: Callable[[dict[str, Any]], Any] | None = None,
    ) -> ReinforceResult:
        """Train until solved, out of patience, or out of episodes or steps.

        Args:
            max_episodes: episodes to play at most.
            max_steps: env steps to take at most (checked between episodes).
            callback: called with each episode's statistics; returning ``False`` stops.

        Returns:
            A :class:`ReinforceResult`.
        """
        cfg = self.config
        window: deque[float] = deque(maxlen=cfg.n_trials)
        result = ReinforceResult([], [], 0, 0, False, "max_episodes")
        best, stale = -math.inf, 0
        start, start_steps = time.perf_counter(), self.num_steps
        for episode in range(1, max_episodes + 1):
            episode_return, length, loss, grad_norm = self._train_episode()
            window.append(episode_return)
            rolling = float(np.mean(window))
            result.episode_returns.append(episode_return)
            result.rolling_means.append(rolling)
            result.episodes, result.steps = episode, self.num_steps - start_steps
            stats = {
                "episode": self.num_episodes,
                "steps": self.num_steps,
                "return": episode_return,
                "length": length,
                "mean_return": rolling,
                "loss": loss,
                "grad_norm": grad_norm,
                "time": time.perf_counter() - start,
            }
            if cfg.print_interval and episode % cfg.print_interval == 0:
                self.log(_progress_line(stats, cfg.n_trials))
            full_window = len(window) == cfg.n_trials
            threshold = self.reward_threshold
            if full_window and threshold is not None and rolling >= threshold:
                result.solved, result.stop_reason = True, "solved"
                break
            if full_window and rolling > best + cfg.min_improvement:
                best, stale = rolling, 0
            elif full_window:
                stale += 1
            if cfg.patience is not None and stale >= cfg.patience:
                result.stop_reason = "no_improvement"
                break
            if callback is not None and asks_to_stop(callback(stats)):
                result.stop_reason = "callback"
                break
            if max_steps is not None and result.steps >= max_steps:
                result.stop_reason = "max_steps"
                break
        return result

    def _train_episode(self) -> tuple[float, int, float, float]:
        log_probs, rewards, terminated, truncated = self._play_episode()
        returns = discounted_returns(rewards, terminated, truncated, self.config.gamma)
        returns = normalize_per_episode(returns, np.logical_or(terminated, truncated))
        loss, grad_norm = self._update(log_probs, returns)
        return float(np.sum(rewards)), len(rewards), loss, grad_norm

    def _play_episode(self) -> tuple[torch.Tensor, list, list, list]:
        # The policy runs in training mode while acting, so each log-probability belongs to
        # the very dropout mask that chose the action and the gradient stays on-policy.
        self.model.train()
        seed = self.config.seed if self._first_reset else None
        observation, _ = self.env.reset(seed=seed)
        self._first_reset = False
        check = self.config.check_finite
        if check:
            check_finite_observations(observation, self.num_steps, batched=False)
        log_probs: list[torch.Tensor] = []
        rewards: list[float] = []
        terminated: list[bool] = []
        truncated: list[bool] = []
        done = False
        while not done:
            obs = torch.as_tensor(np.asarray(observation, dtype=np.float32), device=self.device)
            action, log_prob = self.head.sample(self.model(obs.reshape(1, -1)))
            observation, reward, term, trunc, _ = self.env.step(
                self.head.to_env(action.detach())[0]
            )
            if check:
                step = self.num_steps + len(rewards) + 1
                check_finite_observations(observation, step, batched=False)
                check_finite_rewards(reward, step)
            log_probs.append(log_prob)
            rewards.append(float(reward))
            terminated.append(bool(term))
            truncated.append(bool(trunc))
            done = term or trunc
            if not done and self.episode_cap is not None and len(rewards) >= self.episode_cap:
                truncated[-1] = done = True
        self.num_steps += len(rewards)
        self.num_episodes += 1
        return torch.cat(log_probs), rewards, terminated, truncated

    def _update(self, log_probs: torch.Tensor, returns: np.ndarray) -> tuple[float, float]:
        weights = torch.as_tensor(returns, dtype=torch.float32, device=self.device)
        loss = -(log_probs * weights).sum()
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        max_norm = self.config.max_grad_norm
        grad_norm = torch.nn.utils.clip_grad_norm_(
            self._parameters, max_norm if max_norm is not None else math.inf
        )
        if self.monitor is not None:
            self.monitor.check_update(loss, grad_norm, step=self.num_steps)
        if self.config.check_finite and not math.isfinite(float(grad_norm)):
            raise NonFiniteError(
                f"non-finite loss or gradient at episode {self.num_episodes} (env step "
                f"{self.num_steps}): gradient norm {float(grad_norm)}."
            )
        self.optimizer.step()
        return loss.item(), grad_norm.item()

    @torch.no_grad()
    def predict(self, observations: np.ndarray, deterministic: bool = True) -> np.ndarray:
        """Env actions for a batch of observations.

        Args:
            observations: array of shape ``(batch, *obs_shape)``.
            deterministic: take the most likely (mean) action instead of sampling.

        Returns:
            Actions for a vector env, one row per observation.
        """
        self.model.eval()
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32), device=self.device)
        outputs = self.model(obs.reshape(len(obs), -1))
        actions = self.head.mode(outputs) if deterministic else self.head.sample(outputs)[0]
        return self.head.to_env(actions)

    def state(self) -> dict[str, Any]:
        """Return what rebuilds the trained policy (see :mod:`palaestra.train.checkpoint`)."""
        return {
            "algo": "reinforce",
            "env_id": self.env_id,
            "config": dataclasses.asdict(self.config),
            "obs_dim": self.obs_dim,
            "model": self.model.state_dict(),
            "head": self.head.state_dict(),
            "normalization": {},
            "steps": self.num_steps,
        }


def _progress_line(stats: dict[str, Any], n_trials: int) -> str:
    return (
        f"episode {stats['episode']:5d} | steps {stats['steps']:8d} | "
        f"return {stats['return']:9.2f} | mean({n_trials}) {stats['mean_return']:9.2f}"
    )


def reinforce_actor(state: dict[str, Any], observation_space: Any, action_space: Any) -> Any:
    """Return an actor rebuilt from a REINFORCE checkpoint (for ``palaestra eval``).

    Example:
        >>> agent = Reinforce("CartPole-v1", ReinforceConfig(hidden_dim=8, print_interval=0))
        >>> actor = reinforce_actor(agent.state(), agent.env.observation_space,
        ...                         agent.env.action_space)
        >>> actor.act(np.zeros((2, 4)), True).shape
        (2,)
    """
    config = state["config"]
    head = make_head(action_space, squash=config["squash"])
    head.load_state_dict(state["head"])
    network = PolicyNetwork(
        int(np.prod(observation_space.shape)),
        head.num_outputs,
        config["hidden_dim"],
        config["dropout"],
    )
    network.load_state_dict(state["model"])
    network.eval()
    return HeadActor(network, head)
