"""SAC's gradient step written by hand: the same gradients as autograd, without its graph.

:class:`SACGradients` computes the critics' and the actor's gradients of
:class:`~palaestra.train.sac.SAC`'s losses into kept buffers; :func:`compiled_kernels` are
the numba loops it runs around the 256-wide matrix products when numba is installed.
They are SAC's hand-written backend (:mod:`palaestra.train.core.backend`), used where
:class:`~palaestra.train.sac.SAC`'s own losses apply; ``tests/train/test_backends.py``
checks whole updates against autograd on ``SAC.critic_loss``/``SAC.actor_loss``, and
``tests/train/test_sac_gradients.py`` the pieces.

Example:
    >>> from palaestra.train.sac_networks import SquashedGaussianActor, TwinCritic
    >>> gradients = SACGradients(SquashedGaussianActor(3, 1, (8,)), TwinCritic(4, (8,)),
    ...                          TwinCritic(4, (8,)), compiled=False)
    >>> gradients.compiled
    False
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from palaestra.train._mlp_kernels import COMPILED_INPUT
from palaestra.train._mlp_kernels import compiled_kernels as mlp_kernels
from palaestra.train._torch import require_torch
from palaestra.train.core.optim import bind_grads, flat_grads
from palaestra.train.offpolicy import NARROW_INPUT
from palaestra.train.sac_networks import (
    _LOG_SQRT_2PI,
    LOG_STD_MAX,
    LOG_STD_MIN,
    TANH_EPSILON,
    SquashedGaussianActor,
    TwinCritic,
    squashed_sample,
)

__all__ = ["SACGradients", "compiled_kernels"]

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()
nn = torch.nn


def _linears(network: nn.Module) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """``(weight, bias)`` of each ``Linear`` of a ReLU stack, in order."""
    return [(m.weight, m.bias) for m in network.modules() if isinstance(m, nn.Linear)]


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
    :func:`palaestra.train._mlp_kernels.compiled_kernels`' ``narrow_forward``. The loops may sum in
    another order (as a BLAS does) but keep NaN and infinity. numba is the
    ``palaestra[fast]`` extra; without it the step runs as torch operations.

    Example:
        >>> kernels = compiled_kernels()
        >>> kernels is None or callable(kernels.critic_tail)
        True
    """
    if "kernels" not in _KERNELS:
        try:
            narrow = mlp_kernels()
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
    def twin_values(x1, x2, v1, v2, q1, q2):  # pragma: no cover - compiled
        """Both critics' output layers on one row: biases ``q1``, ``q2`` plus the dots."""
        for j in range(x1.shape[0]):
            q1 += x1[j] * v1[j]
            q2 += x2[j] * v2[j]
        return q1, q2

    @jit
    def target_tail(
        h1, h2, w1, b1, w2, b2, next_log_probs, rewards, discount, ent_coef, out
    ):  # pragma: no cover - compiled
        v1, v2 = w1[0], w2[0]
        for r in range(h1.shape[0]):
            q1, q2 = twin_values(h1[r], h2[r], v1, v2, b1[0], b2[0])
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
        rows = h1.shape[0]
        v1, v2 = w1[0], w2[0]
        counts[:] = 0
        total = 0.0
        for r in range(rows):
            q1, q2 = twin_values(h1[r], h2[r], v1, v2, b1[0], b2[0])
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
        self.kernels: Any = compiled_kernels() if usable and compiled is not False else None
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
        assert loss is not None  # a twin critic has two
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
            assert part is not None  # without grads, _backward returns the input gradient
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
