"""Soft Actor-Critic: twin critics, automatic entropy tuning, a tanh-squashed Gaussian.

The actor outputs a Gaussian's mean and log standard deviation (clamped to ``[-20, 2]``);
actions are ``tanh`` of a sample, scaled to the action box, and their log-probability
includes the ``tanh`` change of variables (with Stable-Baselines3's ``1e-6`` inside the
logarithm). The entropy coefficient used in a gradient step's losses is its value before
that step's update, as in Stable-Baselines3. The target critics follow by Polyak averaging,
and the entropy coefficient is learned towards ``-dim(action)`` unless fixed.
The actor's loss reads the critics through detached weights, so its backward pass does not
compute critic weight gradients that would be thrown away. Acting reads NumPy views of the
actor's weights.

Example:
    >>> from palaestra.train.sac import SAC
    >>> agent = SAC("MlpPolicy", "Pendulum-v1", learning_starts=32, batch_size=16,
    ...             hidden_sizes=(16,))
    >>> _ = agent.learn(64, progress_bar=False)
    >>> agent.num_steps, agent.predict(np.zeros(3, np.float32)).shape
    (64, (1,))
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.distributions import is_box
from palaestra.train.dqn import COMPILED_INPUT
from palaestra.train.offpolicy import (
    NARROW_INPUT,
    AdamStep,
    OffPolicyAgent,
    ReplayBuffer,
    bind_grads,
    flat_grads,
    numpy_mlp,
    polyak_update,
    relu_mlp,
)

torch = require_torch()
nn = torch.nn
F = torch.nn.functional

LOG_STD_MIN, LOG_STD_MAX = -20.0, 2.0
TANH_EPSILON = 1e-6
"""Added inside ``log(1 - tanh(u)^2)`` in the log-probability (as Stable-Baselines3 adds)."""
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


@dataclasses.dataclass
class SACConfig:
    """Hyper-parameters of :class:`SAC` (Stable-Baselines3's defaults unless noted).

    ``SAC(policy, "Pendulum-v1")`` starts from the env's preset instead (rl-zoo's tuned
    set), as ``palaestra train --algo sac`` does.

    Attributes:
        num_envs: sub-envs stepped together.
        learning_rate: Adam step size of the actor, the critics and the entropy coefficient.
        buffer_size: transitions the replay buffer keeps.
        learning_starts: env steps of uniform random actions before training.
        batch_size: transitions per gradient step.
        tau: Polyak rate of the target critics.
        gamma: discount factor.
        train_freq: vector steps between training rounds.
        gradient_steps: gradient steps per training round.
        ent_coef: ``"auto"`` (learned, starting at 1), ``"auto_<x>"`` (learned, starting
            at x) or a fixed float.
        target_entropy: ``"auto"`` (``-dim(action)``) or a float.
        target_update_interval: gradient steps between target updates.
        fast_path: compute the gradients by hand into buffers kept between steps (no
            autograd graph, no fresh activations); equal to the autograd path on the same
            batch (see :class:`SACGradients`).
        hidden_sizes: hidden widths of the ReLU actor and critics.
        log_interval: env steps between statistics rows (and callback calls).
        check_finite: stop at the first non-finite reward or loss.
        normalize_observation: wrap the env in ``NormalizeObservation``.
        normalize_reward: wrap the env in ``NormalizeReward``.
        seed: seeds torch, NumPy and the env.
        device: ``"cpu"``, ``"cuda"`` or ``"auto"``.
        torch_threads: intra-op threads for torch on the CPU.
        window: episodes in the reported rolling mean of returns.
        diagnostics: check every env step and update (slower).
        step_timeout: seconds one env step may take.

    Example:
        >>> SACConfig().tau
        0.005
    """

    num_envs: int = 1
    learning_rate: float = 3e-4
    buffer_size: int = 1_000_000
    learning_starts: int = 100
    batch_size: int = 256
    tau: float = 0.005
    gamma: float = 0.99
    train_freq: int = 1
    gradient_steps: int = 1
    ent_coef: Any = "auto"
    target_entropy: Any = "auto"
    target_update_interval: int = 1
    fast_path: bool = True
    hidden_sizes: tuple[int, ...] = (256, 256)
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
                raise ValueError(f"SACConfig.{name} must be a positive int, got {value!r}.")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be positive, got {self.learning_rate!r}.")
        self.hidden_sizes = tuple(self.hidden_sizes)
        _initial_ent_coef(self.ent_coef)


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


def squashed_sample(
    mean: torch.Tensor, log_std: torch.Tensor, noise: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``tanh(mean + exp(log_std) * noise)``, its log-probability and the pre-``tanh`` value.

    The log-probability is the Gaussian's, summed over the last dimension, less the
    ``tanh`` change of variables ``log(1 - tanh(u)^2 + 1e-6)`` (the small constant keeps it
    finite where ``tanh`` saturates; Stable-Baselines3 and CleanRL write it the same way).

    Args:
        mean: the Gaussian's mean, ``(batch, action_dim)``.
        log_std: its log standard deviation, same shape.
        noise: standard normal draws, same shape.

    Returns:
        ``(action, log_prob, pre_tanh)``: shapes ``(batch, action_dim)``, ``(batch,)``
        and ``(batch, action_dim)``.

    Example:
        >>> action, log_prob, _ = squashed_sample(torch.zeros(1, 1), torch.zeros(1, 1),
        ...                                       torch.zeros(1, 1))
        >>> float(action), round(float(log_prob), 4)
        (0.0, -0.9189)
    """
    pre_tanh = mean + log_std.exp() * noise
    action = torch.tanh(pre_tanh)
    log_prob = (-0.5 * noise.square() - log_std - _LOG_SQRT_2PI).sum(-1)
    log_prob = log_prob - torch.log(1.0 - action.square() + TANH_EPSILON).sum(-1)
    return action, log_prob, pre_tanh


