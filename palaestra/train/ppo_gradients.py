"""PPO's hand-written gradient step as compiled loops over reused NumPy buffers.

The stacked tanh MLP of :class:`~palaestra.train.networks.ActorCritic` trains on small
batches (CartPole: 256 rows of 4 inputs, 64x64 hidden layers), where one gradient step is
~12 MFLOP in three 64-wide matrix products per tower and everything else is per-call
overhead. :class:`PPOGradients` therefore runs the step as:

- the matrix products through NumPy's BLAS into buffers kept between steps (``out=``);
- ``tanh`` through NumPy (vectorized; torch's CPU ``tanh`` here is ~7x slower, a compiled
  scalar loop ~20x);
- numba loops for the rest, one pass each over warm buffers: the hidden layers' bias
  additions, the ``tanh`` backward with the bias gradient, and one ``tail`` that reads the
  output layer's products and evaluates the action distribution (categorical or diagonal
  Gaussian), the clipped surrogate, the (optionally clipped) value loss and the entropy
  bonus, writing the gradient by the outputs and the output bias gradient;
- the gradients in one flat buffer that every ``.grad`` is a view of, so clipping the
  global norm is one ``np.dot`` and at most one multiply.

The loops may sum in another order than torch (as a BLAS does) but keep NaN and infinity,
so the non-finite checks still fire. numba is the ``palaestra[fast]`` extra; without it
(:func:`compiled_kernels` returns ``None``) PPO runs its ``"hand-written"`` torch backend
instead. ``tests/train/test_backends.py`` checks this step against autograd on
:meth:`PPO.loss <palaestra.train.ppo.PPO.loss>` on the same batch.

Example:
    >>> from palaestra.train.distributions import CategoricalHead
    >>> from palaestra.train.networks import ActorCritic
    >>> model, head = ActorCritic(4, 2, (8, 8)), CategoricalHead(2)
    >>> step = PPOGradients.create(model, head)
    >>> step is None or step.kernels is not None
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.core.optim import FlatGradients
from palaestra.train.distributions import CategoricalHead, GaussianHead

__all__ = ["FlatGradients", "PPOGradients", "compiled_kernels"]

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()

_KERNELS: dict[str, Any] = {}


def compiled_kernels() -> Any:
    """Return the numba kernels of the compiled PPO step, or ``None`` without numba.

    Example:
        >>> kernels = compiled_kernels()
        >>> kernels is None or callable(kernels.categorical_tail)
        True
    """
    if "kernels" not in _KERNELS:
        from palaestra.train import _ppo_kernels  # imports numba: only when first asked

        _KERNELS["kernels"] = _ppo_kernels if _ppo_kernels.AVAILABLE else None
    return _KERNELS["kernels"]


class PPOGradients:
    """One PPO gradient step of an :class:`ActorCritic` by compiled loops and NumPy products.

    Computes the same loss and gradients as PPO's torch fast path (and so as autograd):
    the clipped surrogate, the value loss (clipped around the old values when
    ``clip_range_vf`` is set) times ``vf_coef`` and the entropy bonus times ``ent_coef``,
    averaged over the minibatch. Every parameter's ``.grad`` becomes a view of one flat
    buffer that each call overwrites, then the global norm is clipped to ``max_grad_norm``.

    Build it with :meth:`create`, which returns ``None`` where it does not apply (no numba,
    parameters not float32 on the CPU, or a head other than :class:`CategoricalHead` and
    :class:`GaussianHead`).

    Args:
        model: the stacked policy and value network (its weights are read, not copied, so
            the step follows every optimizer update).
        head: the action distribution.
        kernels: from :func:`compiled_kernels`.

    Example:
        >>> from palaestra.train.distributions import CategoricalHead
        >>> from palaestra.train.networks import ActorCritic
        >>> model, head = ActorCritic(3, 2, (8,)), CategoricalHead(2)
        >>> step = PPOGradients.create(model, head)
        >>> if step is not None:
        ...     stats, norm = step(torch.zeros(4, 3), torch.zeros(4, dtype=torch.int64),
        ...                        *[torch.zeros(4)] * 4, clip_range=0.2, clip_range_vf=None,
        ...                        vf_coef=0.5, ent_coef=0.0, max_grad_norm=0.5)
        ...     print(model.weights[0].grad.shape)
        ... else:
        ...     print(model.weights[0].shape)
        torch.Size([2, 3, 8])
    """

    def __init__(self, model: Any, head: Any, kernels: Any):
        self.model, self.head, self.kernels = model, head, kernels
        self.gaussian = type(head) is GaussianHead
        self.parameters = [*model.parameters(), *head.parameters()]
        self.weights = [w.detach().numpy() for w in model.weights]
        self.biases = [b.detach().numpy() for b in model.biases]
        self.gradients = FlatGradients(self.parameters)
        by_param = dict(zip(map(id, self.parameters), self.gradients.views))
        self.weight_grads = [by_param[id(w)].numpy() for w in model.weights]
        self.bias_grads = [by_param[id(b)].numpy() for b in model.biases]
        self.log_std = head.log_std.detach().numpy() if self.gaussian else None
        self.log_std_grad = by_param[id(head.log_std)].numpy() if self.gaussian else None
        # Buffers for every layer's output: the hidden activations, then the output layer.
        self._widths = [w.shape[2] for w in self.weights]
        self._storage: list[np.ndarray] = []
        self._rows = -1
        self._views: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
        self.stats = np.zeros(6, np.float64)
        self._warm_up()

    def _warm_up(self) -> None:
        """Run every loop once on two zero rows, so numba loads (or compiles) them now.

        The first call of a cached numba function still costs ~0.1-1 s (loading, and the
        first one initializes numba itself); paying it when the agent is built keeps it out
        of the first training steps. The gradients are left at zero, the weights untouched.
        """
        rows = 2
        obs = torch.zeros(rows, self.weights[0].shape[1])
        if self.gaussian:
            actions = torch.zeros(rows, self.weights[-1].shape[2])
        else:
            actions = torch.zeros(rows, dtype=torch.int64)
        zeros = torch.zeros(rows)
        settings: dict[str, Any] = {
            "clip_range": 0.2,
            "clip_range_vf": 0.2,
            "vf_coef": 0.5,
            "ent_coef": 0.0,
        }
        self(obs, actions, zeros, zeros, zeros, zeros, max_grad_norm=0.5, **settings)
        self.evaluate(obs.numpy(), actions.numpy())
        self.gradients.zero()
        self._rows = -1

    @classmethod
    def create(cls, model: Any, head: Any) -> PPOGradients | None:
        """Return a compiled step for ``model`` and ``head``, or ``None`` where none applies.

        Example:
            >>> from palaestra.train.distributions import MultiCategoricalHead
            >>> from palaestra.train.networks import ActorCritic
            >>> PPOGradients.create(ActorCritic(3, 5, (8,)), MultiCategoricalHead([2, 3]))
        """
        if type(head) not in (CategoricalHead, GaussianHead):
            return None
        parameters = [*model.parameters(), *head.parameters()]
        if any(p.device.type != "cpu" or p.dtype != torch.float32 for p in parameters):
            return None
        kernels = compiled_kernels()
        return None if kernels is None else cls(model, head, kernels)

    def _buffers(self, rows: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Activation and gradient buffers for ``rows`` rows (warm storage, reshaped views)."""
        if rows == self._rows:
            return self._views
        if not self._storage or self._storage[0].size < 2 * rows * max(self._widths):
            capacity = 2 * max(rows, 256) * max(self._widths)
            self._storage = [np.zeros(capacity, np.float32) for _ in range(2 * len(self._widths))]
        count = len(self._widths)
        activations = [
            self._storage[i][: 2 * rows * w].reshape(2, rows, w) for i, w in enumerate(self._widths)
        ]
        deltas = [
            self._storage[count + i][: 2 * rows * w].reshape(2, rows, w)
            for i, w in enumerate(self._widths)
        ]
        self._rows, self._views = rows, (activations, deltas)
        return self._views

    def _forward(self, x: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Every layer's output for the rows of ``x`` (the output layer's without bias)."""
        kernels, weights, biases = self.kernels, self.weights, self.biases
        outputs, deltas = self._buffers(x.shape[0])
        last = len(weights) - 1
        layer_input = x
        for depth in range(last + 1):
            np.matmul(layer_input, weights[depth], out=outputs[depth])
            if depth < last:
                kernels.add_bias(outputs[depth], biases[depth])
                np.tanh(outputs[depth], out=outputs[depth])
            layer_input = outputs[depth]
        return outputs, deltas

    def evaluate(self, observations: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, ...]:
        """Log-probabilities of ``actions`` and values of ``observations``, as new arrays.

        Args:
            observations: ``(rows, obs_dim)`` float32.
            actions: actions of the first ``len(actions)`` rows (the others, e.g. the
                observations after a rollout, get values only).

        Returns:
            ``(log_probs, values)`` float32, of ``len(actions)`` and ``rows`` entries.
        """
        x = np.ascontiguousarray(observations, dtype=np.float32)
        outputs, _ = self._forward(x)
        log_probs = np.empty(len(actions), np.float32)
        values = np.empty(x.shape[0], np.float32)
        out, bias = outputs[-1], self.biases[-1]
        if self.gaussian:
            self.kernels.gaussian_log_probs(out, bias, actions, self.log_std, log_probs, values)
        else:
            self.kernels.categorical_log_probs(out, bias, actions, log_probs, values)
        return log_probs, values

    def __call__(
        self,
        observations: torch.Tensor,
        actions: torch.Tensor,
        old_log_probs: torch.Tensor,
        old_values: torch.Tensor,
        advantages: torch.Tensor,
        returns: torch.Tensor,
        *,
        clip_range: float,
        clip_range_vf: float | None,
        vf_coef: float,
        ent_coef: float,
        max_grad_norm: float,
        normalize_advantage: bool = True,
    ) -> tuple[np.ndarray, float]:
        """Write one minibatch's clipped gradients into ``.grad``; return ``(stats, norm)``.

        Args:
            observations: ``(batch, obs_dim)`` float32.
            actions: ``(batch,)`` int64 indices, or ``(batch, n)`` float32 for a Gaussian.
            old_log_probs: log-probabilities when the rollout was collected.
            old_values: values when the rollout was collected.
            advantages: advantages (standardized here when ``normalize_advantage``).
            returns: value targets.
            clip_range: surrogate clipping of the probability ratio.
            clip_range_vf: clipping of the value change, or ``None``.
            vf_coef: weight of the value loss.
            ent_coef: weight of the entropy bonus.
            max_grad_norm: global gradient-norm limit.
            normalize_advantage: standardize the advantages over this minibatch.

        Returns:
            The statistics ``[loss, policy_loss, value_loss, entropy, approx_kl,
            clip_fraction]`` (float64, reused by the next call) and the gradient norm before
            clipping.
        """
        kernels, weights = self.kernels, self.weights
        weight_grads, bias_grads = self.weight_grads, self.bias_grads
        x = np.ascontiguousarray(observations.numpy(), dtype=np.float32)
        rows = x.shape[0]
        outputs, deltas = self._forward(x)
        self.gradients.attach()
        output = len(weights) - 1
        common = (
            outputs[output],
            self.biases[output],
            actions.numpy(),
            old_log_probs.numpy(),
            old_values.numpy(),
            advantages.numpy(),
            returns.numpy(),
        )
        settings = (
            normalize_advantage and rows > 1,
            float(clip_range),
            -1.0 if clip_range_vf is None else float(clip_range_vf),
            float(vf_coef),
            float(ent_coef),
        )
        if self.gaussian:
            kernels.gaussian_tail(
                *common,
                self.log_std,
                *settings,
                deltas[output],
                bias_grads[output],
                self.log_std_grad,
                self.stats,
            )
        else:
            kernels.categorical_tail(
                *common, *settings, deltas[output], bias_grads[output], self.stats
            )
        for depth in range(output, 0, -1):
            hidden = outputs[depth - 1]
            np.matmul(hidden.transpose(0, 2, 1), deltas[depth], out=weight_grads[depth])
            np.matmul(deltas[depth], weights[depth].transpose(0, 2, 1), out=deltas[depth - 1])
            kernels.tanh_backward(deltas[depth - 1], hidden, bias_grads[depth - 1])
        np.matmul(x.T, deltas[0], out=weight_grads[0])
        norm = self.gradients.clip(max_grad_norm)
        return self.stats, norm
