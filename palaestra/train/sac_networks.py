"""SAC's networks and its squashed Gaussian: what the agent and its hand-written step share.

:class:`SquashedGaussianActor` outputs a Gaussian's mean and log standard deviation
(clamped to ``[LOG_STD_MIN, LOG_STD_MAX]``); :func:`squashed_sample` draws ``tanh`` of a
sample and its log-probability; :class:`TwinCritic` holds the two Q-networks.
:class:`~palaestra.train.sac.SAC` trains them, by autograd or through
:class:`~palaestra.train.sac_gradients.SACGradients`.

Example:
    >>> actor = SquashedGaussianActor(3, 1, (8,))
    >>> action, log_prob = actor.sample(torch.zeros(2, 3))
    >>> tuple(action.shape), bool(action.abs().max() <= 1)
    ((2, 1), True)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.offpolicy import numpy_mlp, relu_mlp

__all__ = [
    "LOG_STD_MAX",
    "LOG_STD_MIN",
    "TANH_EPSILON",
    "SquashedGaussianActor",
    "TwinCritic",
    "squashed_sample",
]

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()
nn = torch.nn
F = torch.nn.functional

LOG_STD_MIN, LOG_STD_MAX = -20.0, 2.0
TANH_EPSILON = 1e-6
"""Added inside ``log(1 - tanh(u)^2)`` in the log-probability (as Stable-Baselines3 adds)."""
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


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
