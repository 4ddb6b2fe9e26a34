"""numba loops shared by the off-policy trainers' hand-written backends (DQN, SAC).

They replace the small torch operations around the wide matrix products of a ReLU MLP
(each torch call costs a few microseconds of dispatch, the loops less in all). numba is
the ``palaestra[fast]`` extra; without it :func:`compiled_kernels` returns ``None`` and the
backends run the same steps as torch operations.

Example:
    >>> kernels = compiled_kernels()
    >>> kernels is None or callable(kernels.narrow_forward)
    True
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

COMPILED_INPUT = 16
"""Observation sizes up to which the compiled kernels run the first layer (see
:func:`compiled_kernels`)."""


def numba_installed() -> bool:
    """Whether numba can be imported (checked without importing it).

    Example:
        >>> isinstance(numba_installed(), bool)
        True
    """
    return importlib.util.find_spec("numba") is not None


_KERNELS: dict[str, Any] = {}


def compiled_kernels() -> Any:
    """Return the numba kernels of the off-policy backends, or ``None`` without numba.

    Three loops replace the small torch operations around the 256-wide matrix products:
    ``narrow_forward`` (a ReLU layer with few inputs), ``dqn_tail`` (the output layer, the
    double/plain DQN target, the Huber gradient and the output layer's backward pass) and
    ``narrow_backward`` (the first layer's ReLU mask and gradients). numba is the
    ``palaestra[fast]`` extra; without it the same steps run as torch operations.

    Example:
        >>> kernels = compiled_kernels()
        >>> kernels is None or callable(kernels.dqn_tail)
        True
    """
    if "kernels" not in _KERNELS:
        try:
            _KERNELS["kernels"] = _build_kernels()
        except ImportError:
            _KERNELS["kernels"] = None
    return _KERNELS["kernels"]


def _build_kernels() -> Any:
    import types

    import numba

    # Reassociation and contraction let the loops vectorize (sums in another order, as a
    # BLAS does); NaN and infinity keep their IEEE meaning, so non-finite checks still fire.
    jit = numba.njit(cache=True, fastmath={"reassoc", "contract"}, boundscheck=False)

    @jit
    def narrow_forward(x, weight, bias, out, relu):  # pragma: no cover - compiled
        rows, n_in = x.shape
        n_out = weight.shape[0]
        if n_in <= n_out:  # few inputs: accumulate rows of the transposed weight
            wt = np.ascontiguousarray(weight.T)
            for r in range(rows):
                for j in range(n_out):
                    out[r, j] = bias[j]
                for i in range(n_in):
                    xi = x[r, i]
                    for j in range(n_out):
                        out[r, j] += xi * wt[i, j]
                if relu:
                    for j in range(n_out):
                        if out[r, j] < 0:
                            out[r, j] = 0
        else:  # few outputs: dot products
            for r in range(rows):
                for j in range(n_out):
                    acc = bias[j]
                    for i in range(n_in):
                        acc += x[r, i] * weight[j, i]
                    if relu and acc < 0:
                        acc = 0
                    out[r, j] = acc

    @jit
    def dqn_tail(
        hidden,
        weight,
        bias,
        actions,
        rewards,
        discount,
        next_values,
        double_q,
        out,
        error,
        delta,
        weight_grad,
        bias_grad,
        delta_sum,
    ):  # pragma: no cover - compiled
        rows, width = hidden.shape
        n_actions = weight.shape[0]
        batch = actions.shape[0]
        zero = np.float32(0)
        for r in range(rows):
            h = hidden[r]
            for a in range(n_actions):
                w = weight[a]
                acc = bias[a]
                for j in range(width):
                    acc += h[j] * w[j]
                out[r, a] = acc
        weight_grad[:] = 0
        bias_grad[:] = 0
        delta_sum[:] = 0
        scale = np.float32(1.0) / np.float32(batch)
        for r in range(batch):
            if double_q:
                best = 0
                value = out[batch + r, 0]
                for a in range(1, n_actions):
                    if out[batch + r, a] > value:
                        best, value = a, out[batch + r, a]
                next_value = next_values[r, best]
            else:
                next_value = next_values[r, 0]
            action = actions[r, 0]
            e = out[r, action] - (rewards[r, 0] + discount[r, 0] * next_value)
            error[r, 0] = e
            g = e
            if g > 1:
                g = 1
            elif g < -1:
                g = -1
            g *= scale
            bias_grad[action] += g
            h, w, grad, d = hidden[r], weight[action], weight_grad[action], delta[r]
            for j in range(width):
                grad[j] += g * h[j]
                value_j = g * w[j] if h[j] > zero else zero
                d[j] = value_j
                delta_sum[j] += value_j

    @jit
    def narrow_backward(pre, hidden, x, weight_grad, bias_grad):  # pragma: no cover
        batch, width = pre.shape
        n_in = x.shape[1]
        transposed = np.zeros((n_in, width), np.float32)
        row = np.empty(width, np.float32)
        zero = np.float32(0)
        bias_grad[:] = 0
        for r in range(batch):
            p, h, xr = pre[r], hidden[r], x[r]
            for j in range(width):
                d = p[j] if h[j] > zero else zero
                row[j] = d
                bias_grad[j] += d
            for i in range(n_in):
                xi = xr[i]
                column = transposed[i]
                for j in range(width):
                    column[j] += row[j] * xi
        for j in range(width):
            for i in range(n_in):
                weight_grad[j, i] = transposed[i, j]

    return types.SimpleNamespace(
        narrow_forward=narrow_forward, dqn_tail=dqn_tail, narrow_backward=narrow_backward
    )
