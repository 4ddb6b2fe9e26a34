"""numba loops of PPO's compiled gradient step (see :mod:`palaestra.train.ppo_gradients`).

Imported only by :func:`palaestra.train.ppo_gradients.compiled_kernels`. The loops are
module-level functions (not closures) so that numba's on-disk cache can store the ones that
call others: a cached closure that calls another closure is recompiled in every process.
Without numba this module defines nothing but ``AVAILABLE = False``.

Example:
    >>> from palaestra.train import _ppo_kernels
    >>> _ppo_kernels.AVAILABLE in (True, False)
    True
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

numba: Any
try:
    import numba
except ImportError:  # pragma: no cover - the fast extra is not installed
    numba = None

AVAILABLE = numba is not None

if AVAILABLE:
    # Reassociation and contraction let the loops vectorize; NaN and infinity keep their
    # IEEE meaning, so the non-finite checks still fire.
    jit = numba.njit(cache=True, fastmath={"reassoc", "contract"}, boundscheck=False)

    @jit
    def add_bias(out, bias):  # pragma: no cover - compiled
        towers, rows, width = out.shape
        for t in range(towers):
            b = bias[t, 0]
            for r in range(rows):
                o = out[t, r]
                for j in range(width):
                    o[j] += b[j]

    @jit
    def tanh_backward(delta, hidden, bias_grad):  # pragma: no cover - compiled
        # delta *= 1 - tanh(z)^2 (hidden holds tanh(z)); bias_grad = column sums of delta.
        towers, rows, width = delta.shape
        one = np.float32(1)
        for t in range(towers):
            g = bias_grad[t, 0]
            for j in range(width):
                g[j] = 0
            for r in range(rows):
                d, h = delta[t, r], hidden[t, r]
                for j in range(width):
                    v = d[j] * (one - h[j] * h[j])
                    d[j] = v
                    g[j] += v

    @jit
    def normalized(advantages, normalize):  # pragma: no cover - compiled
        rows = advantages.shape[0]
        out = np.empty(rows, np.float64)
        if not normalize:
            for r in range(rows):
                out[r] = advantages[r]
            return out
        mean = 0.0
        for r in range(rows):
            mean += advantages[r]
        mean /= rows
        var = 0.0
        for r in range(rows):
            var += (advantages[r] - mean) ** 2
        std = math.sqrt(var / (rows - 1))
        for r in range(rows):
            out[r] = (advantages[r] - mean) / (std + 1e-8)
        return out

    @jit
    def surrogate(log_prob, old_log_prob, advantage, clip_range, scale, stats):  # pragma: no cover
        # The clipped surrogate of one row; returns d loss / d log_prob.
        log_ratio = log_prob - old_log_prob
        ratio = math.exp(log_ratio)
        unclipped = advantage * ratio
        clipped = advantage * min(max(ratio, 1.0 - clip_range), 1.0 + clip_range)
        stats[1] -= min(unclipped, clipped)
        stats[4] += (ratio - 1.0) - log_ratio
        if abs(ratio - 1.0) > clip_range:
            stats[5] += 1.0
        # The gradient flows only where the unclipped term is the minimum.
        return -unclipped * scale if unclipped <= clipped else 0.0

    @jit
    def value_term(value, old_value, target, clip_range_vf, scale, stats):  # pragma: no cover
        # The squared value error of one row (clipped when clip_range_vf >= 0); its gradient.
        error = value - target
        if clip_range_vf < 0:
            stats[2] += error * error
            return 2.0 * error * scale
        change = value - old_value
        clipped_error = old_value + min(max(change, -clip_range_vf), clip_range_vf) - target
        if error * error >= clipped_error * clipped_error:
            stats[2] += error * error
            return 2.0 * error * scale
        stats[2] += clipped_error * clipped_error
        if abs(change) <= clip_range_vf:
            return 2.0 * clipped_error * scale
        return 0.0

    @jit
    def _finish_stats(stats, rows, vf_coef, ent_coef):  # pragma: no cover - compiled
        for i in range(1, 6):
            stats[i] /= rows
        stats[0] = stats[1] + vf_coef * stats[2] - ent_coef * stats[3]

    @jit
    def categorical_tail(
        out,
        bias,
        actions,
        old_log_probs,
        old_values,
        advantages,
        returns,
        normalize,
        clip_range,
        clip_range_vf,
        vf_coef,
        ent_coef,
        out_grad,
        bias_grad,
        stats,
    ):  # pragma: no cover - compiled
        # out: the output layer's products (towers, rows, n) without bias; out_grad gets the
        # loss's gradient by them (the value tower's padding columns stay zero).
        rows, n_out = out.shape[1], out.shape[2]
        out_grad[:] = 0
        bias_grad[:] = 0
        stats[:] = 0
        advantage = normalized(advantages, normalize)
        scale = 1.0 / rows
        entropy_grad = -ent_coef * scale
        logits = np.empty(n_out, np.float64)
        for r in range(rows):
            top = -np.inf
            for k in range(n_out):
                logits[k] = out[0, r, k] + bias[0, 0, k]
                top = max(top, logits[k])
            total = 0.0
            for k in range(n_out):
                total += math.exp(logits[k] - top)
            log_norm = top + math.log(total)
            entropy = 0.0
            for k in range(n_out):
                logits[k] -= log_norm  # now log-probabilities
                entropy -= math.exp(logits[k]) * logits[k]
            stats[3] += entropy
            action = actions[r]
            g = surrogate(logits[action], old_log_probs[r], advantage[r], clip_range, scale, stats)
            # d log p_a / d logit_k = [k == a] - p_k;  d H / d logit_k = -p_k (log p_k + H).
            for k in range(n_out):
                grad = -math.exp(logits[k]) * (g + entropy_grad * (logits[k] + entropy))
                if k == action:
                    grad += g
                out_grad[0, r, k] = grad
                bias_grad[0, 0, k] += grad
            value = out[1, r, 0] + bias[1, 0, 0]
            value_grad = vf_coef * value_term(
                value, old_values[r], returns[r], clip_range_vf, scale, stats
            )
            out_grad[1, r, 0] = value_grad
            bias_grad[1, 0, 0] += value_grad
        _finish_stats(stats, rows, vf_coef, ent_coef)

    @jit
    def gaussian_tail(
        out,
        bias,
        actions,
        old_log_probs,
        old_values,
        advantages,
        returns,
        log_std,
        normalize,
        clip_range,
        clip_range_vf,
        vf_coef,
        ent_coef,
        out_grad,
        bias_grad,
        log_std_grad,
        stats,
    ):  # pragma: no cover - compiled
        rows, n_out = out.shape[1], out.shape[2]
        out_grad[:] = 0
        bias_grad[:] = 0
        stats[:] = 0
        advantage = normalized(advantages, normalize)
        scale = 1.0 / rows
        z = np.empty(n_out, np.float64)
        inverse_std = np.empty(n_out, np.float64)
        log_std_sum = 0.0
        for k in range(n_out):
            inverse_std[k] = math.exp(-log_std[k])
            log_std_sum += log_std[k]
        log_std_acc = np.zeros(n_out, np.float64)
        half_log_2pi = 0.5 * math.log(2.0 * math.pi)
        entropy = n_out * (0.5 + half_log_2pi) + log_std_sum
        for r in range(rows):
            log_prob = -log_std_sum - n_out * half_log_2pi
            for k in range(n_out):
                z[k] = (actions[r, k] - (out[0, r, k] + bias[0, 0, k])) * inverse_std[k]
                log_prob -= 0.5 * z[k] * z[k]
            stats[3] += entropy
            g = surrogate(log_prob, old_log_probs[r], advantage[r], clip_range, scale, stats)
            # d log p / d mean = z / std;  d log p / d log_std = z^2 - 1.
            for k in range(n_out):
                log_std_acc[k] += g * (z[k] * z[k] - 1.0)
                grad = g * z[k] * inverse_std[k]
                out_grad[0, r, k] = grad
                bias_grad[0, 0, k] += grad
            value = out[1, r, 0] + bias[1, 0, 0]
            value_grad = vf_coef * value_term(
                value, old_values[r], returns[r], clip_range_vf, scale, stats
            )
            out_grad[1, r, 0] = value_grad
            bias_grad[1, 0, 0] += value_grad
        # d H / d log_std = 1 per row, weighted by the entropy bonus.
        for k in range(n_out):
            log_std_grad[k] = log_std_acc[k] - ent_coef
        _finish_stats(stats, rows, vf_coef, ent_coef)

    @jit
    def categorical_log_probs(out, bias, actions, log_probs, values):  # pragma: no cover
        # Log-probabilities of the rows that have actions, and every row's value.
        n_out = out.shape[2]
        for r in range(values.shape[0]):
            values[r] = out[1, r, 0] + bias[1, 0, 0]
        for r in range(actions.shape[0]):
            top = -np.inf
            for k in range(n_out):
                top = max(top, out[0, r, k] + bias[0, 0, k])
            total = 0.0
            for k in range(n_out):
                total += math.exp(out[0, r, k] + bias[0, 0, k] - top)
            action = actions[r]
            log_probs[r] = out[0, r, action] + bias[0, 0, action] - top - math.log(total)

    @jit
    def gaussian_log_probs(out, bias, actions, log_std, log_probs, values):  # pragma: no cover
        n_out = out.shape[2]
        for r in range(values.shape[0]):
            values[r] = out[1, r, 0] + bias[1, 0, 0]
        constant = 0.0
        for k in range(n_out):
            constant += log_std[k] + 0.5 * math.log(2.0 * math.pi)
        for r in range(actions.shape[0]):
            acc = -constant
            for k in range(n_out):
                z = (actions[r, k] - (out[0, r, k] + bias[0, 0, k])) * math.exp(-log_std[k])
                acc -= 0.5 * z * z
            log_probs[r] = acc