class SquashedGaussianActor(nn.Module):
    """ReLU MLP -> mean and log std of a Gaussian, squashed by ``tanh`` into ``[-1, 1]``.

    Args:
        obs_dim: flat observation size.
        action_dim: action size.
        hidden_sizes: hidden widths.

    Example:
        >>> actor = SquashedGaussianActor(3, 1, (8,))
        >>> action, log_prob = actor.sample(torch.zeros(5, 3))
        >>> action.shape, bool(action.abs().max() < 1)
        (torch.Size([5, 1]), True)
    """

    def __init__(self, obs_dim: int, action_dim: int, hidden_sizes: tuple[int, ...]):
        super().__init__()
        body = relu_mlp(obs_dim, hidden_sizes, 1)
        self.body = nn.Sequential(*list(body)[:-1])
        width = hidden_sizes[-1] if hidden_sizes else obs_dim
        self.mu = nn.Linear(width, action_dim)
        self.log_std = nn.Linear(width, action_dim)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Mean and clamped log standard deviation."""
        hidden = self.body(obs)
        return self.mu(hidden), self.log_std(hidden).clamp(LOG_STD_MIN, LOG_STD_MAX)

    def sample(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Return a reparameterized squashed sample in ``[-1, 1]`` and its log-probability."""
        mean, log_std = self(obs)
        action, log_prob, _ = squashed_sample(mean, log_std, torch.randn_like(mean))
        return action, log_prob

    def numpy_forward(self) -> Any:
        """Return a NumPy function ``obs -> (mean, log_std)`` over views of the weights (CPU)."""
        body = numpy_mlp(self.body) if len(self.body) else (lambda x: x)
        mu_w, mu_b = self.mu.weight.detach().numpy().T, self.mu.bias.detach().numpy()
        ls_w, ls_b = self.log_std.weight.detach().numpy().T, self.log_std.bias.detach().numpy()

        def forward(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            hidden = body(obs)
            log_std = np.clip(hidden @ ls_w + ls_b, LOG_STD_MIN, LOG_STD_MAX)
            return hidden @ mu_w + mu_b, log_std

        return forward


class TwinCritic(nn.Module):
    """Two independent Q-networks ``Q(obs, action)``, evaluated together.

    (Stacking the pair into batched matrix products was measured slower on the CPU than two
    plain ``addmm`` stacks at these sizes, so they stay two ``nn.Sequential`` networks.)

    Args:
        in_dim: observation size plus action size.
        hidden_sizes: hidden widths.

    Example:
        >>> critic = TwinCritic(4, (8,))
        >>> critic(torch.zeros(5, 3), torch.zeros(5, 1)).shape
        torch.Size([2, 5])
    """

    def __init__(self, in_dim: int, hidden_sizes: tuple[int, ...]):
        super().__init__()
        self.q1 = relu_mlp(in_dim, hidden_sizes, 1)
        self.q2 = relu_mlp(in_dim, hidden_sizes, 1)

    def forward(
        self, obs: torch.Tensor, actions: torch.Tensor, detach_weights: bool = False
    ) -> torch.Tensor:
        """Both networks' Q-values, shape ``(2, batch)``.

        With ``detach_weights`` gradients flow to the inputs only.
        """
        inputs = torch.cat([obs, actions], -1)
        return torch.stack(
            [_q_values(self.q1, inputs, detach_weights), _q_values(self.q2, inputs, detach_weights)]
        )


def _q_values(network: nn.Sequential, inputs: torch.Tensor, detach_weights: bool) -> torch.Tensor:
    if not detach_weights:
        return network(inputs).squeeze(-1)
    hidden = inputs
    for layer in network:
        if isinstance(layer, nn.Linear):
            hidden = F.linear(hidden, layer.weight.detach(), layer.bias.detach())
        else:
            hidden = layer(hidden)
    return hidden.squeeze(-1)


def _linears(network: nn.Module) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """``(weight, bias)`` of each ``Linear`` of a ReLU stack, in order."""
    return [(m.weight, m.bias) for m in network if isinstance(m, nn.Linear)]


def _mm_into(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    """``out = a @ b``; for an inner size of a few columns as broadcast multiply-adds.

    (MKL takes ~100 us for a 256x1 by 1x256 product on this kind of CPU; two
    elementwise passes over the output take a few.)
    """
    if a.shape[1] > 4:
        return torch.mm(a, b, out=out)
    torch.mul(a[:, :1], b[:1], out=out)
    for j in range(1, a.shape[1]):
        out.addcmul_(a[:, j : j + 1], b[j : j + 1])
    return out


def _narrow_on_cpu(layer_input: torch.Tensor) -> bool:
    return layer_input.device.type == "cpu" and layer_input.shape[1] <= NARROW_INPUT


_KERNELS: dict[str, Any] = {}


def compiled_kernels() -> Any:
    """Return the numba kernels of SAC's compiled gradient step, or ``None`` without numba.

    Around the 256-wide matrix products (which stay torch products into kept buffers), a
    SAC step was ~150 small torch calls of 2-40 us each (narrow first layers and output
    layers, heads, ``tanh`` and log-probabilities, ReLU and ReLU-backward passes, bias
    copies and bias-gradient sums, row gathers). These loops do that work in a few calls,
    one pass each over warm buffers: ``bias_relu`` (bias and ReLU after a product),
    ``mask_sum`` (ReLU backward and the bias gradient), ``actor_heads`` (mean, clamped log
    std, squashed sample, log-probability), ``target_tail`` (both target critics' output
    layers and the soft target), ``critic_tail`` (a critic's output layer, its loss and
    backward pass into the last hidden layer), ``actor_q_tail`` (the critics' values of the
    actor's actions, the actor loss and which critic is the smaller per row),
    ``picked_delta``, ``picked_mask`` and ``picked_input_grad`` (the actor-loss backward
    through each critic over its own rows) and ``actor_head_backward`` (through ``tanh``,
    the sample and the heads). The first layers go through
    :func:`palaestra.train.dqn.compiled_kernels`' ``narrow_forward``. The loops may sum in
    another order (as a BLAS does) but keep NaN and infinity. numba is the
    ``palaestra[fast]`` extra; without it the step runs as torch operations.

    Example:
        >>> kernels = compiled_kernels()
        >>> kernels is None or callable(kernels.critic_tail)
        True
    """
    if "kernels" not in _KERNELS:
        from palaestra.train.dqn import compiled_kernels as dqn_kernels

        try:
            narrow = dqn_kernels()
            _KERNELS["kernels"] = None if narrow is None else _build_kernels(narrow)
        except ImportError:
            _KERNELS["kernels"] = None
    return _KERNELS["kernels"]


def _build_kernels(narrow: Any) -> Any:
    import types

    import numba

    jit = numba.njit(cache=True, fastmath={"reassoc", "contract"}, boundscheck=False)
    zero, one, half = np.float32(0), np.float32(1), np.float32(0.5)
    low, high = np.float32(LOG_STD_MIN), np.float32(LOG_STD_MAX)
    eps, log_sqrt_2pi = np.float32(TANH_EPSILON), np.float32(_LOG_SQRT_2PI)

    @jit
    def bias_relu(out, bias):  # pragma: no cover - compiled
        rows, width = out.shape
        for r in range(rows):
            o = out[r]
            for j in range(width):
                v = o[j] + bias[j]
                if v < zero:
                    v = zero
                o[j] = v

    @jit
    def mask_sum(delta, hidden, bias_grad):  # pragma: no cover - compiled
        rows, width = delta.shape
        bias_grad[:] = 0
        for r in range(rows):
            d, h = delta[r], hidden[r]
            for j in range(width):
                v = d[j] if h[j] > zero else zero
                d[j] = v
                bias_grad[j] += v

    @jit
    def actor_heads(
        hidden, mu_w, mu_b, ls_w, ls_b, noise, actions, log_probs, raw_log_std, log_std
    ):  # pragma: no cover - compiled
        rows, width = hidden.shape
        n_actions = mu_w.shape[0]
        for r in range(rows):
            h = hidden[r]
            gaussian = zero
            correction = zero
            for a in range(n_actions):
                m, w_m = mu_b[a], mu_w[a]
                s, w_s = ls_b[a], ls_w[a]
                for j in range(width):
                    m += h[j] * w_m[j]
                    s += h[j] * w_s[j]
                raw_log_std[r, a] = s
                if s < low:
                    s = low
                if s > high:
                    s = high
                log_std[r, a] = s
                n = noise[r, a]
                action = np.tanh(m + np.exp(s) * n)
                actions[r, a] = action
                gaussian += -half * n * n - s - log_sqrt_2pi
                correction += np.log(one - action * action + eps)
            log_probs[r] = gaussian - correction

    @jit
    def target_tail(
        h1, h2, w1, b1, w2, b2, next_log_probs, rewards, discount, ent_coef, out
    ):  # pragma: no cover - compiled
        rows, width = h1.shape
        v1, v2 = w1[0], w2[0]
        for r in range(rows):
            q1, q2 = b1[0], b2[0]
            x1, x2 = h1[r], h2[r]
            for j in range(width):
                q1 += x1[j] * v1[j]
                q2 += x2[j] * v2[j]
            q = q1 if (q1 < q2 or q1 != q1) else q2
            out[r] = rewards[r] + discount[r] * (q - ent_coef * next_log_probs[r])

    @jit
    def critic_tail(
        hidden, weight, bias, target, delta, weight_grad, bias_grad, hidden_bias_grad
    ):  # pragma: no cover - compiled
        rows, width = hidden.shape
        w, wg = weight[0], weight_grad[0]
        scale = one / np.float32(rows)
        weight_grad[:] = 0
        bias_grad[:] = 0
        hidden_bias_grad[:] = 0
        total = 0.0
        for r in range(rows):
            h, d = hidden[r], delta[r]
            q = bias[0]
            for j in range(width):
                q += h[j] * w[j]
            e = q - target[r]
            total += e * e
            g = e * scale
            bias_grad[0] += g
            for j in range(width):
                wg[j] += g * h[j]
                v = g * w[j] if h[j] > zero else zero
                d[j] = v
                hidden_bias_grad[j] += v
        return 0.5 * total / rows

    @jit
    def actor_q_tail(
        h1, h2, w1, b1, w2, b2, log_probs, ent_coef, index, counts
    ):  # pragma: no cover
        rows, width = h1.shape
        v1, v2 = w1[0], w2[0]
        counts[:] = 0
        total = 0.0
        for r in range(rows):
            q1, q2 = b1[0], b2[0]
            x1, x2 = h1[r], h2[r]
            for j in range(width):
                q1 += x1[j] * v1[j]
                q2 += x2[j] * v2[j]
            k = 1 if q2 < q1 else 0
            index[k, counts[k]] = r
            counts[k] += 1
            total += ent_coef * log_probs[r] - (q2 if k else q1)
        return total / rows

    @jit
    def picked_delta(hidden, index, weight, scale, delta):  # pragma: no cover - compiled
        width = hidden.shape[1]
        w = weight[0]
        for i in range(len(index)):
            h, d = hidden[index[i]], delta[i]
            for j in range(width):
                d[j] = scale * w[j] if h[j] > zero else zero

    @jit
    def picked_mask(delta, hidden, index):  # pragma: no cover - compiled
        width = delta.shape[1]
        for i in range(len(index)):
            h, d = hidden[index[i]], delta[i]
            for j in range(width):
                if not h[j] > zero:
                    d[j] = zero

    @jit
    def picked_input_grad(delta, hidden, index, weight, first, input_grad):  # pragma: no cover
        width = delta.shape[1]
        n_inputs = input_grad.shape[1]
        columns = np.ascontiguousarray(weight[:, first : first + n_inputs].T)
        for i in range(len(index)):
            r = index[i]
            h, d = hidden[r], delta[i]
            for a in range(n_inputs):
                c = columns[a]
                acc = zero
                for j in range(width):
                    if h[j] > zero:
                        acc += d[j] * c[j]
                input_grad[r, a] = acc

    @jit
    def actor_head_backward(
        action_grad,
        actions,
        noise,
        log_std,
        raw_log_std,
        log_prob_grad,
        hidden,
        mu_w,
        ls_w,
        mu_w_grad,
        mu_b_grad,
        ls_w_grad,
        ls_b_grad,
        delta,
        hidden_bias_grad,
    ):  # pragma: no cover - compiled
        rows, width = hidden.shape
        n_actions = mu_w.shape[0]
        two = np.float32(2)
        mu_w_grad[:] = 0
        mu_b_grad[:] = 0
        ls_w_grad[:] = 0
        ls_b_grad[:] = 0
        hidden_bias_grad[:] = 0
        for r in range(rows):
            h, d = hidden[r], delta[r]
            for j in range(width):
                d[j] = zero
            for a in range(n_actions):
                action = actions[r, a]
                one_minus_square = one - action * action
                squash = (two * log_prob_grad) * action / (one_minus_square + eps)
                pre_grad = (action_grad[r, a] + squash) * one_minus_square
                ls_grad = pre_grad * noise[r, a] * np.exp(log_std[r, a]) - log_prob_grad
                raw = raw_log_std[r, a]
                ls_grad *= one if (raw >= low and raw <= high) else zero
                mu_b_grad[a] += pre_grad
                ls_b_grad[a] += ls_grad
                gm, gs, wm, ws = mu_w_grad[a], ls_w_grad[a], mu_w[a], ls_w[a]
                for j in range(width):
                    gm[j] += pre_grad * h[j]
                    gs[j] += ls_grad * h[j]
                    d[j] += pre_grad * wm[j] + ls_grad * ws[j]
            for j in range(width):
                v = d[j] if h[j] > zero else zero
                d[j] = v
                hidden_bias_grad[j] += v

    return types.SimpleNamespace(
        narrow_forward=narrow.narrow_forward,
        bias_relu=bias_relu,
        mask_sum=mask_sum,
        actor_heads=actor_heads,
        target_tail=target_tail,
        critic_tail=critic_tail,
        actor_q_tail=actor_q_tail,
        picked_delta=picked_delta,
        picked_mask=picked_mask,
        picked_input_grad=picked_input_grad,
        actor_head_backward=actor_head_backward,
    )


class SACGradients:
    """SAC's gradients for ReLU-MLP actors and twin critics, written by hand.

    No autograd graph is built, and every activation, gradient and temporary of the
    256-wide layers lives in a buffer kept between gradient steps (written with ``out=``
    and in place): on the CPU the fresh 256x256 activations and gradients that autograd
    allocates each step are cold in the cache, and their ReLU, ReLU backward and bias
    copies cost ~10x the same passes over warm buffers. The gradients are those autograd
    computes for :class:`SAC`'s losses (``tests/train/test_offpolicy_fast.py`` checks
    them on the same batch); each optimizer's gradients live in one flat buffer that
    every ``.grad`` is a view of.

    One gradient step calls :meth:`sample`, :meth:`target`, :meth:`critic_gradients`
    (then the critic's optimizer step) and :meth:`actor_gradients`, in that order.

    Args:
        actor: the :class:`SquashedGaussianActor` (at least one hidden layer).
        critic: the :class:`TwinCritic` being trained.
        critic_target: its target copy.
        compiled: run the small work around the 256-wide products through
            :func:`compiled_kernels` (``None``: whenever numba is installed and the networks
            are float32 on the CPU with at most :data:`~palaestra.train.dqn.COMPILED_INPUT`
            observation plus action inputs; ``False``: torch operations only).

    Raises:
        ValueError: for an actor without hidden layers, or ``compiled=True`` where the
            kernels cannot run.

    Example:
        >>> actor, critic = SquashedGaussianActor(3, 1, (8,)), TwinCritic(4, (8,))
        >>> gradients = SACGradients(actor, critic, critic)
        >>> obs, actions = torch.zeros(5, 3), torch.zeros(5, 1)
        >>> pi, log_pi, next_pi, next_log_pi = gradients.sample(obs, obs)
        >>> target = gradients.target(obs, next_pi, next_log_pi, torch.zeros(5),
        ...                           torch.full((5,), 0.99), torch.tensor(0.1))
        >>> critic_loss = gradients.critic_gradients(obs, actions, target)
        >>> actor_loss = gradients.actor_gradients(obs, torch.tensor(0.1))
        >>> tuple(actor.mu.weight.grad.shape), tuple(critic.q2[0].weight.grad.shape)
        ((1, 8), (8, 4))
    """

    def __init__(
        self,
        actor: SquashedGaussianActor,
        critic: TwinCritic,
        critic_target: TwinCritic,
        compiled: bool | None = None,
    ):
        if not len(actor.body):
            raise ValueError("SACGradients needs an actor with at least one hidden layer.")
        self.actor, self.critic = actor, critic
        self._body = _linears(actor.body)
        self._heads = [(actor.mu.weight, actor.mu.bias), (actor.log_std.weight, actor.log_std.bias)]
        self._critics = [_linears(critic.q1), _linears(critic.q2)]
        self._targets = [_linears(critic_target.q1), _linears(critic_target.q2)]
        self._actor_params = list(actor.parameters())
        self._critic_params = list(critic.parameters())
        self._actor_grads = flat_grads(self._actor_params)[1]
        self._critic_grads = flat_grads(self._critic_params)[1]
        self._buffers: dict[str, torch.Tensor] = {}
        self._arrays: dict[str, np.ndarray] = {}
        self._sample: tuple[Any, ...] = ()
        first = self._body[0][0]
        usable = (
            first.device.type == "cpu"
            and first.dtype == torch.float32
            and max(first.shape[1], self._critics[0][0][0].shape[1]) <= COMPILED_INPUT
        )
        self.kernels = compiled_kernels() if usable and compiled is not False else None
        if compiled and self.kernels is None:
            raise ValueError(
                "compiled=True needs numba (pip install 'palaestra[fast]'), float32 "
                f"networks on the CPU and at most {COMPILED_INPUT} observation and action "
                "inputs."
            )
        if self.kernels is not None:  # NumPy views, made once (the kernels take arrays)

            def arrays(layers: list) -> list[tuple[np.ndarray, np.ndarray]]:
                return [(w.detach().numpy(), b.detach().numpy()) for w, b in layers]

            self._np_body = arrays(self._body)
            self._np_heads = arrays(self._heads)
            self._np_critics = [arrays(layers) for layers in self._critics]
            self._np_targets = [arrays(layers) for layers in self._targets]
            self._np_actor_grads = [g.numpy() for g in self._actor_grads]
            self._np_critic_grads = [g.numpy() for g in self._critic_grads]

    @property
    def compiled(self) -> bool:
        """Whether the step runs through :func:`compiled_kernels`."""
        return self.kernels is not None

    def _pair(self, name: str, rows: int, columns: int, like: torch.Tensor) -> tuple[Any, Any]:
        """Return a kept buffer's first ``rows`` rows as a tensor and a NumPy view of it.

        ``columns == 0`` keeps a vector.
        """
        buffer = self._buffers.get(name)
        if (
            buffer is None
            or buffer.shape[0] < rows
            or buffer.shape[1:] != ((columns,) if columns else ())
        ):
            shape = (rows, columns) if columns else (rows,)
            buffer = torch.empty(shape, dtype=like.dtype, device=like.device)
            self._buffers[name] = buffer
            self._arrays[name] = buffer.numpy()
        return buffer[:rows], self._arrays[name][:rows]

    def _buffer(self, name: str, rows: int, columns: int, like: torch.Tensor) -> torch.Tensor:
        """Return the first ``rows`` rows of a kept ``(capacity, columns)`` buffer."""
        buffer = self._buffers.get(name)
        if (
            buffer is None
            or buffer.shape[0] < rows
            or buffer.shape[1] != columns
            or buffer.dtype != like.dtype
        ):
            buffer = torch.empty(rows, columns, dtype=like.dtype, device=like.device)
            self._buffers[name] = buffer
        return buffer[:rows]

    def _forward(
        self, layers: list, inputs: torch.Tensor, name: str, relu_last: bool = False
    ) -> list[torch.Tensor]:
        """Activations ``[inputs, hidden..., output]`` of a ReLU stack, in kept buffers."""
        activations = [inputs]
        hidden = inputs
        last = len(layers) if relu_last else len(layers) - 1
        for index, (weight, bias) in enumerate(layers):
            out = self._buffer(f"{name}{index}", len(inputs), weight.shape[0], inputs)
            torch.addmm(bias, hidden, weight.t(), out=out)
            if index < last:
                out.relu_()
            activations.append(out)
            hidden = out
        return activations

    def _backward(
        self,
        layers: list,
        activations: list[torch.Tensor],
        delta: torch.Tensor,
        name: str,
        grads: list[torch.Tensor] | None,
        last: int | None = None,
        input_columns: int = 0,
    ) -> torch.Tensor | None:
        """Backward pass from ``delta`` at the output of ``layers[last]`` (default: the top).

        With ``grads`` (``[weight, bias, ...]`` views) writes the parameter gradients;
        without, returns the gradient at the inputs' columns from ``input_columns`` on
        (only then is it computed).
        """
        rows = len(delta)
        top = len(layers) - 1 if last is None else last
        for index in range(top, -1, -1):
            weight = layers[index][0]
            layer_input = activations[index][:rows]
            if grads is not None:
                if index == 0 and _narrow_on_cpu(layer_input):
                    np.matmul(delta.numpy().T, layer_input.numpy(), out=grads[0].numpy())
                else:
                    torch.mm(delta.t(), layer_input, out=grads[2 * index])
                torch.sum(delta, 0, out=grads[2 * index + 1])
                if index == 0:
                    return None
            if index == 0:
                return torch.mm(delta, weight[:, input_columns:])
            hidden = self._buffer(f"{name}d{index}", rows, weight.shape[1], delta)
            _mm_into(delta, weight, hidden)
            torch.ops.aten.threshold_backward.grad_input(hidden, layer_input, 0, grad_input=hidden)
            delta = hidden
        return None

    def _forward_compiled(
        self, layers: list, arrays: list, inputs: tuple[Any, Any], name: str, hidden: int
    ) -> list[tuple[Any, Any]]:
        """Return ``[inputs, hidden...]`` as (tensor, array) pairs, ``hidden`` ReLU layers."""
        x, x_np = inputs
        rows = len(x)
        out, out_np = self._pair(f"{name}0", rows, layers[0][0].shape[0], x)
        self.kernels.narrow_forward(x_np, arrays[0][0], arrays[0][1], out_np, True)
        activations = [(x, x_np), (out, out_np)]
        for index in range(1, hidden):
            weight = layers[index][0]
            out, out_np = self._pair(f"{name}{index}", rows, weight.shape[0], x)
            torch.mm(activations[-1][0], weight.detach().t(), out=out)
            self.kernels.bias_relu(out_np, arrays[index][1])
            activations.append((out, out_np))
        return activations

    def _backward_compiled(
        self,
        layers: list,
        activations: list[tuple[Any, Any]],
        delta: tuple[Any, Any],
        name: str,
        grads: list[Any],
        np_grads: list[np.ndarray],
        top: int,
    ) -> None:
        """Write the weight and bias gradients below hidden layer ``top``.

        ``delta`` is the masked gradient at that layer's output (whose bias gradient is
        already written).
        """
        delta_t, delta_np = delta
        rows = len(delta_t)
        for index in range(top, 0, -1):
            lower, lower_np = activations[index]
            torch.mm(delta_t.t(), lower[:rows], out=grads[2 * index])
            weight = layers[index][0].detach()
            raw, raw_np = self._pair(f"{name}d{index}", rows, weight.shape[1], delta_t)
            torch.mm(delta_t, weight, out=raw)
            self.kernels.mask_sum(raw_np, lower_np[:rows], np_grads[2 * index - 1])
            delta_t, delta_np = raw, raw_np
        np.matmul(delta_np.T, activations[0][1][:rows], out=np_grads[0])

    def _sample_compiled(self, obs: torch.Tensor, next_obs: torch.Tensor) -> tuple[Any, ...]:
        rows, action_dim = len(obs), self._heads[0][0].shape[0]
        stacked = self._pair("actor_in", 2 * rows, obs.shape[1], obs)
        torch.cat([obs, next_obs], out=stacked[0])
        activations = self._forward_compiled(
            self._body, self._np_body, stacked, "actor", len(self._body)
        )
        noise, noise_np = self._pair("noise", 2 * rows, action_dim, obs)
        noise[:rows].normal_()  # drawn for obs first, as two actor.sample calls draw it
        noise[rows:].normal_()
        actions, actions_np = self._pair("actions", 2 * rows, action_dim, obs)
        log_probs, log_probs_np = self._pair("log_probs", 2 * rows, 0, obs)
        _, raw_np = self._pair("raw_log_std", 2 * rows, action_dim, obs)
        _, log_std_np = self._pair("log_std", 2 * rows, action_dim, obs)
        (mu_w, mu_b), (ls_w, ls_b) = self._np_heads
        self.kernels.actor_heads(
            activations[-1][1], mu_w, mu_b, ls_w, ls_b, noise_np, actions_np, log_probs_np,
            raw_np, log_std_np,
        )  # fmt: skip
        self._sample = (
            activations,
            raw_np[:rows],
            log_std_np[:rows],
            noise_np[:rows],
            (actions[:rows], actions_np[:rows]),
            log_probs_np[:rows],
        )
        return actions[:rows], log_probs[:rows], actions[rows:], log_probs[rows:]

    def _target_compiled(
        self, next_obs: Any, next_actions: Any, next_log_probs: Any, rewards: Any,
        discount: Any, ent_coef: Any,
    ) -> torch.Tensor:  # fmt: skip
        rows = len(next_obs)
        inputs = self._pair("critic_in", rows, next_obs.shape[1] + next_actions.shape[1], next_obs)
        torch.cat([next_obs, next_actions], 1, out=inputs[0])
        hidden = len(self._targets[0]) - 1
        tops = [
            self._forward_compiled(layers, arrays, inputs, f"q{k}", hidden)[-1][1]
            for k, (layers, arrays) in enumerate(zip(self._targets, self._np_targets))
        ]
        out, out_np = self._pair("target", rows, 0, next_obs)
        (w1, b1), (w2, b2) = self._np_targets[0][-1], self._np_targets[1][-1]
        self.kernels.target_tail(
            tops[0], tops[1], w1, b1, w2, b2, next_log_probs.numpy(), rewards.numpy(),
            discount.numpy(), np.float32(float(ent_coef)), out_np,
        )  # fmt: skip
        return out

    def _critic_gradients_compiled(
        self, obs: torch.Tensor, actions: torch.Tensor, target: torch.Tensor
    ) -> torch.Tensor:
        rows = len(obs)
        inputs = self._pair("critic_in", rows, obs.shape[1] + actions.shape[1], obs)
        torch.cat([obs, actions], 1, out=inputs[0])
        target_np = target.numpy()
        per_critic = len(self._critic_grads) // 2
        top = len(self._critics[0]) - 2  # the last hidden layer
        loss = 0.0
        for k, (layers, arrays) in enumerate(zip(self._critics, self._np_critics)):
            activations = self._forward_compiled(layers, arrays, inputs, f"q{k}", top + 1)
            grads = self._critic_grads[k * per_critic : (k + 1) * per_critic]
            np_grads = self._np_critic_grads[k * per_critic : (k + 1) * per_critic]
            delta = self._pair(f"q{k}top", rows, layers[top][0].shape[0], obs)
            out_w, out_b = arrays[-1]
            loss += self.kernels.critic_tail(
                activations[-1][1], out_w, out_b, target_np, delta[1], np_grads[-2],
                np_grads[-1], np_grads[2 * top + 1],
            )  # fmt: skip
            self._backward_compiled(layers, activations, delta, f"q{k}", grads, np_grads, top)
        return torch.tensor(loss, dtype=obs.dtype)

    def _actor_gradients_compiled(self, obs: torch.Tensor, ent_coef: Any) -> torch.Tensor:
        activations, raw_log_std, log_std, noise, (actions, actions_np), log_probs = self._sample
        rows, obs_dim = obs.shape
        kernels = self.kernels
        inputs = self._pair("critic_in", rows, obs_dim + actions.shape[1], obs)
        torch.cat([obs, actions], 1, out=inputs[0])
        top = len(self._critics[0]) - 2
        critic_activations = [
            self._forward_compiled(layers, arrays, inputs, f"q{k}", top + 1)
            for k, (layers, arrays) in enumerate(zip(self._critics, self._np_critics))
        ]
        index = self._arrays.get("chosen")
        if index is None or index.shape[1] < rows:
            index = self._arrays["chosen"] = np.empty((2, rows), np.int64)
            self._arrays["counts"] = np.empty(2, np.int64)
        counts = self._arrays["counts"]
        coefficient = np.float32(float(ent_coef))
        (w1, b1), (w2, b2) = self._np_critics[0][-1], self._np_critics[1][-1]
        loss = kernels.actor_q_tail(
            critic_activations[0][-1][1], critic_activations[1][-1][1], w1, b1, w2, b2,
            log_probs, coefficient, index, counts,
        )  # fmt: skip
        # Each row's gradient reaches only the critic with the smaller value, so each
        # critic's backward pass runs over its own rows only (rows are independent).
        _, action_grad_np = self._pair("action_grad", rows, actions.shape[1], obs)
        scale = np.float32(-1.0 / rows)
        for k, (layers, arrays) in enumerate(zip(self._critics, self._np_critics)):
            count = int(counts[k])
            if count == 0:
                continue
            picked = index[k, :count]
            hidden = critic_activations[k]
            width = layers[top][0].shape[0]
            delta, delta_np = self._pair(f"q{k}pick", count, width, obs)
            kernels.picked_delta(hidden[-1][1], picked, arrays[-1][0], scale, delta_np)
            for depth in range(top, 0, -1):
                weight = layers[depth][0].detach()
                raw, raw_np = self._pair(f"q{k}pick{depth}", count, weight.shape[1], obs)
                torch.mm(delta, weight, out=raw)
                if depth > 1:
                    kernels.picked_mask(raw_np, hidden[depth][1], picked)
                delta, delta_np = raw, raw_np
            kernels.picked_input_grad(
                delta_np, hidden[1][1], picked, arrays[0][0], obs_dim, action_grad_np
            )
        grads, np_grads = self._actor_grads, self._np_actor_grads
        n_body = 2 * len(self._body)
        last = len(self._body) - 1
        hidden_np = activations[-1][1][:rows]
        delta = self._pair("actor_dh", rows, hidden_np.shape[1], obs)
        (mu_w, _), (ls_w, _) = self._np_heads
        kernels.actor_head_backward(
            action_grad_np, actions_np, noise, log_std, raw_log_std,
            np.float32(coefficient * np.float32(1.0 / rows)), hidden_np, mu_w, ls_w,
            np_grads[n_body], np_grads[n_body + 1], np_grads[n_body + 2], np_grads[n_body + 3],
            delta[1], np_grads[2 * last + 1],
        )  # fmt: skip
        self._backward_compiled(self._body, activations, delta, "actor", grads, np_grads, last)
        return torch.tensor(loss, dtype=obs.dtype)

    @torch.no_grad()
    def sample(
        self, obs: torch.Tensor, next_obs: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Squashed samples and log-probabilities for ``obs`` and for ``next_obs``.

        One forward pass over both (stacked); the noise is drawn for ``obs`` first, as
        two ``actor.sample`` calls draw it. What :meth:`actor_gradients` needs is kept.

        Returns:
            ``(actions, log_probs, next_actions, next_log_probs)``.
        """
        if self.kernels is not None:
            return self._sample_compiled(obs, next_obs)
        rows = len(obs)
        stacked = self._buffer("actor_in", 2 * rows, obs.shape[1], obs)
        torch.cat([obs, next_obs], out=stacked)
        activations = self._forward(self._body, stacked, "actor", relu_last=True)
        hidden = activations[-1]
        (mu_w, mu_b), (ls_w, ls_b) = self._heads
        mean = torch.addmm(mu_b, hidden, mu_w.t())
        raw_log_std = torch.addmm(ls_b, hidden, ls_w.t())
        log_std = raw_log_std.clamp(LOG_STD_MIN, LOG_STD_MAX)
        noise = torch.randn_like(mean[:rows])
        next_noise = torch.randn_like(mean[:rows])
        actions, log_probs, _ = squashed_sample(mean[:rows], log_std[:rows], noise)
        next_actions, next_log_probs, _ = squashed_sample(mean[rows:], log_std[rows:], next_noise)
        self._sample = (activations, raw_log_std[:rows], log_std[:rows], noise, actions, log_probs)
        return actions, log_probs, next_actions, next_log_probs

    @torch.no_grad()
    def target(
        self,
        next_obs: torch.Tensor,
        next_actions: torch.Tensor,
        next_log_probs: torch.Tensor,
        rewards: torch.Tensor,
        discount: torch.Tensor,
        ent_coef: torch.Tensor,
    ) -> torch.Tensor:
        """``reward + discount * (min of the target critics - ent_coef * next log-prob)``."""
        if self.kernels is not None:
            return self._target_compiled(
                next_obs, next_actions, next_log_probs, rewards, discount, ent_coef
            )
        inputs = self._buffer(
            "critic_in", len(next_obs), next_obs.shape[1] + next_actions.shape[1], next_obs
        )
        torch.cat([next_obs, next_actions], 1, out=inputs)
        q1 = self._forward(self._targets[0], inputs, "q0")[-1]
        q2 = self._forward(self._targets[1], inputs, "q1")[-1]
        next_q = torch.minimum(q1, q2).squeeze(-1) - ent_coef * next_log_probs
        return torch.addcmul(rewards, discount, next_q)

    @torch.no_grad()
    def critic_gradients(
        self, obs: torch.Tensor, actions: torch.Tensor, target: torch.Tensor
    ) -> torch.Tensor:
        """Write the gradients of ``0.5 * sum over critics of mean((q - target)^2)``.

        Returns:
            That loss (a 0-d tensor).
        """
        bind_grads(self._critic_params, self._critic_grads)
        if self.kernels is not None:
            return self._critic_gradients_compiled(obs, actions, target)
        inputs = self._buffer("critic_in", len(obs), obs.shape[1] + actions.shape[1], obs)
        torch.cat([obs, actions], 1, out=inputs)
        scale = 1.0 / len(obs)
        loss = None
        per_critic = len(self._critic_grads) // 2
        for k, layers in enumerate(self._critics):
            activations = self._forward(layers, inputs, f"q{k}")
            error = activations[-1].squeeze(-1) - target
            half_mse = 0.5 * error.square().mean()
            loss = half_mse if loss is None else loss + half_mse
            grads = self._critic_grads[k * per_critic : (k + 1) * per_critic]
            self._backward(layers, activations, error.mul_(scale).unsqueeze(-1), f"q{k}", grads)
        return loss

    @torch.no_grad()
    def actor_gradients(self, obs: torch.Tensor, ent_coef: torch.Tensor) -> torch.Tensor:
        """Write the gradients of ``mean(ent_coef * log_prob - min of the critics)``.

        The critics are read at their current weights, for the actions :meth:`sample`
        drew for ``obs``; only the actor's gradients are written.

        Returns:
            That loss (a 0-d tensor).
        """
        bind_grads(self._actor_params, self._actor_grads)
        if self.kernels is not None:
            return self._actor_gradients_compiled(obs, ent_coef)
        activations, raw_log_std, log_std, noise, actions, log_probs = self._sample
        rows, obs_dim = obs.shape
        inputs = self._buffer("critic_in", rows, obs_dim + actions.shape[1], obs)
        torch.cat([obs, actions], 1, out=inputs)
        critic_activations = [
            self._forward(layers, inputs, f"q{k}") for k, layers in enumerate(self._critics)
        ]
        q = torch.stack([a[-1] for a in critic_activations]).squeeze(-1)
        q_min, chosen = q.min(0)
        loss = (ent_coef * log_probs - q_min).mean()
        scale = 1.0 / rows
        # Each row's gradient reaches only the critic with the smaller value, so each
        # critic's backward pass runs over its own rows only (rows are independent).
        action_grad = torch.empty_like(actions)
        for k, layers in enumerate(self._critics):
            index = (chosen == k).nonzero().squeeze(1)
            count = len(index)
            if count == 0:
                continue
            picked = [inputs]
            for depth, activation in enumerate(critic_activations[k][1:-1], 1):
                rows_out = self._buffer(f"q{k}pick{depth}", rows, activation.shape[1], activation)
                picked.append(torch.index_select(activation, 0, index, out=rows_out[:count]))
            delta = torch.full((count, 1), -scale, dtype=q.dtype, device=q.device)
            part = self._backward(layers, picked, delta, f"q{k}", None, input_columns=obs_dim)
            action_grad.index_copy_(0, index, part)
        # Through tanh, the reparameterized Gaussian sample and its log-probability.
        log_prob_grad = ent_coef * scale
        one_minus_square = 1.0 - actions.square()
        # d log_prob / d action = 2 a / (1 - a^2 + eps); d action / d pre_tanh = 1 - a^2.
        squash_grad = (2.0 * log_prob_grad) * actions / (one_minus_square + TANH_EPSILON)
        pre_tanh_grad = (action_grad + squash_grad).mul_(one_minus_square)
        log_std_grad = (pre_tanh_grad * noise * log_std.exp()).sub_(log_prob_grad)
        log_std_grad.mul_((raw_log_std >= LOG_STD_MIN) & (raw_log_std <= LOG_STD_MAX))
        hidden = activations[-1][:rows]
        grads = self._actor_grads
        n_body = 2 * len(self._body)
        (mu_w, _), (ls_w, _) = self._heads
        torch.mm(pre_tanh_grad.t(), hidden, out=grads[n_body])
        torch.sum(pre_tanh_grad, 0, out=grads[n_body + 1])
        torch.mm(log_std_grad.t(), hidden, out=grads[n_body + 2])
        torch.sum(log_std_grad, 0, out=grads[n_body + 3])
        delta = self._buffer("actor_dh", rows, hidden.shape[1], hidden)
        _mm_into(torch.cat([pre_tanh_grad, log_std_grad], 1), torch.cat([mu_w, ls_w]), delta)
        torch.ops.aten.threshold_backward.grad_input(delta, hidden, 0, grad_input=delta)
        last = len(self._body) - 1
        self._backward(self._body, activations, delta, "actor", grads[:n_body], last=last)
        return loss


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
        self.actor = SquashedGaussianActor(self.obs_dim, self.action_dim, cfg.hidden_sizes)
        self.critic = TwinCritic(self.obs_dim + self.action_dim, cfg.hidden_sizes)
        self.critic_target = TwinCritic(self.obs_dim + self.action_dim, cfg.hidden_sizes)
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
        if self._gradients is None and cfg.fast_path and cfg.hidden_sizes:
            self._gradients = SACGradients(self.actor, self.critic, self.critic_target)
        step = self._fast_step if self._gradients is not None else self._autograd_step
        for i in range(cfg.gradient_steps):
            critic_loss, actor_loss, ent_coef = step(
                *(part[i] for part in batches[:4]), discounts[i]
            )
            self.num_updates += 1
            if self.num_updates % cfg.target_update_interval == 0:
                polyak_update(self._critic_parameters, self._target_parameters, cfg.tau)
        critic_value, actor_value = float(critic_loss.detach()), float(actor_loss.detach())
        self._last = {
            "loss": critic_value + actor_value,
            "q_loss": critic_value,
            "actor_loss": actor_value,
            "ent_coef": float(ent_coef),
            "learning_rate": cfg.learning_rate,
        }

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
        elif self.learn_ent_coef:
            ent_coef_loss = -(self.log_ent_coef * (log_probs.detach() + self.target_entropy)).mean()
            self.ent_coef_optimizer.zero_grad(set_to_none=True)
            ent_coef_loss.backward()
            self._steps[2]()
        return ent_coef

    def _autograd_step(
        self, obs_t: Any, actions: Any, rewards: Any, next_t: Any, discount: Any
    ) -> tuple[Any, Any, Any]:
        """One gradient step with autograd; return ``(critic loss, actor loss, ent_coef)``."""
        actor_step, critic_step, _ = self._steps
        pi_actions, pi_log_probs = self.actor.sample(obs_t)
        with torch.no_grad():
            next_actions, next_log_probs = self.actor.sample(next_t)
        ent_coef = self._ent_coef_update(pi_log_probs)
        with torch.no_grad():
            next_q = self.critic_target(next_t, next_actions).min(0).values
            next_q = next_q - ent_coef * next_log_probs
            target = torch.addcmul(rewards, discount, next_q)
        q = self.critic(obs_t, actions)
        critic_loss = 0.5 * (q - target).square().mean(1).sum()
        self.critic_optimizer.zero_grad(set_to_none=True)
        critic_loss.backward()
        self._check_update(critic_loss, critic_loss.detach())
        critic_step()
        q_pi = self.critic(obs_t, pi_actions, detach_weights=True).min(0).values
        actor_loss = (ent_coef * pi_log_probs - q_pi).mean()
        self.actor_optimizer.zero_grad(set_to_none=True)
        actor_loss.backward()
        actor_step()
        return critic_loss, actor_loss, ent_coef

    def _fast_step(
        self, obs_t: Any, actions: Any, rewards: Any, next_t: Any, discount: Any
    ) -> tuple[Any, Any, Any]:
        """Take the same step through :class:`SACGradients` (no autograd graph)."""
        actor_step, critic_step, _ = self._steps
        gradients = self._gradients
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
