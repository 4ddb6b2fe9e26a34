"""Double DQN: a Q-network, a target network, a replay buffer and an epsilon schedule.

The online network picks the next action and the target network values it (double
Q-learning); the loss is the Huber loss of the TD error. Exploration decays linearly from
``exploration_initial_eps`` to ``exploration_final_eps`` over ``exploration_fraction`` of
each ``learn`` call. Acting reads a NumPy view of the Q-network's weights, so an env step
costs no torch call.

Example:
    >>> from palaestra.train.dqn import DQN
    >>> agent = DQN("MlpPolicy", "CartPole-v1", learning_starts=32, train_freq=4,
    ...             gradient_steps=1, batch_size=16, hidden_sizes=(16,))
    >>> _ = agent.learn(100, progress_bar=False)
    >>> agent.num_steps, agent.predict(np.zeros(4, np.float32)).shape
    (100, ())
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.distributions import is_discrete
from palaestra.train.offpolicy import (
    OffPolicyAgent,
    ReplayBuffer,
    clip_grad_norm,
    linear_schedule,
    numpy_mlp,
    polyak_update,
    relu_mlp,
)

torch = require_torch()
F = torch.nn.functional


@dataclasses.dataclass
class DQNConfig:
    """Hyper-parameters of :class:`DQN` (Stable-Baselines3's defaults unless noted).

    ``DQN(policy, "CartPole-v1")`` starts from the env's preset instead (rl-zoo's tuned set
    for CartPole), as ``palaestra train --algo dqn`` does.

    Attributes:
        num_envs: sub-envs stepped together.
        learning_rate: Adam step size.
        buffer_size: transitions the replay buffer keeps.
        learning_starts: env steps before the first gradient step.
        batch_size: transitions per gradient step.
        tau: target-network update rate (1 copies the weights).
        gamma: discount factor.
        train_freq: vector steps between training rounds.
        gradient_steps: gradient steps per training round.
        target_update_interval: env steps between target-network updates.
        exploration_fraction: share of each ``learn`` call over which epsilon decays.
        exploration_initial_eps: epsilon at the start.
        exploration_final_eps: epsilon after the decay.
        max_grad_norm: global gradient-norm clipping threshold.
        double_q: pick the next action with the online network (double DQN).
        hidden_sizes: hidden widths of the ReLU Q-network.
        log_interval: env steps between statistics rows (and callback calls).
        check_finite: stop at the first non-finite reward, loss or gradient.
        normalize_observation: wrap the env in ``NormalizeObservation``.
        normalize_reward: wrap the env in ``NormalizeReward``.
        seed: seeds torch, NumPy and the env.
        device: ``"cpu"``, ``"cuda"`` or ``"auto"``.
        torch_threads: intra-op threads for torch on the CPU.
        window: episodes in the reported rolling mean of returns.
        diagnostics: check every env step and update (slower).
        step_timeout: seconds one env step may take.

    Example:
        >>> DQNConfig().target_update_interval
        10000
    """

    num_envs: int = 1
    learning_rate: float = 1e-4
    buffer_size: int = 1_000_000
    learning_starts: int = 100
    batch_size: int = 32
    tau: float = 1.0
    gamma: float = 0.99
    train_freq: int = 4
    gradient_steps: int = 1
    target_update_interval: int = 10_000
    exploration_fraction: float = 0.1
    exploration_initial_eps: float = 1.0
    exploration_final_eps: float = 0.05
    max_grad_norm: float = 10.0
    double_q: bool = True
    hidden_sizes: tuple[int, ...] = (64, 64)
    log_interval: int = 1000
    check_finite: bool = True
    normalize_observation: bool = False
    normalize_reward: bool = False
    seed: int | None = 0
    device: str = "cpu"
    torch_threads: int = 1
    window: int = 100
    diagnostics: bool = False
    step_timeout: float | None = None

    def __post_init__(self) -> None:
        for name in ("num_envs", "buffer_size", "batch_size", "train_freq", "gradient_steps"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"DQNConfig.{name} must be a positive int, got {value!r}.")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be positive, got {self.learning_rate!r}.")
        self.hidden_sizes = tuple(self.hidden_sizes)


class DQN(OffPolicyAgent):
    """Double DQN for ``Discrete`` actions and ``Box`` observations.

    Args:
        policy: ``"MlpPolicy"``.
        env: an env id, a vector env (``NEXT_STEP`` autoreset) or a single env.
        config: a full :class:`DQNConfig`, used instead of the env's preset.
        monitor: an optional :class:`~palaestra.train.diagnostics.TrainingMonitor`.
        **hyper_parameters: :class:`DQNConfig` fields overriding the preset.

    Raises:
        ValueError: for non-``Discrete`` actions or non-``Box`` observations.

    Example:
        >>> agent = DQN("MlpPolicy", "CartPole-v1", hidden_sizes=(8,))
        >>> agent.epsilon(0.0), agent.epsilon(1.0)
        (1.0, 0.04)
    """

    algo = "dqn"
    config_class = DQNConfig

    def _build(self) -> None:
        cfg = self.config
        if not is_discrete(self.action_space):
            raise ValueError(
                f"DQN needs a Discrete action space, got {self.action_space}; use SAC or PPO "
                "for continuous actions."
            )
        self.n_actions = int(self.action_space.n)
        self.action_start = int(self.action_space.start)
        self.q_net = relu_mlp(self.obs_dim, cfg.hidden_sizes, self.n_actions).to(self.device)
        self.target_net = relu_mlp(self.obs_dim, cfg.hidden_sizes, self.n_actions)
        self.target_net.load_state_dict(self.q_net.state_dict())
        self.target_net.to(self.device).requires_grad_(False)
        self._parameters = list(self.q_net.parameters())
        self._target_parameters = list(self.target_net.parameters())
        self.optimizer = torch.optim.Adam(
            self._parameters, lr=cfg.learning_rate, fused=self.device.type in ("cpu", "cuda")
        )
        self.buffer = ReplayBuffer(cfg.buffer_size, self.obs_dim, (), np.int64)
        self._numpy_q = numpy_mlp(self.q_net) if self.device.type == "cpu" else None
        self._exploration = 1.0
        self._target_every = max(1, cfg.target_update_interval // cfg.num_envs)

    def epsilon(self, progress: float) -> float:
        """Return the exploration rate after ``progress`` (0..1) of a ``learn`` call."""
        cfg = self.config
        return linear_schedule(
            cfg.exploration_initial_eps,
            cfg.exploration_final_eps,
            cfg.exploration_fraction,
            progress,
        )

    def _q_values(self, observations: np.ndarray) -> np.ndarray:
        if self._numpy_q is not None:
            return self._numpy_q(observations)
        with torch.no_grad():
            obs = torch.as_tensor(observations, device=self.device)
            return self.q_net(obs).cpu().numpy()

    def _act(self, observations: np.ndarray, progress: float) -> tuple[np.ndarray, np.ndarray]:
        self._exploration = epsilon = self.epsilon(progress)
        n = len(observations)
        explore = self.rng.random(n) < epsilon
        if explore.all():
            actions = self.rng.integers(0, self.n_actions, size=n)
        else:
            actions = self._q_values(observations).argmax(-1)
            if explore.any():
                actions = np.where(explore, self.rng.integers(0, self.n_actions, size=n), actions)
        return actions, actions + self.action_start

    def _greedy(self, observations: np.ndarray, deterministic: bool) -> np.ndarray:
        actions = self._q_values(observations).argmax(-1)
        if not deterministic:
            explore = self.rng.random(len(actions)) < self.config.exploration_final_eps
            actions = np.where(explore, self.rng.integers(0, self.n_actions, len(actions)), actions)
        return (actions + self.action_start).astype(np.int64)

    def _on_step(self, step: int) -> None:
        if step % self._target_every == 0:
            polyak_update(self._parameters, self._target_parameters, self.config.tau)

    def _train(self) -> None:
        """One training round: ``gradient_steps`` double-DQN updates.

        All minibatches of the round are drawn with one index draw and one gather. The
        target network does not change during a round (it is updated between env steps),
        so its values for every minibatch's next observations come from one forward pass.
        """
        cfg = self.config
        steps = cfg.gradient_steps
        obs, actions, rewards, next_obs, terminated = self.buffer.sample_batches(
            steps, cfg.batch_size, self.rng, self.device
        )
        with torch.no_grad():
            next_target = self.target_net(next_obs)
            if not cfg.double_q:
                next_values = next_target.max(-1).values
            discount = (1.0 - terminated).mul_(cfg.gamma)
        actions = actions.unsqueeze(-1)
        losses = []
        for i in range(steps):
            with torch.no_grad():
                if cfg.double_q:
                    best = self.q_net(next_obs[i]).argmax(-1, keepdim=True)
                    next_q = next_target[i].gather(-1, best).squeeze(-1)
                else:
                    next_q = next_values[i]
                target = torch.addcmul(rewards[i], discount[i], next_q)
            q = self.q_net(obs[i]).gather(-1, actions[i]).squeeze(-1)
            loss = F.smooth_l1_loss(q, target)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            grad_norm = clip_grad_norm(self._parameters, cfg.max_grad_norm)
            self.num_updates += 1
            self._check_update(loss, grad_norm)
            self.optimizer.step()
            losses.append(loss.detach())
        mean_loss = float(torch.stack(losses).mean())
        self._last = {
            "loss": mean_loss,
            "q_loss": mean_loss,
            "exploration_rate": self._exploration,
            "learning_rate": cfg.learning_rate,
        }

    def _networks_state(self) -> dict[str, Any]:
        return {
            "model": self.q_net.state_dict(),
            "target": self.target_net.state_dict(),
            "optimizer": self.optimizer.state_dict(),
        }

    def _load_networks(self, state: dict[str, Any]) -> None:
        self.q_net.load_state_dict(state["model"])
        self.target_net.load_state_dict(state.get("target", state["model"]))
        if state.get("optimizer"):
            self.optimizer.load_state_dict(state["optimizer"])


class _QActor:
    def __init__(self, q_net: Any, start: int):
        self.q_net, self.start = q_net, start

    @torch.no_grad()
    def act(self, observations: Any, deterministic: bool) -> np.ndarray:
        obs = torch.as_tensor(np.asarray(observations, np.float32)).reshape(len(observations), -1)
        return (self.q_net(obs).argmax(-1).numpy() + self.start).astype(np.int64)


def dqn_actor(state: dict[str, Any], observation_space: Any, action_space: Any) -> Any:
    """Return a greedy actor rebuilt from a DQN checkpoint (for ``palaestra eval``).

    Example:
        >>> agent = DQN("MlpPolicy", "CartPole-v1", hidden_sizes=(8,))
        >>> from palaestra.spaces import Box, Discrete
        >>> actor = dqn_actor(agent.state(), agent.observation_space, agent.action_space)
        >>> actor.act(np.zeros((2, 4)), True).shape
        (2,)
    """
    hidden = tuple(state["config"]["hidden_sizes"])
    obs_dim = int(np.prod(observation_space.shape))
    q_net = relu_mlp(obs_dim, hidden, int(action_space.n))
    q_net.load_state_dict(state["model"])
    q_net.eval()
    return _QActor(q_net, int(action_space.start))
