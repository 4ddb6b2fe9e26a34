"""Policies as plain ``torch.nn.Module`` s, trained with autograd.

**The policy contract** (declared as :class:`Policy`, with the optional methods as
:class:`DeterministicPolicy`, :class:`ValueSampler`, :class:`NumPyActor` and
:class:`ActionConverter`). :class:`~palaestra.train.ppo.PPO` trains any module with these
methods (the same shape as CleanRL's agents), taking batched observations as tensors (a dict
or tuple of tensors for ``Dict``/``Tuple`` spaces, image batches as ``uint8``):

- ``get_action_and_value(obs, action=None) -> (action, log_prob, entropy, value)``: samples
  an action when ``action`` is ``None``, else evaluates the given one; ``log_prob``,
  ``entropy`` and ``value`` have shape ``(batch,)``;
- ``get_value(obs) -> value`` of shape ``(batch,)``;
- optionally ``get_action(obs, deterministic=False)`` (used by ``predict``; without it the
  action is always sampled), ``act_with_value(obs) -> (action, log_prob, value)`` (a
  cheaper sample while collecting rollouts), ``act_numpy(obs_array, rng) -> (action,
  env_action, log_prob, value)`` (the same sample with NumPy arrays in and out, or ``None``
  where the module cannot; PPO then uses it while collecting rollouts) and
  ``to_env(action) -> np.ndarray`` (without it actions are converted with
  :func:`default_to_env`).

The shipped policies are :class:`ActorCriticPolicy` built by :func:`make_policy` under three
names: ``"MlpPolicy"`` (flattened observations), ``"CnnPolicy"`` (image observations,
``uint8`` height x width x channels, scaled to ``[0, 1]`` and moved channel-first inside) and
``"MultiInputPolicy"`` (``Dict``/``Tuple`` observations: a CNN per image entry, flattening
for the others, concatenated). They handle ``Discrete``, ``MultiDiscrete``, ``MultiBinary``
and ``Box`` actions.

Example:
    >>> from palaestra.spaces import Box, Discrete
    >>> policy = make_policy("MlpPolicy", Box(-1, 1, (4,)), Discrete(2))
    >>> action, log_prob, entropy, value = policy.get_action_and_value(torch.zeros(3, 4))
    >>> action.shape, value.shape
    (torch.Size([3]), torch.Size([3]))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.distributions import is_box, make_head
from palaestra.train.networks import mlp

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()
nn = torch.nn
F = torch.nn.functional

POLICY_NAMES = ("MlpPolicy", "CnnPolicy", "MultiInputPolicy")


@runtime_checkable
class Policy(Protocol):
    """What PPO needs of a policy module (besides being a ``torch.nn.Module``).

    Example:
        >>> from palaestra.spaces import Box, Discrete
        >>> isinstance(make_policy("MlpPolicy", Box(-1, 1, (4,)), Discrete(2)), Policy)
        True
    """

    def get_action_and_value(
        self, obs: Any, action: Any = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Return ``(action, log_prob, entropy, value)``, sampling when ``action`` is ``None``."""
        ...

    def get_value(self, obs: Any) -> torch.Tensor:
        """Return the value of each observation, shape ``(batch,)``."""
        ...


@runtime_checkable
class DeterministicPolicy(Protocol):
    """Optional: the most likely action (``predict(deterministic=True)`` uses it).

    Example:
        >>> from palaestra.spaces import Box, Discrete
        >>> isinstance(make_policy("MlpPolicy", Box(-1, 1, (4,)), Discrete(2)), DeterministicPolicy)
        True
    """

    def get_action(self, obs: Any, deterministic: bool = False) -> torch.Tensor:
        """Return an action per observation, the most likely one when ``deterministic``."""
        ...


