"""Neural networks for the policy-gradient algorithms."""

from __future__ import annotations

import itertools
import math

from palaestra.train._torch import require_torch

torch = require_torch()
nn = torch.nn
F = torch.nn.functional


class PolicyNetwork(nn.Module):
    """REINFORCE's policy network: a normalized input block and one residual hidden block.

    ``Linear -> LayerNorm -> Dropout`` embeds the observation; a residual branch
    ``Linear -> GELU -> Dropout -> Linear`` is added back, GELU is applied to the sum and a
    final linear layer gives raw outputs (logits, or the mean of a Gaussian). Linear weights
    start Xavier-uniform and biases at zero.

    Args:
        obs_dim: size of the flat observation.
        num_outputs: number of raw outputs.
        hidden_dim: width of the hidden layers.
        dropout: dropout probability in both blocks.

    Example:
        >>> net = PolicyNetwork(4, 2, hidden_dim=8)
        >>> net(torch.zeros(3, 4)).shape
        torch.Size([3, 2])
    """

    def __init__(self, obs_dim: int, num_outputs: int, hidden_dim: int = 128, dropout: float = 0.1):
        super().__init__()
        self.input_block = nn.Sequential(
            nn.Linear(obs_dim, hidden_dim), nn.LayerNorm(hidden_dim), nn.Dropout(dropout)
        )
        self.residual_block = nn.Sequential(
            nn.Linear(hidden_dim, hidden_dim),
            nn.GELU(),
            nn.Dropout(dropout),
            nn.Linear(hidden_dim, hidden_dim),
        )
        self.output_layer = nn.Linear(hidden_dim, num_outputs)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight)
                nn.init.zeros_(module.bias)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """Raw outputs for a batch of flat observations."""
        hidden = self.input_block(observations)
        hidden = F.gelu(hidden + self.residual_block(hidden))
        return self.output_layer(hidden)


def mlp(
    in_dim: int, hidden_sizes: tuple[int, ...], out_dim: int, output_gain: float
) -> nn.Sequential:
    """Build a tanh multilayer perceptron with orthogonal initialization, as PPO uses.

    Hidden layers get gain ``sqrt(2)``; the output layer gets ``output_gain`` (small for a
    policy so its first actions are near uniform). Biases start at zero.

    Args:
        in_dim: input size.
        hidden_sizes: width of each hidden layer.
        out_dim: output size.
        output_gain: orthogonal-init gain of the last layer.

    Returns:
        The network as an ``nn.Sequential``.

    Example:
        >>> mlp(4, (8, 8), 1, output_gain=1.0)(torch.zeros(2, 4)).shape
        torch.Size([2, 1])
    """
    layers: list[nn.Module] = []
    sizes = (in_dim, *hidden_sizes)
    for fan_in, fan_out in itertools.pairwise(sizes):
        layers += [_orthogonal(nn.Linear(fan_in, fan_out), math.sqrt(2.0)), nn.Tanh()]
    layers.append(_orthogonal(nn.Linear(sizes[-1], out_dim), output_gain))
    return nn.Sequential(*layers)


def _orthogonal(layer: nn.Linear, gain: float) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, gain=gain)
    nn.init.zeros_(layer.bias)
    return layer


