"""Neural networks for the policy-gradient algorithms."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeGuard

import numpy as np

from palaestra.train._torch import require_torch

if TYPE_CHECKING:
    import torch
else:
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


class _NumpyTanh(torch.autograd.Function):
    """``tanh`` computed by NumPy, differentiated as ``(1 - y^2) * grad``."""

    @staticmethod
    def forward(ctx: Any, z: torch.Tensor) -> torch.Tensor:
        y = _numpy_tanh(z)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (y,) = ctx.saved_tensors
        return torch.ops.aten.tanh_backward(grad, y)


class Tanh(nn.Tanh):
    """``nn.Tanh`` whose CPU float32 values come from NumPy's vectorized ``tanh``.

    This torch build's CPU ``tanh`` takes ~55 us on a 256x64 batch where NumPy's takes ~6
    us; under autograd the gradient is the usual ``(1 - tanh(z)^2) * grad`` (torch's own
    ``tanh_backward``), so autograd differentiates it like ``nn.Tanh``. Other devices and
    dtypes use ``torch.tanh``, and so do TorchScript, ``torch.jit.trace``, ``torch.compile``
    and ``torch.export``, which cannot follow the NumPy call. The values agree with
    ``torch.tanh`` to an ulp or two.

    Example:
        >>> z = torch.tensor([0.0, 1.0], requires_grad=True)
        >>> y = Tanh()(z)
        >>> y.sum().backward()
        >>> [round(v, 4) for v in y.tolist()], [round(v, 4) for v in z.grad.tolist()]
        ([0.0, 0.7616], [1.0, 0.42])
    """

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        """Return ``tanh(z)`` elementwise."""
        if torch.jit.is_scripting():  # TorchScript cannot compile the NumPy calls
            return torch.tanh(z)
        return self._eager_forward(z)

    @torch.jit.unused
    def _eager_forward(self, z: torch.Tensor) -> torch.Tensor:
        # torch.export and torch.compile cannot trace NumPy calls either, and a trace would
        # record NumPy's result as a constant: all get torch's tanh (compilers fuse it).
        if (
            torch.jit.is_tracing()
            or torch.compiler.is_compiling()
            or z.device.type != "cpu"
            or z.dtype != torch.float32
        ):
            return torch.tanh(z)
        if z.requires_grad and torch.is_grad_enabled():
            return _NumpyTanh.apply(z)
        return _numpy_tanh(z)


def _numpy_tanh(z: torch.Tensor) -> torch.Tensor:
    # asarray: NumPy answers a 0-d input with a scalar, which from_numpy refuses.
    return torch.from_numpy(np.asarray(np.tanh(z.detach().numpy())))


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
        layers += [_orthogonal(nn.Linear(fan_in, fan_out), math.sqrt(2.0)), Tanh()]
    layers.append(_orthogonal(nn.Linear(sizes[-1], out_dim), output_gain))
    return nn.Sequential(*layers)


def _orthogonal(layer: nn.Linear, gain: float) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, gain=gain)
    nn.init.zeros_(layer.bias)
    return layer


class ActorCritic(nn.Module):
    """Separate tanh policy and value MLPs, evaluated side by side as one stacked network.

    Mathematically two independent networks (same widths, separate weights). Each layer
    stores both towers' weights stacked as ``(2, in, out)``, so one batched matrix product
    serves both and activations have shape ``(2, batch, width)`` (index 0 is the policy
    tower, 1 the value tower). The value tower's output layer is padded with zero columns
    to the policy's width; those get zero gradients and so stay zero. Weights start
    orthogonal (gain ``sqrt(2)`` in hidden layers, 0.01 for the policy output, 1 for the
    value output) and biases at zero.

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

    def __init__(
        self,
        obs_dim: int,
        num_outputs: int,
        hidden_sizes: tuple[int, ...] = (64, 64),
        towers: tuple[nn.Sequential, nn.Sequential] | None = None,
    ):
        super().__init__()
        if not hidden_sizes:
            raise ValueError("ActorCritic needs at least one hidden layer, got hidden_sizes=().")
        self.num_outputs = num_outputs
        if towers is None:
            towers = (
                mlp(obs_dim, hidden_sizes, num_outputs, 0.01),
                mlp(obs_dim, hidden_sizes, 1, 1.0),
            )
        actor = [m for m in towers[0] if _is_linear(m)]
        critic = [m for m in towers[1] if _is_linear(m)]
        self.weights = nn.ParameterList()
        self.biases = nn.ParameterList()
        for a, c in zip(actor, critic):
            critic_weight = torch.zeros_like(a.weight)
            critic_weight[: c.weight.shape[0]] = c.weight
            critic_bias = torch.zeros_like(a.bias)
            critic_bias[: c.bias.shape[0]] = c.bias
            self.weights.append(_parameter(torch.stack([a.weight.T, critic_weight.T])))
            self.biases.append(_parameter(torch.stack([a.bias, critic_bias]).unsqueeze(1)))
        self._cache_layers()

    @classmethod
    def from_towers(cls, actor: nn.Sequential, critic: nn.Sequential) -> ActorCritic:
        """Stack two tanh MLPs (as :func:`mlp` builds them) into one network, copying weights.

        Example:
            >>> actor, critic = mlp(4, (8,), 2, 0.01), mlp(4, (8,), 1, 1.0)
            >>> model = ActorCritic.from_towers(actor, critic)
            >>> x = torch.ones(3, 4)
            >>> bool(torch.allclose(model(x)[1], critic(x)[:, 0]))
            True
        """
        linears = [m for m in actor if _is_linear(m)]
        hidden = tuple(layer.out_features for layer in linears[:-1])
        return cls(linears[0].in_features, linears[-1].out_features, hidden, (actor, critic))

    @torch.no_grad()
    def copy_to_towers(self, actor: nn.Sequential, critic: nn.Sequential) -> None:
        """Write this network's weights back into two MLPs shaped like :meth:`from_towers`'s."""
        actor_layers = [m for m in actor if _is_linear(m)]
        critic_layers = [m for m in critic if _is_linear(m)]
        for (weight, bias), a, c in zip(self._layers, actor_layers, critic_layers):
            a.weight.copy_(weight[0].T)
            a.bias.copy_(bias[0, 0])
            c.weight.copy_(weight[1].T[: c.weight.shape[0]])
            c.bias.copy_(bias[1, 0, : c.bias.shape[0]])

    def _cache_layers(self) -> None:
        # A plain list: indexing an nn.ParameterList costs more than the maths on tiny layers.
        self._layers = list(zip(self.weights, self.biases))

    def _apply(self, fn, recurse=True):
        super()._apply(fn, recurse)
        self._cache_layers()
        return self

    def forward_activations(self, observations: torch.Tensor) -> list[torch.Tensor]:
        """Every layer's input and the output, all shaped ``(2, batch, width)``."""
        hidden = observations.expand(2, *observations.shape)
        activations = [hidden]
        last = len(self._layers) - 1
        for depth, (weight, bias) in enumerate(self._layers):
            hidden = torch.baddbmm(bias, hidden, weight)
            if depth < last:
                hidden = _tanh_(hidden)
            activations.append(hidden)
        return activations

    def split_output(self, output: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(policy_out, values)`` from the stacked output of :meth:`forward_activations`."""
        return output[0], output[1, :, 0]

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Policy outputs and state values (shape ``(batch,)``) for a batch of observations."""
        return self.split_output(self.forward_activations(observations)[-1])

    def value(self, observations: torch.Tensor) -> torch.Tensor:
        """State values only, shape ``(batch,)``."""
        return self(observations)[1]

    def actor(self, observations: torch.Tensor) -> torch.Tensor:
        """Raw policy outputs only."""
        return self(observations)[0]

    def numpy_actor(self) -> Callable[[np.ndarray], np.ndarray]:
        """Build a NumPy function computing the policy outputs, for acting on the CPU.

        The arrays it uses are views of the parameters, so it follows every in-place
        optimizer update without copying. NumPy's per-call overhead is a fraction of
        torch's, which is what counts for the few-row batches of env stepping.

        Raises:
            RuntimeError: if the parameters are not on the CPU.
        """
        if self.weights[0].device.type != "cpu":
            raise RuntimeError("numpy_actor needs the model on the CPU.")
        layers = [(w.detach().numpy()[0], b.detach().numpy()[0, 0]) for w, b in self._layers]
        *hidden, (output_weight, output_bias) = layers

        def actor(observations: np.ndarray) -> np.ndarray:
            features = observations
            for weight, bias in hidden:
                features = np.tanh(features @ weight + bias)
            return features @ output_weight + output_bias

        return actor

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
        output = activations[-1]
        grad = torch.zeros_like(output)
        grad[0] = policy_grad
        grad[1, :, 0] = value_grad
        for depth in range(len(self._layers) - 1, -1, -1):
            weight, bias = self._layers[depth]
            inputs = activations[depth]
            weight.grad = torch.bmm(inputs.transpose(1, 2), grad)
            bias.grad = grad.sum(1, keepdim=True)
            if depth > 0:
                # d tanh(z) / dz = 1 - tanh(z)^2, and inputs holds tanh(z).
                grad = torch.ops.aten.tanh_backward(torch.bmm(grad, weight.transpose(1, 2)), inputs)


def _tanh_(z: torch.Tensor) -> torch.Tensor:
    """``tanh(z)``, written over a fresh CPU tensor through NumPy when autograd is not recording.

    torch's CPU ``tanh`` takes ~90 us on PPO's stacked ``(2, 256, 64)`` activations where
    NumPy's takes ~13 us (torch 2.13.0 here, one thread); the two agree to an ulp or two.
    """
    if z.requires_grad or z.device.type != "cpu":
        return torch.tanh(z)
    values = z.numpy()
    np.tanh(values, out=values)
    return z


def _is_linear(module: nn.Module) -> TypeGuard[nn.Linear]:
    return isinstance(module, nn.Linear)


def _parameter(tensor: torch.Tensor) -> nn.Parameter:
    return nn.Parameter(tensor.detach().clone().contiguous())