@runtime_checkable
class ValueSampler(Protocol):
    """Optional: a cheaper sample while collecting rollouts.

    Example:
        >>> isinstance(torch.nn.Linear(2, 2), ValueSampler)
        False
    """

    def act_with_value(self, obs: Any) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Return ``(action, log_prob, value)`` of a sampled action."""
        ...


@runtime_checkable
class NumPyActor(Protocol):
    """Optional: the rollout sample with NumPy arrays in and out (no torch call per step).

    Example:
        >>> from palaestra.spaces import Box, Discrete
        >>> isinstance(make_policy("MlpPolicy", Box(-1, 1, (4,)), Discrete(2)), NumPyActor)
        True
    """

    def act_numpy(self, obs: np.ndarray, rng: np.random.Generator) -> tuple[Any, ...] | None:
        """Return ``(action, env_action, log_prob, value)``, or ``None`` where it cannot."""
        ...


@runtime_checkable
class ActionConverter(Protocol):
    """Optional: turning a batch of actions into env actions.

    Example:
        >>> from palaestra.spaces import Box, Discrete
        >>> isinstance(make_policy("MlpPolicy", Box(-1, 1, (4,)), Discrete(2)), ActionConverter)
        True
    """

    def to_env(self, action: torch.Tensor) -> np.ndarray:
        """Return env actions for a batch of policy actions."""
        ...


REQUIRED_METHODS = ("get_action_and_value", "get_value")


def is_image_space(space: Any) -> bool:
    """Whether ``space`` holds images: a ``uint8`` ``Box`` of shape ``(H, W, C)``, C in 1..4.

    Example:
        >>> from palaestra.spaces import Box
        >>> is_image_space(Box(0, 255, (64, 64, 3), np.uint8)), is_image_space(Box(0, 1, (3,)))
        (True, False)
    """
    return (
        is_box(space)
        and np.dtype(space.dtype) == np.uint8
        and len(space.shape) == 3
        and 1 <= space.shape[-1] <= 4
    )


class FlattenExtractor(nn.Module):
    """Turn one observation space's batch into flat float32 features.

    ``Box`` values are flattened, ``Discrete`` values one-hot encoded, ``MultiDiscrete``
    components one-hot encoded side by side and ``MultiBinary`` values flattened.

    Args:
        space: the observation space of one sub-env.

    Raises:
        ValueError: for other spaces.

    Example:
        >>> from palaestra.spaces import Discrete
        >>> FlattenExtractor(Discrete(3))(torch.tensor([2]))
        tensor([[0., 0., 1.]])
    """

    def __init__(self, space: Any):
        super().__init__()
        kind = type(space).__name__
        self.kind = kind
        if kind == "Box":
            self.features_dim = int(np.prod(space.shape))
        elif kind == "Discrete":
            self.n, self.start = int(space.n), int(space.start)
            self.features_dim = self.n
        elif kind == "MultiDiscrete":
            self.nvec = [int(n) for n in np.ravel(space.nvec)]
            self.start_values = torch.as_tensor(np.ravel(space.start), dtype=torch.int64)
            self.features_dim = int(sum(self.nvec))
        elif kind == "MultiBinary":
            self.features_dim = int(np.prod(space.shape))
        else:
            raise ValueError(
                f"Cannot flatten observation space {space} into features; use "
                "MultiInputPolicy for Dict/Tuple spaces or wrap the env."
            )

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Flat float32 features, shape ``(batch, features_dim)``."""
        if self.kind == "Discrete":
            return F.one_hot(obs.long().reshape(-1) - self.start, self.n).float()
        if self.kind == "MultiDiscrete":
            values = obs.long().reshape(len(obs), -1) - self.start_values.to(obs.device)
            parts = [F.one_hot(values[:, i], n).float() for i, n in enumerate(self.nvec)]
            return torch.cat(parts, -1)
        return obs.reshape(len(obs), -1).float()


