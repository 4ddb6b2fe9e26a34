"""Action distributions that turn raw network outputs into env actions and log-probabilities.

A head owns whatever parameters the distribution needs beyond the network output (the
log standard deviation of a Gaussian) and knows how to map its samples into the env's action
space. The maths is written out with plain tensor operations: ``torch.distributions`` does
argument validation and object construction on every call, which dominates the cost for
the small batches of RL.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from palaestra.train._torch import require_torch

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()
nn = torch.nn
F = torch.nn.functional

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_LOG_2 = math.log(2.0)


class CategoricalHead(nn.Module):
    """A categorical distribution over ``n`` actions, parameterized by raw logits.

    Args:
        n: number of actions.
        start: the first action's value (``Discrete.start``).

    Example:
        >>> head = CategoricalHead(3)
        >>> logits = torch.tensor([[0.0, 5.0, 0.0]])
        >>> head.mode(logits), head.to_env(head.mode(logits))
        (tensor([1]), array([1]))
    """

    def __init__(self, n: int, start: int = 0):
        super().__init__()
        self.n = n
        self.start = start
        self.num_outputs = n
        self.action_shape: tuple[int, ...] = ()
        self.action_dtype = np.int64

    def sample(self, logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Draw one action per row; return ``(actions, log_probs)``.

        Sampling is the Gumbel-max trick (``argmax(logits + Gumbel noise)``), which draws
        from the same distribution as ``multinomial`` at a fraction of its cost.
        """
        log_probs = F.log_softmax(logits, dim=-1)
        gumbel = torch.empty_like(logits).exponential_().log_().neg_()
        actions = (logits.detach() + gumbel).argmax(-1)
        return actions, log_probs.gather(-1, actions.unsqueeze(-1)).squeeze(-1)

    def log_prob_entropy(
        self, logits: torch.Tensor, actions: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Log-probability of ``actions`` and the entropy of each row's distribution."""
        log_probs = F.log_softmax(logits, dim=-1)
        chosen = log_probs.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)
        entropy = -(log_probs.exp() * log_probs).sum(-1)
        return chosen, entropy

    def evaluate(
        self, logits: torch.Tensor, actions: torch.Tensor, with_entropy: bool = True
    ) -> tuple[Any, ...]:
        """``(log_probs, entropy, cache)``; ``cache`` feeds :meth:`output_gradient`.

        With ``with_entropy=False`` the entropy is skipped (``None``); the gradient then
        must not ask for an entropy term.
        """
        log_probs = F.log_softmax(logits, dim=-1)
        probs = log_probs.exp()
        index = actions.long().unsqueeze(-1)
        entropy = -(probs * log_probs).sum(-1) if with_entropy else None
        return log_probs.gather(-1, index).squeeze(-1), entropy, (log_probs, probs, entropy, index)

    def output_gradient(
        self, cache: tuple[torch.Tensor, ...], log_prob_grad: torch.Tensor, entropy_grad: float
    ) -> torch.Tensor:
        """Gradient with respect to the logits of ``sum(g * log_prob) + e * sum(entropy)``.

        Args:
            cache: from :meth:`evaluate`.
            log_prob_grad: ``g``, the loss's derivative by each row's log-probability.
            entropy_grad: ``e``, the loss's derivative by each row's entropy.
        """
        log_probs, probs, entropy, index = cache
        # d log p_a / d logit_j = [j == a] - p_j;  d H / d logit_j = -p_j (log p_j + H).
        coefficient = log_prob_grad.unsqueeze(-1)
        if entropy_grad != 0.0:
            coefficient = coefficient + entropy_grad * (log_probs + entropy.unsqueeze(-1))
        grad = probs * coefficient.neg()
        return grad.scatter_add_(-1, index, log_prob_grad.unsqueeze(-1))

    def sample_numpy(
        self, logits: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """Sample with NumPy (Gumbel-max trick); return ``(stored_actions, env_actions)``."""
        actions = np.argmax(logits + rng.gumbel(size=logits.shape), axis=-1)
        return actions, actions + self.start

    def log_prob_numpy(self, logits: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Log-probabilities of ``actions`` (indices) under ``logits``, computed with NumPy.

        Example:
            >>> CategoricalHead(2).log_prob_numpy(np.zeros((1, 2)), np.array([1])).round(4)
            array([-0.6931])
        """
        top = logits.max(-1, keepdims=True)
        shifted = logits - top
        log_norm = np.log(np.exp(shifted).sum(-1))
        return np.take_along_axis(shifted, actions[:, None], -1)[:, 0] - log_norm

    def mode(self, logits: torch.Tensor) -> torch.Tensor:
        """Return the most likely action of each row."""
        return logits.argmax(-1)

    def to_env(self, actions: torch.Tensor) -> np.ndarray:
        """Env actions (int64) from sampled action indices."""
        return actions.cpu().numpy().astype(np.int64) + self.start


class GaussianHead(nn.Module):
    """A diagonal Gaussian with a learned, state-independent log standard deviation.

    The network output is the mean. Samples are clipped to the action box only when they
    are sent to the env, so log-probabilities stay those of the unclipped sample.

    Args:
        low: lower bounds of the action box.
        high: upper bounds of the action box.
        log_std_init: initial log standard deviation.

    Example:
        >>> head = GaussianHead(np.array([-2.0]), np.array([2.0]))
        >>> head.to_env(torch.tensor([[3.5]]))
        array([[2.]], dtype=float32)
    """

    low: torch.Tensor
    high: torch.Tensor

    def __init__(self, low: np.ndarray, high: np.ndarray, log_std_init: float = 0.0):
        super().__init__()
        self.register_buffer("low", torch.as_tensor(low, dtype=torch.float32))
        self.register_buffer("high", torch.as_tensor(high, dtype=torch.float32))
        self.num_outputs = int(np.prod(np.shape(low)))
        self.action_shape: tuple[int, ...] = (self.num_outputs,)
        self.action_dtype = np.float32
        self.log_std = nn.Parameter(torch.full((self.num_outputs,), float(log_std_init)))

    def sample(self, mean: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Draw one action per row; return ``(actions, log_probs)``."""
        # Detached: the policy gradient needs d log p(a) / d theta at a fixed sample a.
        actions = (mean + self.log_std.exp() * torch.randn_like(mean)).detach()
        return actions, self._log_prob(mean, actions)

    def _log_prob(self, mean: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        z = (actions - mean) * torch.exp(-self.log_std)
        return (-0.5 * z.square() - self.log_std - _LOG_SQRT_2PI).sum(-1)

    def log_prob_entropy(
        self, mean: torch.Tensor, actions: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Log-probability of ``actions`` and the entropy of each row's distribution."""
        entropy = (0.5 + _LOG_SQRT_2PI + self.log_std).sum().expand(mean.shape[0])
        return self._log_prob(mean, actions), entropy

    def evaluate(
        self, mean: torch.Tensor, actions: torch.Tensor, with_entropy: bool = True
    ) -> tuple[Any, ...]:
        """``(log_probs, entropy, cache)``; ``cache`` feeds :meth:`output_gradient`.

        The entropy is cheap here and always computed; ``with_entropy`` is accepted for a
        common interface with :class:`CategoricalHead`.
        """
        log_probs, entropy = self.log_prob_entropy(mean, actions)
        inverse_std = torch.exp(-self.log_std)
        z = (actions - mean) * inverse_std
        return log_probs, entropy, (z, inverse_std)

    def output_gradient(
        self, cache: tuple[torch.Tensor, ...], log_prob_grad: torch.Tensor, entropy_grad: float
    ) -> torch.Tensor:
        """Gradient with respect to the mean of ``sum(g * log_prob) + e * sum(entropy)``.

        Also writes the gradient of the log standard deviation into ``log_std.grad``.

        Args:
            cache: from :meth:`evaluate`.
            log_prob_grad: ``g``, the loss's derivative by each row's log-probability.
            entropy_grad: ``e``, the loss's derivative by each row's entropy.
        """
        z, inverse_std = cache
        g = log_prob_grad.unsqueeze(-1)
        # d log p / d mean = z / std;  d log p / d log_std = z^2 - 1;  d H / d log_std = 1.
        self.log_std.grad = (g * (z.square() - 1.0)).sum(0) + entropy_grad * len(z)
        return g * z * inverse_std

    def sample_numpy(self, mean: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        """Sample with NumPy; return ``(stored_actions, env_actions)``."""
        std = np.exp(self.log_std.detach().numpy())
        actions = (mean + std * rng.standard_normal(mean.shape)).astype(np.float32)
        return actions, self._numpy_to_env(actions)

    def log_prob_numpy(self, mean: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Log-densities of ``actions`` under the Gaussian around ``mean``, computed with NumPy.

        Example:
            >>> head = GaussianHead(np.array([-1.0]), np.array([1.0]))
            >>> head.log_prob_numpy(np.zeros((1, 1)), np.zeros((1, 1))).round(4)
            array([-0.9189])
        """
        log_std = self.log_std.detach().numpy()
        z = (actions - mean) * np.exp(-log_std)
        return (-0.5 * z * z - log_std - _LOG_SQRT_2PI).sum(-1)

    def _numpy_to_env(self, actions: np.ndarray) -> np.ndarray:
        return np.clip(actions, self.low.numpy(), self.high.numpy())

    def mode(self, mean: torch.Tensor) -> torch.Tensor:
        """Return the mean action of each row."""
        return mean

    def to_env(self, actions: torch.Tensor) -> np.ndarray:
        """Env actions (float32) clipped into the action box."""
        clipped = torch.maximum(torch.minimum(actions, self.high), self.low)
        return clipped.cpu().numpy().astype(np.float32)


class SquashedGaussianHead(GaussianHead):
    """A Gaussian squashed by ``tanh`` and scaled to the action box, so actions never leave it.

    Samples are kept in the unsquashed space; the log-probability includes the change of
    variables of ``tanh`` so it is the exact density of the squashed action.

    Example:
        >>> head = SquashedGaussianHead(np.array([-2.0]), np.array([2.0]))
        >>> head.to_env(torch.tensor([[100.0], [0.0]]))
        array([[2.],
               [0.]], dtype=float32)
    """

    def _log_prob(self, mean: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        # log(1 - tanh(u)^2) written with softplus so it stays finite for large |u|.
        log_det = 2.0 * (_LOG_2 - actions - F.softplus(-2.0 * actions))
        return super()._log_prob(mean, actions) - log_det.sum(-1)

    def log_prob_entropy(
        self, mean: torch.Tensor, actions: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Log-probability of ``actions`` and a one-sample entropy estimate of each row."""
        log_prob = self._log_prob(mean, actions)
        return log_prob, -log_prob

    def output_gradient(
        self, cache: tuple[torch.Tensor, ...], log_prob_grad: torch.Tensor, entropy_grad: float
    ) -> torch.Tensor:
        """Gradient with respect to the mean of ``sum(g * log_prob) + e * sum(entropy)``.

        The entropy estimate is ``-log_prob`` and the ``tanh`` correction depends on the
        stored sample only, so this is the Gaussian gradient with ``g - e`` and no separate
        entropy term.
        """
        return super().output_gradient(cache, log_prob_grad - entropy_grad, 0.0)

    def _numpy_to_env(self, actions: np.ndarray) -> np.ndarray:
        low, high = self.low.numpy(), self.high.numpy()
        return (low + (np.tanh(actions) + 1.0) * 0.5 * (high - low)).astype(np.float32)

    def to_env(self, actions: torch.Tensor) -> np.ndarray:
        """Env actions (float32): ``tanh`` of the sample scaled from ``[-1, 1]`` to the box."""
        unit = torch.tanh(actions)
        scaled = self.low + (unit + 1.0) * 0.5 * (self.high - self.low)
        return scaled.cpu().numpy().astype(np.float32)


class MultiCategoricalHead(nn.Module):
    """Independent categorical distributions, one per ``MultiDiscrete`` component.

    The network outputs all components' logits side by side (``sum(nvec)`` values); the
    log-probability and entropy of an action are the sums over its components.

    Args:
        nvec: number of choices of each component.
        start: the smallest value of each component (``MultiDiscrete.start``).
        shape: the shape of one env action (``MultiDiscrete.shape``).

    Example:
        >>> head = MultiCategoricalHead([2, 3])
        >>> logits = torch.tensor([[0.0, 4.0, 9.0, 0.0, 0.0]])
        >>> head.to_env(head.mode(logits))
        array([[1, 0]])
    """

    def __init__(self, nvec: Any, start: Any = None, shape: tuple[int, ...] | None = None):
        super().__init__()
        self.nvec = [int(n) for n in np.ravel(nvec)]
        self.start = np.zeros(len(self.nvec), np.int64) if start is None else np.ravel(start)
        self.shape = tuple(shape) if shape is not None else (len(self.nvec),)
        self.num_outputs = int(sum(self.nvec))
        self.action_shape: tuple[int, ...] = (len(self.nvec),)
        self.action_dtype = np.int64

    def _split(self, logits: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return torch.split(logits, self.nvec, dim=-1)

    def sample(self, logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Draw one action per row; return ``(actions, log_probs)``."""
        parts = [F.log_softmax(part, dim=-1) for part in self._split(logits)]
        actions = torch.stack([torch.multinomial(p.exp(), 1).squeeze(-1) for p in parts], -1)
        return actions, self.log_prob_entropy(logits, actions)[0]

    def log_prob_entropy(
        self, logits: torch.Tensor, actions: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return the summed log-probability of ``actions`` and summed entropy of each row."""
        log_prob = torch.zeros(logits.shape[0], device=logits.device)
        entropy = torch.zeros(logits.shape[0], device=logits.device)
        for index, part in enumerate(self._split(logits)):
            log_probs = F.log_softmax(part, dim=-1)
            chosen = actions[..., index].long().unsqueeze(-1)
            log_prob = log_prob + log_probs.gather(-1, chosen).squeeze(-1)
            entropy = entropy - (log_probs.exp() * log_probs).sum(-1)
        return log_prob, entropy

    def mode(self, logits: torch.Tensor) -> torch.Tensor:
        """Return the most likely value of every component."""
        return torch.stack([part.argmax(-1) for part in self._split(logits)], -1)

    def to_env(self, actions: torch.Tensor) -> np.ndarray:
        """Env actions (int64, shaped like the space) from component indices."""
        values = actions.cpu().numpy().astype(np.int64) + self.start
        return values.reshape(len(values), *self.shape)


class BernoulliHead(nn.Module):
    """Independent Bernoulli distributions, one per ``MultiBinary`` element (logits out).

    Args:
        shape: the shape of one env action (``MultiBinary.shape``).

    Example:
        >>> head = BernoulliHead((2,))
        >>> head.to_env(head.mode(torch.tensor([[3.0, -3.0]])))
        array([[1, 0]], dtype=int8)
    """

    def __init__(self, shape: tuple[int, ...]):
        super().__init__()
        self.shape = tuple(int(n) for n in shape)
        self.num_outputs = int(np.prod(self.shape))
        self.action_shape: tuple[int, ...] = (self.num_outputs,)
        self.action_dtype = np.float32

    def sample(self, logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Draw one action per row; return ``(actions, log_probs)``."""
        actions = torch.bernoulli(torch.sigmoid(logits)).detach()
        return actions, self.log_prob_entropy(logits, actions)[0]

    def log_prob_entropy(
        self, logits: torch.Tensor, actions: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return the summed log-probability of ``actions`` and summed entropy of each row."""
        log_p = -F.softplus(-logits)  # log sigmoid
        log_not_p = -F.softplus(logits)  # log (1 - sigmoid)
        log_prob = (actions * log_p + (1.0 - actions) * log_not_p).sum(-1)
        p = torch.sigmoid(logits)
        entropy = -(p * log_p + (1.0 - p) * log_not_p).sum(-1)
        return log_prob, entropy

    def mode(self, logits: torch.Tensor) -> torch.Tensor:
        """Return 1 where an element is more likely on than off."""
        return (logits > 0).float()

    def to_env(self, actions: torch.Tensor) -> np.ndarray:
        """Env actions (int8, shaped like the space)."""
        values = actions.cpu().numpy().astype(np.int8)
        return values.reshape(len(values), *self.shape)


def make_head(action_space: Any, squash: bool = False) -> Any:
    """Choose the action head that fits ``action_space``.

    Args:
        action_space: a ``Discrete``, ``MultiDiscrete``, ``MultiBinary`` or ``Box`` space
            (of one sub-env).
        squash: for ``Box`` spaces, squash with ``tanh`` into the box instead of clipping.

    Returns:
        A :class:`CategoricalHead`, :class:`MultiCategoricalHead`, :class:`BernoulliHead`,
        :class:`GaussianHead` or :class:`SquashedGaussianHead`.

    Raises:
        ValueError: for other spaces, or a ``Box`` with infinite bounds and ``squash=True``.

    Example:
        >>> from palaestra.spaces import Discrete
        >>> make_head(Discrete(2)).num_outputs
        2
    """
    if is_discrete(action_space):
        return CategoricalHead(int(action_space.n), int(action_space.start))
    if is_box(action_space):
        low = action_space.low.astype(np.float32).ravel()
        high = action_space.high.astype(np.float32).ravel()
        if squash:
            if not (np.isfinite(low).all() and np.isfinite(high).all()):
                raise ValueError(
                    f"A squashed policy needs a bounded action box, got {action_space}; "
                    "pass squash=False for a clipped Gaussian."
                )
            return SquashedGaussianHead(low, high)
        return GaussianHead(low, high)
    kind = type(action_space).__name__
    if kind == "MultiDiscrete":
        return MultiCategoricalHead(
            action_space.nvec, getattr(action_space, "start", None), action_space.shape
        )
    if kind == "MultiBinary":
        return BernoulliHead(action_space.shape)
    raise ValueError(
        f"Training supports Discrete, MultiDiscrete, MultiBinary and Box action spaces, got "
        f"{action_space}; wrap the env (e.g. a FlattenObservation / action wrapper) to get one."
    )


def is_discrete(space: Any) -> bool:
    """Whether ``space`` is a ``Discrete`` space (palaestra's or Gymnasium's).

    Spaces are recognized by their attributes so Gymnasium spaces work as well.

    Example:
        >>> from palaestra.spaces import Box, Discrete
        >>> is_discrete(Discrete(3)), is_discrete(Box(0, 1))
        (True, False)
    """
    return type(space).__name__ == "Discrete" and hasattr(space, "n")


def is_box(space: Any) -> bool:
    """Whether ``space`` is a ``Box`` space (palaestra's or Gymnasium's).

    Example:
        >>> from palaestra.spaces import Box, Discrete
        >>> is_box(Box(0, 1)), is_box(Discrete(3))
        (True, False)
    """
    return type(space).__name__ == "Box" and hasattr(space, "low") and hasattr(space, "high")