class ActorCritic(nn.Module):
    """Separate tanh policy and value MLPs, evaluated side by side as one fused network.

    Mathematically two independent networks (same widths, separate weights); they are
    stored so one kernel serves both per layer: the first layers concatenated into one
    ``(obs_dim, 2 * width)`` matrix, deeper hidden layers stacked into ``(2, in, out)``
    for a batched matrix product, and two small output layers. Hidden activations have
    shape ``(2, batch, width)``: index 0 is the policy tower, 1 the value tower. Weights
    start orthogonal (gain ``sqrt(2)`` in hidden layers, 0.01 for the policy output, 1 for
    the value output) and biases at zero.

    :meth:`backward` applies the chain rule by hand (the network is a fixed stack of
    affine maps and ``tanh``), which avoids autograd's per-operation bookkeeping on the
    tiny matrices of RL; the tests check it against autograd.

    Args:
        obs_dim: size of the flat observation.
        num_outputs: raw policy outputs (logits or Gaussian mean).
        hidden_sizes: hidden widths of each tower (at least one layer).

    Raises:
        ValueError: if ``hidden_sizes`` is empty.

    Example:
        >>> model = ActorCritic(4, 2, hidden_sizes=(8, 8))
        >>> out, value = model(torch.zeros(5, 4))
        >>> out.shape, value.shape
        (torch.Size([5, 2]), torch.Size([5]))
    """

    def __init__(self, obs_dim: int, num_outputs: int, hidden_sizes: tuple[int, ...] = (64, 64)):
        super().__init__()
        if not hidden_sizes:
            raise ValueError("ActorCritic needs at least one hidden layer, got hidden_sizes=().")
        self.num_outputs = num_outputs
        actor = [m for m in mlp(obs_dim, hidden_sizes, num_outputs, 0.01) if _is_linear(m)]
        critic = [m for m in mlp(obs_dim, hidden_sizes, 1, 1.0) if _is_linear(m)]
        self.input_weight = _parameter(torch.cat([actor[0].weight.T, critic[0].weight.T], 1))
        self.input_bias = _parameter(torch.cat([actor[0].bias, critic[0].bias]))
        middle = list(zip(actor, critic))[1:-1]
        self.hidden_weights = nn.ParameterList(
            _parameter(torch.stack([a.weight.T, c.weight.T])) for a, c in middle
        )
        self.hidden_biases = nn.ParameterList(
            _parameter(torch.stack([a.bias, c.bias]).unsqueeze(1)) for a, c in middle
        )
        self.policy_weight = _parameter(actor[-1].weight.T)
        self.policy_bias = _parameter(actor[-1].bias)
        self.value_weight = _parameter(critic[-1].weight.T)
        self.value_bias = _parameter(critic[-1].bias)

    def forward_activations(self, observations: torch.Tensor) -> list[torch.Tensor]:
        """Input, the hidden activations and the outputs ``(policy_out, value)``, in order."""
        batch = len(observations)
        hidden = torch.tanh(torch.addmm(self.input_bias, observations, self.input_weight))
        hidden = hidden.view(batch, 2, -1).transpose(0, 1)
        activations = [observations, hidden]
        for weight, bias in zip(self.hidden_weights, self.hidden_biases):
            hidden = torch.tanh(torch.baddbmm(bias, hidden, weight))
            activations.append(hidden)
        policy_out = torch.addmm(self.policy_bias, hidden[0], self.policy_weight)
        value = torch.addmm(self.value_bias, hidden[1], self.value_weight).squeeze(-1)
        activations += [policy_out, value]
        return activations

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Policy outputs and state values (shape ``(batch,)``) for a batch of observations."""
        activations = self.forward_activations(observations)
        return activations[-2], activations[-1]

    def value(self, observations: torch.Tensor) -> torch.Tensor:
        """State values only, shape ``(batch,)``."""
        return self(observations)[1]

    def actor(self, observations: torch.Tensor) -> torch.Tensor:
        """Raw policy outputs only."""
        return self(observations)[0]

    @torch.no_grad()
    def backward(
        self, activations: list[torch.Tensor], policy_grad: torch.Tensor, value_grad: torch.Tensor
    ) -> None:
        """Write the gradients of a loss into ``.grad`` of every parameter.

        Args:
            activations: what :meth:`forward_activations` returned for the batch.
            policy_grad: the loss's gradient by the policy outputs, ``(batch, num_outputs)``.
            value_grad: the loss's gradient by the values, ``(batch,)``.
        """
        observations, *hidden_layers = activations[:-2]
        last = hidden_layers[-1]
        value_grad = value_grad.unsqueeze(-1)
        self.policy_weight.grad = torch.mm(last[0].T, policy_grad)
        self.policy_bias.grad = policy_grad.sum(0)
        self.value_weight.grad = torch.mm(last[1].T, value_grad)
        self.value_bias.grad = value_grad.sum(0)
        hidden_grad = torch.stack(
            [torch.mm(policy_grad, self.policy_weight.T), torch.mm(value_grad, self.value_weight.T)]
        )
        pre_activation_grad = torch.ops.aten.tanh_backward(hidden_grad, last)
        for depth in range(len(self.hidden_weights) - 1, -1, -1):
            weight, inputs = self.hidden_weights[depth], hidden_layers[depth]
            weight.grad = torch.bmm(inputs.transpose(1, 2), pre_activation_grad)
            self.hidden_biases[depth].grad = pre_activation_grad.sum(1, keepdim=True)
            hidden_grad = torch.bmm(pre_activation_grad, weight.transpose(1, 2))
            pre_activation_grad = torch.ops.aten.tanh_backward(hidden_grad, inputs)
        flat_grad = pre_activation_grad.transpose(0, 1).reshape(len(observations), -1)
        self.input_weight.grad = torch.mm(observations.T, flat_grad)
        self.input_bias.grad = flat_grad.sum(0)


def _is_linear(module: nn.Module) -> bool:
    return isinstance(module, nn.Linear)


def _parameter(tensor: torch.Tensor) -> nn.Parameter:
    return nn.Parameter(tensor.detach().clone().contiguous())