class NatureCNN(nn.Module):
    """The convolutional torso of the DQN Nature paper, for ``uint8`` HWC images.

    Images are scaled to ``[0, 1]`` and permuted to channels-first inside, then pass three
    ReLU convolutions (32 8x8/4, 64 4x4/2, 64 3x3/1) and a ReLU linear layer.

    Args:
        space: an image space (see :func:`is_image_space`) at least 36 pixels on each side.
        features_dim: output width.

    Raises:
        ValueError: for images smaller than the convolutions need.

    Example:
        >>> from palaestra.spaces import Box
        >>> cnn = NatureCNN(Box(0, 255, (36, 36, 1), np.uint8), features_dim=16)
        >>> cnn(torch.zeros(2, 36, 36, 1, dtype=torch.uint8)).shape
        torch.Size([2, 16])
    """

    def __init__(self, space: Any, features_dim: int = 512):
        super().__init__()
        height, width, channels = space.shape
        if height < 36 or width < 36:
            raise ValueError(
                f"NatureCNN needs images of at least 36x36 pixels, got {space.shape}; "
                "resize them (wrappers.ResizeObservation)."
            )
        self.convolutions = nn.Sequential(
            nn.Conv2d(channels, 32, 8, stride=4),
            nn.ReLU(),
            nn.Conv2d(32, 64, 4, stride=2),
            nn.ReLU(),
            nn.Conv2d(64, 64, 3, stride=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        with torch.no_grad():
            flat = self.convolutions(torch.zeros(1, channels, height, width)).shape[1]
        self.linear = nn.Sequential(nn.Linear(flat, features_dim), nn.ReLU())
        self.features_dim = features_dim

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """Features of a ``(batch, H, W, C)`` image batch."""
        scaled = images.permute(0, 3, 1, 2).float() / 255.0
        return self.linear(self.convolutions(scaled))


class CombinedExtractor(nn.Module):
    """Features of ``Dict``/``Tuple`` observations: one extractor per entry, concatenated.

    Image entries get a :class:`NatureCNN` (with ``cnn_features`` outputs), the others a
    :class:`FlattenExtractor`. Nested ``Dict``/``Tuple`` entries are handled recursively.

    Args:
        space: a ``Dict`` or ``Tuple`` space.
        cnn_features: output width of each image entry's CNN.

    Example:
        >>> from palaestra.spaces import Box, Dict, Discrete
        >>> extractor = CombinedExtractor(Dict({"a": Box(0, 4, (2,), np.int64), "b": Discrete(3)}))
        >>> extractor({"a": torch.zeros(5, 2), "b": torch.zeros(5)}).shape
        torch.Size([5, 5])
    """

    def __init__(self, space: Any, cnn_features: int = 256):
        super().__init__()
        self.keys = list(space.spaces.keys()) if _is_dict(space) else list(range(len(space)))
        extractors = [make_extractor(space[key], cnn_features) for key in self.keys]
        self.extractors = nn.ModuleList(extractors)
        self.features_dim = sum(extractor.features_dim for extractor in extractors)

    def forward(self, obs: Any) -> torch.Tensor:
        """Concatenated features of every entry."""
        return torch.cat(
            [extractor(obs[key]) for key, extractor in zip(self.keys, self.extractors)], -1
        )


def make_extractor(space: Any, cnn_features: int = 512) -> Any:
    """Return the feature extractor that fits ``space`` (CNN, combined or flatten).

    Example:
        >>> from palaestra.spaces import Box
        >>> type(make_extractor(Box(-1, 1, (3,)))).__name__
        'FlattenExtractor'
    """
    if _is_dict(space) or type(space).__name__ == "Tuple":
        return CombinedExtractor(space, cnn_features)
    if is_image_space(space):
        return NatureCNN(space, cnn_features)
    return FlattenExtractor(space)


def _is_dict(space: Any) -> bool:
    return type(space).__name__ == "Dict"


class ActorCriticPolicy(nn.Module):
    """A feature extractor followed by separate policy and value MLPs (tanh, orthogonal init).

    This is what ``"MlpPolicy"``, ``"CnnPolicy"`` and ``"MultiInputPolicy"`` build; it
    follows the policy contract of this module.

    Args:
        observation_space: one sub-env's observation space.
        action_space: one sub-env's action space.
        extractor: the feature extractor (e.g. :func:`make_extractor`'s).
        hidden_sizes: hidden widths of the policy and value MLPs (may be empty).
        squash: for ``Box`` actions, squash with ``tanh`` into the box (else clip).
        log_std_init: initial log standard deviation of ``Box`` actions.

    Example:
        >>> from palaestra.spaces import Box, MultiBinary
        >>> policy = make_policy("MlpPolicy", Box(-1, 1, (3,)), MultiBinary(2))
        >>> policy.to_env(policy.get_action(torch.zeros(1, 3), deterministic=True)).shape
        (1, 2)
    """

    def __init__(
        self,
        observation_space: Any,
        action_space: Any,
        extractor: Any,
        hidden_sizes: tuple[int, ...] = (64, 64),
        squash: bool = False,
        log_std_init: float = 0.0,
    ):
        super().__init__()
        self.observation_space = observation_space
        self.action_space = action_space
        self.extractor = extractor
        self.head = make_head(action_space, squash=squash)
        if hasattr(self.head, "log_std"):
            self.head.log_std.data.fill_(log_std_init)
        features = extractor.features_dim
        self.actor = mlp(features, tuple(hidden_sizes), self.head.num_outputs, 0.01)
        self.critic = mlp(features, tuple(hidden_sizes), 1, 1.0)
        self._numpy_cache: tuple[Any, int] | None = None

    def forward(self, obs: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """Raw policy outputs (logits or Gaussian mean) and values of shape ``(batch,)``."""
        features = self.extractor(obs)
        return self.actor(features), self.critic(features).squeeze(-1)

    def get_value(self, obs: Any) -> torch.Tensor:
        """State values, shape ``(batch,)``."""
        return self.critic(self.extractor(obs)).squeeze(-1)

    def get_action_and_value(
        self, obs: Any, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Sample (or evaluate ``action``): ``(action, log_prob, entropy, value)``."""
        out, value = self(obs)
        if action is None:
            action, _ = self.head.sample(out)
        log_prob, entropy = self.head.log_prob_entropy(out, action)
        return action, log_prob, entropy, value

    def act_with_value(self, obs: Any) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Sample for a rollout: ``(action, log_prob, value)``, skipping the entropy.

        PPO uses it, when a policy has it, instead of ``get_action_and_value`` while acting.
        """
        features = self.extractor(obs)
        action, log_prob = self.head.sample(self.actor(features))
        return action, log_prob, self.critic(features).squeeze(-1)

    def act_numpy(self, observations: np.ndarray, rng: np.random.Generator) -> Any:
        """Sample for a rollout with NumPy: ``(action, env_action, log_prob, value)``.

        Applies to an MLP over flat ``Box`` observations with CPU float32 weights and a
        categorical or diagonal Gaussian head (the ``"MlpPolicy"`` of ``Discrete``/``Box``
        envs); returns ``None`` otherwise. The network runs as NumPy products on views of
        the weights (they follow every in-place optimizer step), which costs a fraction of
        torch's per-call dispatch on the few rows of a vector env's step; the sample comes
        from ``rng``. Nothing here is differentiated: training still goes through autograd.

        Args:
            observations: a batch of observations, ``(batch, *obs_shape)``.
            rng: the NumPy generator that samples.

        Example:
            >>> from palaestra.spaces import Box, Discrete
            >>> policy = make_policy("MlpPolicy", Box(-1, 1, (3,)), Discrete(2))
            >>> action, env_action, log_prob, value = policy.act_numpy(
            ...     np.zeros((4, 3), np.float32), np.random.default_rng(0))
            >>> action.shape, log_prob.shape, value.shape
            ((4,), (4,), (4,))
        """
        layers = self._numpy_layers()
        if layers is None:
            return None
        features = np.asarray(observations, dtype=np.float32).reshape(len(observations), -1)
        out = _numpy_mlp(layers[0], features)
        value = _numpy_mlp(layers[1], features)[:, 0]
        action, env_action = self.head.sample_numpy(out, rng)
        return action, env_action, self.head.log_prob_numpy(out, action), value

    def _numpy_layers(self) -> Any:
        # The views are rebuilt when the first weight's storage changed (a copy, a load
        # that replaced tensors, a move): cached ones would otherwise read stale arrays.
        anchor = next(iter(self.actor.parameters())).data_ptr() if len(self.actor) else 0
        if self._numpy_cache is None or self._numpy_cache[1] != anchor:
            self._numpy_cache = (_numpy_views(self), anchor)
        return self._numpy_cache[0]

    def _apply(self, fn, recurse=True):
        # Moving or casting the module replaces its tensors: NumPy views are rebuilt.
        self._numpy_cache = None
        return super()._apply(fn, recurse)

    def get_action(self, obs: Any, deterministic: bool = False) -> torch.Tensor:
        """Return the most likely action (``deterministic``) or a sampled one."""
        out = self.actor(self.extractor(obs))
        return self.head.mode(out) if deterministic else self.head.sample(out)[0]

    def to_env(self, action: torch.Tensor) -> np.ndarray:
        """Env actions for a batch of sampled actions."""
        return self.head.to_env(action)


def _numpy_views(policy: ActorCriticPolicy) -> Any:
    """NumPy views ``[(weight.T, bias), ...]`` of both MLPs, or ``None`` where they don't apply."""
    from palaestra.train.distributions import CategoricalHead, GaussianHead
    from palaestra.train.networks import Tanh

    extractor = policy.extractor
    if type(extractor) is not FlattenExtractor or extractor.kind != "Box":
        return None
    if type(policy.head) not in (CategoricalHead, GaussianHead):
        return None
    if any(p.device.type != "cpu" or p.dtype != torch.float32 for p in policy.parameters()):
        return None
    towers = []
    for tower in (policy.actor, policy.critic):
        kinds = [type(m) for m in tower]
        expected = [nn.Linear, Tanh] * (len(tower) // 2) + [nn.Linear]
        if kinds != expected:
            return None
        towers.append(
            [
                (m.weight.detach().numpy().T, m.bias.detach().numpy())
                for m in tower
                if isinstance(m, nn.Linear)
            ]
        )
    return towers


def _numpy_mlp(layers: list[tuple[np.ndarray, np.ndarray]], features: np.ndarray) -> np.ndarray:
    *hidden, (weight, bias) = layers
    for hidden_weight, hidden_bias in hidden:
        features = np.tanh(features @ hidden_weight + hidden_bias)
    return features @ weight + bias


def make_policy(
    name: str,
    observation_space: Any,
    action_space: Any,
    hidden_sizes: tuple[int, ...] | None = None,
    squash: bool = False,
    log_std_init: float = 0.0,
    features_dim: int = 512,
) -> ActorCriticPolicy:
    """Build a shipped policy by name.

    Args:
        name: ``"MlpPolicy"``, ``"CnnPolicy"`` or ``"MultiInputPolicy"``.
        observation_space: one sub-env's observation space.
        action_space: one sub-env's action space.
        hidden_sizes: MLP widths after the features; ``None`` is ``(64, 64)`` for the MLP and
            multi-input policies and ``()`` (linear heads on the CNN features) for the CNN.
        squash: for ``Box`` actions, squash into the box with ``tanh``.
        log_std_init: initial log standard deviation of ``Box`` actions.
        features_dim: output width of each CNN.

    Raises:
        ValueError: for an unknown name, or a space the named policy cannot read.

    Example:
        >>> from palaestra.spaces import Box, Discrete
        >>> make_policy("CnnPolicy", Box(0, 255, (36, 36, 3), np.uint8), Discrete(2)).actor
        Sequential(
          (0): Linear(in_features=512, out_features=2, bias=True)
        )
    """
    if name not in POLICY_NAMES:
        raise ValueError(f"Unknown policy {name!r}; use one of {POLICY_NAMES} or an nn.Module.")
    if name == "MlpPolicy":
        if _is_dict(observation_space) or type(observation_space).__name__ == "Tuple":
            raise ValueError(
                f"MlpPolicy cannot read {type(observation_space).__name__} observations; "
                "use MultiInputPolicy."
            )
        extractor: nn.Module = FlattenExtractor(observation_space)
        default_hidden: tuple[int, ...] = (64, 64)
    elif name == "CnnPolicy":
        if not is_image_space(observation_space):
            raise ValueError(
                f"CnnPolicy needs uint8 (H, W, C) image observations, got {observation_space}; "
                "use MlpPolicy or MultiInputPolicy."
            )
        extractor = NatureCNN(observation_space, features_dim)
        default_hidden = ()
    else:
        extractor = make_extractor(observation_space, features_dim // 2)
        default_hidden = (64, 64)
    hidden = default_hidden if hidden_sizes is None else tuple(hidden_sizes)
    return ActorCriticPolicy(
        observation_space, action_space, extractor, hidden, squash=squash, log_std_init=log_std_init
    )


def default_policy_name(observation_space: Any) -> str:
    """Return the shipped policy that reads ``observation_space``.

    Example:
        >>> from palaestra.spaces import Box
        >>> default_policy_name(Box(0, 255, (64, 64, 3), np.uint8))
        'CnnPolicy'
    """
    if _is_dict(observation_space) or type(observation_space).__name__ == "Tuple":
        return "MultiInputPolicy"
    if is_image_space(observation_space):
        return "CnnPolicy"
    return "MlpPolicy"


def check_policy(policy: Any) -> None:
    """Raise ``TypeError`` unless ``policy`` follows the policy contract.

    Example:
        >>> check_policy(torch.nn.Linear(2, 2))
        Traceback (most recent call last):
        ...
        TypeError: A PPO policy must be an nn.Module with get_action_and_value and get_value ...
    """
    missing = [name for name in REQUIRED_METHODS if not callable(getattr(policy, name, None))]
    if not isinstance(policy, nn.Module) or missing:
        raise TypeError(
            "A PPO policy must be an nn.Module with get_action_and_value and get_value "
            f"(see palaestra.train.policies); {type(policy).__name__} lacks "
            f"{missing or ['nn.Module']}."
        )


def default_to_env(action: torch.Tensor, action_space: Any) -> np.ndarray:
    """Convert a batch of actions to env actions: clipped into a ``Box``, else integers.

    Example:
        >>> from palaestra.spaces import Box
        >>> default_to_env(torch.tensor([[3.0]]), Box(-2, 2, (1,)))
        array([[2.]], dtype=float32)
    """
    values = action.detach().cpu().numpy()
    if is_box(action_space):
        low = action_space.low.astype(np.float32)
        high = action_space.high.astype(np.float32)
        return np.clip(values.reshape(len(values), *action_space.shape), low, high)
    dtype = getattr(action_space, "dtype", np.int64) or np.int64
    return values.astype(dtype)


def observations_to_tensor(obs: Any, device: Any = "cpu") -> Any:
    """Batched observations (arrays, or dicts/tuples of arrays) as tensors on ``device``.

    Floating values become float32, integers int64 and ``uint8`` images stay ``uint8``.

    Example:
        >>> observations_to_tensor({"a": np.zeros((2, 3)), "b": np.array([1, 2])})["b"].dtype
        torch.int64
    """
    if isinstance(obs, dict):
        return {key: observations_to_tensor(value, device) for key, value in obs.items()}
    if isinstance(obs, tuple):
        return tuple(observations_to_tensor(value, device) for value in obs)
    array = np.asarray(obs)
    if array.dtype == np.uint8:
        return torch.from_numpy(np.ascontiguousarray(array)).to(device)
    if array.dtype.kind in "iub":
        return torch.from_numpy(array.astype(np.int64)).to(device)
    return torch.from_numpy(np.ascontiguousarray(array, dtype=np.float32)).to(device)
