"""Double DQN: a Q-network, a target network, a replay buffer and an epsilon schedule.

The online network picks the next action and the target network values it (double
Q-learning; ``double_q=False`` gives plain DQN, where the target network's maximum is the
next value, as in Stable-Baselines3); the loss, :meth:`DQN.loss`, is the Huber loss of the
TD error.
Exploration decays linearly from ``exploration_initial_eps`` to ``exploration_final_eps``
over ``exploration_fraction`` of each ``learn`` call. Acting reads a NumPy view of the
Q-network's weights, so an env step costs no torch call. A training round draws all its
minibatches at once, values their next observations with the (fixed) target network in one
pass, and, unless the loss is overridden, computes its gradients by hand
(:class:`DQNGradients`, the ``"compiled"``/``"hand-written"`` backends, equal to autograd's).

Example:
    >>> from palaestra.train.dqn import DQN
    >>> agent = DQN("MlpPolicy", "CartPole-v1", learning_starts=32, train_freq=4,
    ...             gradient_steps=1, batch_size=16, hidden_sizes=(16,))
    >>> agent = agent.learn(100, progress_bar=False)
    >>> agent.num_steps, agent.predict(np.zeros(4, np.float32)).shape
    (100, ())
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from palaestra.train._mlp_kernels import COMPILED_INPUT, compiled_kernels, numba_installed
from palaestra.train._torch import require_torch
from palaestra.train.core.backend import AUTOGRAD, BackendChoice, choose_backend, overridden_methods
from palaestra.train.core.config import CommonConfig
from palaestra.train.core.optim import (
    AdamStep,
    bind_grads,
    clip_grad_norm,
    flat_grads,
    polyak_update,
    private_torch_apis,
)
from palaestra.train.distributions import is_discrete
from palaestra.train.offpolicy import (
    NARROW_INPUT,
    OffPolicyAgent,
    ReplayBuffer,
    linear_schedule,
    numpy_mlp,
    relu_mlp,
)

__all__ = [
    "COMPILED_INPUT",
    "DQN",
    "STATISTICS",
    "ChunkedTargetValues",
    "DQNBatch",
    "DQNConfig",
    "DQNGradients",
    "compiled_kernels",
    "dqn_actor",
    "huber",
]

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()
F = torch.nn.functional


STATISTICS = ("loss", "q_loss")
"""The statistics :meth:`DQN.loss` returns (every backend reports the same)."""


@dataclasses.dataclass
class DQNConfig(CommonConfig):
    """Hyper-parameters of :class:`DQN` (Stable-Baselines3's defaults unless noted).

    The shared fields are documented on :class:`~palaestra.train.core.config.CommonConfig`
    (here ``fast_path=True``, the default, takes the hand-written backend wherever it
    applies; ``False`` trains with autograd). ``DQN(policy, "CartPole-v1")`` starts from
    the env's preset instead (rl-zoo's tuned set for CartPole), as ``palaestra train
    --algo dqn`` does.

    Attributes:
        buffer_size: transitions the replay buffer keeps.
        learning_starts: env steps before the first gradient step.
        tau: target-network update rate (1 copies the weights).
        train_freq: vector steps between training rounds.
        gradient_steps: gradient steps per training round.
        target_update_interval: env steps between target-network updates.
        exploration_fraction: share of each ``learn`` call over which epsilon decays.
        exploration_initial_eps: epsilon at the start.
        exploration_final_eps: epsilon after the decay.
        max_grad_norm: global gradient-norm clipping threshold (``math.inf``: none).
        double_q: pick the next action with the online network and value it with the
            target network (double DQN); ``False`` values it with the target network's
            maximum (plain DQN, Stable-Baselines3's algorithm).
        log_interval: env steps between statistics rows (and callback calls).

    Example:
        >>> DQNConfig().target_update_interval
        10000
    """

    positive_numbers = ("max_grad_norm",)
    positive_ints = ("buffer_size", "train_freq", "gradient_steps")

    learning_rate: float = 1e-4
    buffer_size: int = 1_000_000
    learning_starts: int = 100
    batch_size: int = 32
    tau: float = 1.0
    train_freq: int = 4
    gradient_steps: int = 1
    target_update_interval: int = 10_000
    exploration_fraction: float = 0.1
    exploration_initial_eps: float = 1.0
    exploration_final_eps: float = 0.05
    max_grad_norm: float = 10.0
    double_q: bool = True
    fast_path: bool | None = True
    hidden_sizes: tuple[int, ...] | None = (64, 64)
    log_interval: int = 1000


class DQNBatch(NamedTuple):
    """One minibatch of DQN's training data.

    Attributes:
        observations: ``(batch, obs_dim)``.
        actions: the actions taken, ``(batch, 1)`` int64 (indices from 0).
        rewards: ``(batch,)``.
        discounts: ``gamma * (1 - terminated)``, ``(batch,)``.
        next_observations: ``(batch, obs_dim)``.
        next_target_values: the target network's Q-values of the next observations,
            ``(batch, n_actions)``.

    Example:
        >>> DQNBatch(*range(6)).discounts
        3
    """

    observations: Any
    actions: Any
    rewards: Any
    discounts: Any
    next_observations: Any
    next_target_values: Any


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
        self.q_net = relu_mlp(self.obs_dim, cfg.hidden_sizes or (), self.n_actions).to(self.device)
        self.target_net = relu_mlp(self.obs_dim, cfg.hidden_sizes or (), self.n_actions)
        self.target_net.load_state_dict(self.q_net.state_dict())
        self.target_net.to(self.device).requires_grad_(False)
        self._parameters = list(self.q_net.parameters())
        self._target_parameters = list(self.target_net.parameters())
        self.optimizer = torch.optim.Adam(
            self._parameters, lr=cfg.learning_rate, fused=self.device.type in ("cpu", "cuda")
        )
        self._adam_step = AdamStep(self.optimizer)
        self.buffer = ReplayBuffer(cfg.buffer_size, self.obs_dim, (), np.int64)
        self._numpy_q = numpy_mlp(self.q_net) if self.device.type == "cpu" else None
        self._exploration = 1.0
        self._target_every = max(1, cfg.target_update_interval // cfg.num_envs)
        # Made at the first training round (the compiled kernels load then, not for an
        # agent that only acts).
        self._gradients: DQNGradients | None = None
        self._target_values: ChunkedTargetValues | None = None
        self._use_backend(self._choose_backend())

    def _choose_backend(self) -> BackendChoice:
        """Choose :class:`DQNGradients` where it equals :meth:`loss`, else autograd."""
        reasons = [
            f"{type(self).__name__}.{name} overrides DQN's"
            for name in overridden_methods(self, DQN, ["loss"])
        ]
        if not private_torch_apis():
            reasons.append(f"torch {torch.__version__} is not a release it was tested with")
        wanted = None if self.config.fast_path else False
        choice = choose_backend("hand-written", reasons, wanted)
        if choice.name == AUTOGRAD:
            return choice
        on_cpu = self.device.type == "cpu" and bool(self.config.hidden_sizes)
        if on_cpu and numba_installed():
            return BackendChoice("compiled", f"{choice.reason}; numba's compiled loops")
        return BackendChoice(choice.name, f"{choice.reason}; torch operations")

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
        """One training round: ``gradient_steps`` DQN updates.

        All minibatches of the round are drawn with one index draw and one gather. The
        target network does not change during a round (it is updated between env steps),
        so its values for every minibatch's next observations come from one pass
        (:class:`ChunkedTargetValues`).
        """
        cfg = self.config
        steps = cfg.gradient_steps
        obs, actions, rewards, next_obs, terminated = self.buffer.sample_batches(
            steps, cfg.batch_size, self.rng, self.device
        )
        if self._target_values is None:  # the kernels only for the compiled backend
            compiled = None if self.backend == "compiled" else False
            self._target_values = ChunkedTargetValues(self._target_parameters, compiled=compiled)
        with torch.no_grad():
            next_target = self._target_values(next_obs)
            discount = (1.0 - terminated).mul_(cfg.gamma)
        actions = actions.unsqueeze(-1)
        if self.backend != AUTOGRAD:
            mean_loss = self._fast_round(obs, actions, rewards, discount, next_obs, next_target)
            means = dict.fromkeys(STATISTICS, mean_loss)
        else:
            rows = []
            for i in range(steps):
                batch = DQNBatch(
                    obs[i], actions[i], rewards[i], discount[i], next_obs[i], next_target[i]
                )
                loss, stats = self.loss(batch)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                self._finish_update(loss, clip_grad_norm(self._parameters, cfg.max_grad_norm))
                rows.append(torch.stack([value.reshape(()) for value in stats.values()]))
            means = dict(zip(stats, torch.stack(rows).mean(0).tolist()))
        self._last = {
            **means,
            "exploration_rate": self._exploration,
            "learning_rate": cfg.learning_rate,
        }

    def loss(self, batch: DQNBatch) -> tuple[Any, dict[str, Any]]:
        """DQN's loss on one minibatch, for autograd: the definition every backend follows.

        The Huber loss (``smooth_l1_loss``) of ``Q(obs)[action]`` against the TD target
        ``reward + discount * next_value``, where the next value is
        ``Q_target(next)[argmax Q(next)]`` with ``double_q`` and ``max Q_target(next)``
        without; the target carries no gradient. Override it in a subclass to change the
        objective (the hand-written backend then steps aside).

        Args:
            batch: the minibatch.

        Returns:
            ``(loss, stats)``: the scalar loss and a dict of detached scalar tensors,
            :data:`STATISTICS` in that order (an override may add more).

        Example:
            >>> agent = DQN("MlpPolicy", "CartPole-v1", hidden_sizes=(8,))
            >>> batch = DQNBatch(torch.zeros(2, 4), torch.zeros(2, 1, dtype=torch.long),
            ...                  torch.ones(2), torch.full((2,), 0.99), torch.zeros(2, 4),
            ...                  torch.zeros(2, 2))
            >>> loss, stats = agent.loss(batch)
            >>> tuple(stats) == STATISTICS
            True
        """
        with torch.no_grad():
            if self.config.double_q:
                best = self.q_net(batch.next_observations).argmax(-1, keepdim=True)
                next_q = batch.next_target_values.gather(-1, best).squeeze(-1)
            else:
                next_q = batch.next_target_values.max(-1).values
            target = torch.addcmul(batch.rewards, batch.discounts, next_q)
        q = self.q_net(batch.observations).gather(-1, batch.actions).squeeze(-1)
        loss = F.smooth_l1_loss(q, target)
        detached = loss.detach()
        return loss, {"loss": detached, "q_loss": detached}

    def _finish_update(self, loss: Any, grad_norm: Any) -> None:
        self.num_updates += 1
        self._check_update(loss, grad_norm)
        self._adam_step()

    def _fast_round(
        self,
        obs: Any,
        actions: Any,
        rewards: Any,
        discount: Any,
        next_obs: Any,
        next_target: Any,
    ) -> float:
        """Run the round's updates through the hand-written backend; return the mean loss."""
        cfg = self.config
        if self._gradients is None:
            compiled = None if self.backend == "compiled" else False
            self._gradients = DQNGradients(self._parameters, cfg.double_q, compiled)
        gradients = self._gradients
        # Contiguous once per round, so no minibatch needs a copy of its own.
        if cfg.double_q:
            inputs = torch.cat([obs, next_obs], 1).unbind(0)
            next_values = next_target.contiguous().unbind(0)
        else:
            inputs = obs.contiguous().unbind(0)
            next_values = next_target.max(-1, keepdim=True).values.unbind(0)
        rewards = rewards.unsqueeze(-1).contiguous().unbind(0)
        discount = discount.unsqueeze(-1).contiguous().unbind(0)
        actions = actions.contiguous().unbind(0)
        errors = torch.empty(cfg.gradient_steps, cfg.batch_size, 1, device=self.device)
        monitor, max_norm, adam_step = self.monitor, cfg.max_grad_norm, self._adam_step
        for i, error in enumerate(errors.unbind(0)):
            gradients(inputs[i], actions[i], rewards[i], discount[i], next_values[i], error)
            grad_norm = gradients.clip_(max_norm)
            if monitor is not None or not math.isfinite(grad_norm):
                self._finish_update(huber(error), grad_norm)  # checks, may raise
            else:
                self.num_updates += 1
                adam_step()
        return float(huber(errors))

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


def huber(errors: Any) -> Any:
    """Mean Huber loss (``smooth_l1_loss`` with beta 1) of TD errors ``q - target``.

    Example:
        >>> float(huber(torch.tensor([0.5, -3.0])))
        1.3125
    """
    return F.smooth_l1_loss(errors, torch.zeros_like(errors))


def _linear_layers(parameters: list[Any]) -> tuple[list[Any], list[Any]]:
    return list(parameters[0::2]), list(parameters[1::2])


class ChunkedTargetValues:
    """``q_net(inputs)`` for a ReLU MLP over many rows, in chunks, into reused buffers.

    The target network's values for a whole training round's next observations (thousands
    of rows) in chunks of ``rows`` rows: each chunk's activations stay in cache and are
    written into buffers kept from one round to the next (fresh megabyte buffers cost
    page faults each round). With the compiled kernels (:func:`compiled_kernels`) the
    narrow first and last layers run as loops; the rest are torch matrix products.

    Args:
        parameters: the network's ``[weight, bias, ...]`` of its Linear layers, in order.
        rows: rows per chunk.
        compiled: use the compiled kernels (``None``: when numba is installed and the
            parameters are float32 on the CPU).

    Example:
        >>> from palaestra.train.offpolicy import relu_mlp
        >>> net = relu_mlp(3, (8, 8), 2)
        >>> values = ChunkedTargetValues(list(net.parameters()), rows=4)
        >>> x = torch.randn(2, 5, 3)
        >>> torch.allclose(values(x), net(x).detach(), atol=1e-5)
        True
    """

    def __init__(self, parameters: list[Any], rows: int = 256, compiled: bool | None = None):
        self.weights, self.biases = _linear_layers(parameters)
        self.rows = int(rows)
        first = self.weights[0]
        usable = first.device.type == "cpu" and first.dtype == torch.float32
        self.kernels: Any = compiled_kernels() if usable and compiled is not False else None
        if compiled and self.kernels is None:
            raise ValueError("compiled=True needs numba (pip install 'palaestra[fast]').")
        self._buffers: list[Any] = []

    def _chunk_buffers(self, rows: int) -> list[Any]:
        if not self._buffers or len(self._buffers[0]) < rows:
            first = self.weights[0]
            self._buffers = [
                torch.empty(
                    max(rows, self.rows), w.shape[0], dtype=first.dtype, device=first.device
                )
                for w in self.weights[:-1]
            ]
        return [b[:rows] for b in self._buffers]

    @torch.no_grad()
    def __call__(self, inputs: Any) -> Any:
        """Return the network's outputs for ``inputs`` of shape ``(..., in)``."""
        weights, biases, kernels = self.weights, self.biases, self.kernels
        flat = inputs.reshape(-1, inputs.shape[-1])
        if kernels is not None:
            flat = flat.contiguous()
        result = torch.empty(len(flat), weights[-1].shape[0], dtype=flat.dtype, device=flat.device)
        for start in range(0, len(flat), self.rows):
            chunk = flat[start : start + self.rows]
            buffers = self._chunk_buffers(len(chunk))
            hidden = chunk
            for layer, (weight, bias) in enumerate(zip(weights, biases)):
                last = layer == len(weights) - 1
                out = result[start : start + len(chunk)] if last else buffers[layer]
                narrow = min(weight.shape) <= COMPILED_INPUT
                if kernels is not None and narrow:
                    kernels.narrow_forward(
                        hidden.numpy(), weight.numpy(), bias.numpy(), out.numpy(), not last
                    )
                else:
                    torch.addmm(bias, hidden, weight.t(), out=out)
                    if not last:
                        out.relu_()
                hidden = out
        return result.reshape(*inputs.shape[:-1], result.shape[-1])


class DQNGradients:
    """DQN's Huber TD-loss gradients for a ReLU MLP, written by hand (no autograd graph).

    Each call takes one minibatch and leaves the gradients of ``smooth_l1_loss(Q(obs)[a],
    reward + discount * next_value)`` in the parameters' ``.grad``, equal to what autograd
    computes. The next value is ``Q_target(next)[argmax Q(next)]`` with ``double_q``
    (double DQN: the online network's choice comes from the same forward pass, over the
    observations stacked on the next observations) and ``max Q_target(next)`` without it.

    The gradients live in one flat buffer (each ``.grad`` is a view of it, written in
    place), so :meth:`clip_` measures and scales them with one operation each. With the
    compiled kernels (:func:`compiled_kernels`; float32 on the CPU, at least one hidden
    layer) the output layer, the loss and a first layer of at most
    :data:`COMPILED_INPUT` inputs run as loops, the wide layers as torch matrix products
    into buffers kept between calls.

    Args:
        parameters: the Q-network's ``[weight, bias, weight, bias, ...]`` of its Linear
            layers, in order (ReLU between them).
        double_q: whether the next value is the double-DQN one.
        compiled: use the compiled kernels (``None``: whenever they apply and numba is
            installed; ``False``: torch operations only).

    Raises:
        ValueError: for ``compiled=True`` where the kernels cannot run.

    Example:
        >>> from palaestra.train.offpolicy import relu_mlp
        >>> net = relu_mlp(2, (4,), 3)
        >>> gradients = DQNGradients(list(net.parameters()), double_q=False)
        >>> error = gradients(torch.ones(2, 2), torch.zeros(2, 1, dtype=torch.long),
        ...                   torch.ones(2, 1), torch.full((2, 1), 0.9), torch.zeros(2, 1))
        >>> tuple(error.shape), tuple(net[0].weight.grad.shape)
        ((2, 1), (4, 2))
    """

    def __init__(self, parameters: list[Any], double_q: bool, compiled: bool | None = None):
        self.parameters = list(parameters)
        self.double_q = bool(double_q)
        self.weights, self.biases = _linear_layers(self.parameters)
        first = self.parameters[0]
        self.flat, self.grads = flat_grads(self.parameters)
        self.weight_grads, self.bias_grads = self.grads[0::2], self.grads[1::2]
        cpu = first.device.type == "cpu"
        # MKL is slow at products with a narrow side (a few observation features); on the
        # CPU NumPy's BLAS computes the first layer's weight gradient several times faster.
        narrow = cpu and first.shape[1] <= NARROW_INPUT
        self._first_grad = self.weight_grads[0].numpy() if narrow else None
        self._flat_np = self.flat.numpy() if cpu else None
        usable = cpu and first.dtype == torch.float32 and len(self.weights) >= 2
        self.kernels: Any = compiled_kernels() if usable and compiled is not False else None
        if compiled and self.kernels is None:
            raise ValueError(
                "compiled=True needs numba (pip install 'palaestra[fast]'), float32 "
                "parameters on the CPU and at least one hidden layer."
            )
        self._compiled_first = self.kernels is not None and first.shape[1] <= COMPILED_INPUT
        if self.kernels is not None:  # NumPy views, made once (the kernels take arrays)
            self._np_weights = [w.detach().numpy() for w in self.weights]
            self._np_biases = [b.detach().numpy() for b in self.biases]
            self._np_weight_grads = [g.numpy() for g in self.weight_grads]
            self._np_bias_grads = [g.numpy() for g in self.bias_grads]
        self._buffers: dict[tuple[int, int], Any] = {}

    def __call__(
        self,
        inputs: Any,
        actions: Any,
        rewards: Any,
        discount: Any,
        next_values: Any,
        error_out: Any = None,
    ) -> Any:
        """Write one minibatch's gradients; return its TD errors ``q - target``.

        Args:
            inputs: observations, ``(batch, obs_dim)``; with ``double_q`` the observations
                then the next observations, ``(2 * batch, obs_dim)``.
            actions: taken actions, ``(batch, 1)`` int64.
            rewards: rewards, ``(batch, 1)``.
            discount: ``gamma * (1 - terminated)``, ``(batch, 1)``.
            next_values: with ``double_q`` the target network's Q-values of the next
                observations, ``(batch, n_actions)``; without it their maximum,
                ``(batch, 1)``.
            error_out: an optional contiguous ``(batch, 1)`` tensor the TD errors are
                written into.

        Returns:
            The TD errors, ``(batch, 1)`` (their mean Huber loss is :func:`huber`):
            ``error_out`` when given; otherwise, with the compiled kernels, a buffer that
            the next call overwrites.
        """
        bind_grads(self.parameters, self.grads)
        with torch.no_grad():
            if self.kernels is not None:
                return self._compiled(inputs, actions, rewards, discount, next_values, error_out)
            error = self._torch(inputs, actions, rewards, discount, next_values)
            if error_out is None:
                return error
            return error_out.copy_(error)

    def _torch(self, inputs: Any, actions: Any, rewards: Any, discount: Any, next_values: Any):
        batch = len(actions)
        weights, biases = self.weights, self.biases
        activations = [inputs]
        hidden = inputs
        for weight, bias in zip(weights[:-1], biases[:-1]):
            hidden = torch.addmm(bias, hidden, weight.t()).relu_()
            activations.append(hidden)
        out = torch.addmm(biases[-1], hidden, weights[-1].t())
        if self.double_q:
            next_values = next_values.gather(-1, out[batch:].argmax(-1, keepdim=True))
            out = out[:batch]
        error = out.gather(-1, actions).sub_(torch.addcmul(rewards, discount, next_values))
        # d(mean Huber)/dq = clamp(q - target, -1, 1) / batch, only at the taken action.
        delta = torch.zeros_like(out).scatter_(
            -1, actions, error.clamp(-1.0, 1.0).mul_(1.0 / batch)
        )
        for layer in range(len(weights) - 1, -1, -1):
            layer_input = activations[layer]
            if self.double_q:
                layer_input = layer_input[:batch]
            self._weight_grad(layer, delta, layer_input)
            torch.sum(delta, 0, out=self.bias_grads[layer])
            if layer:
                delta = torch.ops.aten.threshold_backward(delta.mm(weights[layer]), layer_input, 0)
        return error

    def _weight_grad(self, layer: int, delta: Any, layer_input: Any) -> None:
        if layer == 0 and self._first_grad is not None:
            np.matmul(delta.numpy().T, layer_input.numpy(), out=self._first_grad)
        else:
            torch.mm(delta.t(), layer_input, out=self.weight_grads[layer])

    def _buffers_for(self, rows: int, batch: int) -> Any:
        key = (rows, batch)
        if key not in self._buffers:
            first = self.weights[0]
            new = functools.partial(torch.empty, dtype=first.dtype, device=first.device)
            widths = [w.shape[0] for w in self.weights]
            hidden = [new(rows, width) for width in widths[:-1]]  # hidden activations
            deltas = [new(batch, width) for width in widths[:-1]]  # d loss / d pre-activation
            q_values, error = new(rows, widths[-1]), new(batch, 1)
            arrays = [t.numpy() for t in (*hidden, *deltas, q_values, error)]
            self._buffers[key] = (hidden, deltas, error, arrays)
        return self._buffers[key]

    def _compiled(
        self,
        inputs: Any,
        actions: Any,
        rewards: Any,
        discount: Any,
        next_values: Any,
        error_out: Any,
    ) -> Any:
        kernels = self.kernels
        batch, rows = len(actions), len(inputs)
        weights, biases = self.weights, self.biases
        hidden, deltas, error, arrays = self._buffers_for(rows, batch)
        n_hidden = len(hidden)
        hidden_np, deltas_np = arrays[:n_hidden], arrays[n_hidden : 2 * n_hidden]
        q_values_np, error_np = arrays[-2:]
        if error_out is not None:
            error, error_np = error_out, error_out.numpy()
        x = inputs.contiguous()
        x_np = x.numpy()
        activations = [x, *hidden]
        for layer in range(n_hidden):
            if layer == 0 and self._compiled_first:
                kernels.narrow_forward(
                    x_np, self._np_weights[0], self._np_biases[0], hidden_np[0], True
                )
            else:
                weight, bias = weights[layer], biases[layer]
                torch.addmm(bias, activations[layer], weight.t(), out=hidden[layer]).relu_()
        last = n_hidden
        kernels.dqn_tail(
            hidden_np[last - 1],
            self._np_weights[last],
            self._np_biases[last],
            np.ascontiguousarray(actions.numpy()),
            np.ascontiguousarray(rewards.numpy()),
            np.ascontiguousarray(discount.numpy()),
            np.ascontiguousarray(next_values.numpy()),
            self.double_q,
            q_values_np,
            error_np,
            deltas_np[last - 1],
            self._np_weight_grads[last],
            self._np_bias_grads[last],
            self._np_bias_grads[last - 1],  # the sum of ``delta`` over the batch
        )
        # deltas[layer]: the loss gradient by layer ``layer``'s pre-activation, masked.
        delta = deltas[last - 1]
        for layer in range(last - 1, -1, -1):
            if layer == 0 and self._compiled_first:
                # ``delta`` is masked already, or ``pre`` below, which the kernel masks.
                kernels.narrow_backward(
                    delta.numpy(),
                    hidden_np[0],
                    x_np,
                    self._np_weight_grads[0],
                    self._np_bias_grads[0],
                )
                break
            layer_input = activations[layer][:batch]
            self._weight_grad(layer, delta, layer_input)
            if layer < last - 1:  # the tail summed the last hidden layer's
                torch.sum(delta, 0, out=self.bias_grads[layer])
            if layer == 0:
                break
            pre = torch.mm(delta, weights[layer], out=deltas[layer - 1])
            if layer == 1 and self._compiled_first:
                delta = pre
            else:
                delta = torch.ops.aten.threshold_backward(pre, layer_input, 0)
        return error

    @torch.no_grad()
    def clip_(self, max_norm: float) -> float:
        """Scale the gradients to a global L2 norm of at most ``max_norm``.

        The same scaling as :func:`~palaestra.train.offpolicy.clip_grad_norm` (factor
        ``max_norm / (norm + 1e-6)`` when below 1).

        Returns:
            The norm before clipping, as a float.
        """
        if self._flat_np is not None:
            total = math.sqrt(float(np.dot(self._flat_np, self._flat_np)))
        else:
            total = float(torch.linalg.vector_norm(self.flat))
        if math.isfinite(max_norm) and total + 1e-6 > max_norm:
            self.flat.mul_(min(1.0, max_norm / (total + 1e-6)))
        return total


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
