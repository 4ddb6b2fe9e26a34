"""Acting on one observation or a batch, for trained agents and checkpoint actors.

An *actor* is anything with ``act(batch_of_observations, deterministic) -> env actions``;
:func:`predict_with` lets it take one observation as well.

Example:
    >>> from palaestra.spaces import Box
    >>> class Zero:
    ...     def act(self, batch, deterministic):
    ...         return np.zeros(len(batch), dtype=np.int64)
    >>> int(predict_with(Zero(), np.zeros(3), Box(-1, 1, (3,)), True))
    0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.buffer import map_structure

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()


def is_single_observation(observations: Any, space: Any) -> bool:
    """Whether ``observations`` is one observation of ``space`` rather than a batch.

    Example:
        >>> from palaestra.spaces import Box, Discrete
        >>> is_single_observation(np.zeros(3), Box(-1, 1, (3,)))
        True
        >>> is_single_observation(np.array([1, 2]), Discrete(3))
        False
    """
    kind = type(space).__name__
    if kind == "Dict":
        key = next(iter(space.spaces))
        return is_single_observation(observations[key], space[key])
    if kind == "Tuple":
        return is_single_observation(observations[0], space[0])
    return np.shape(observations) == tuple(space.shape or ())


def predict_with(actor: Any, observations: Any, space: Any, deterministic: bool) -> np.ndarray:
    """Act on one observation or a batch with ``actor.act(batch, deterministic)``.

    Args:
        actor: an object with ``act(batch, deterministic)``.
        observations: one observation of ``space`` or a batch (leading dimension).
        space: the single observation space.
        deterministic: take the most likely action instead of sampling.

    Returns:
        One env action for one observation, else a batch of them.

    Example:
        >>> from palaestra.spaces import Box
        >>> class Ones:
        ...     def act(self, batch, deterministic):
        ...         return np.ones(len(batch), dtype=np.int64)
        >>> predict_with(Ones(), np.zeros((2, 3)), Box(-1, 1, (3,)), True).tolist()
        [1, 1]
    """
    with torch.no_grad():
        if is_single_observation(observations, space):
            batch = map_structure(lambda value: np.asarray(value)[None], as_arrays(observations))
            return np.asarray(actor.act(batch, deterministic))[0]
        return actor.act(as_arrays(observations), deterministic)


def as_arrays(observations: Any) -> Any:
    """Return the observations as NumPy arrays, keeping ``dict`` and ``tuple`` structure.

    Example:
        >>> as_arrays({"a": [1, 2]})["a"].dtype
        dtype('int64')
    """
    if isinstance(observations, dict):
        return {key: as_arrays(value) for key, value in observations.items()}
    if isinstance(observations, tuple):
        return tuple(as_arrays(value) for value in observations)
    return np.asarray(observations)


class HeadActor:
    """An actor of a network whose (first) output feeds an action head.

    Args:
        network: a module mapping flat observations to the head's inputs (or a tuple
            whose first element is).
        head: an action head of :mod:`palaestra.train.distributions`.

    Example:
        >>> from palaestra.train.distributions import CategoricalHead
        >>> actor = HeadActor(torch.nn.Linear(3, 2), CategoricalHead(2))
        >>> actor.act(np.zeros((4, 3)), True).shape
        (4,)
    """

    def __init__(self, network: Any, head: Any):
        self.network, self.head = network, head

    def act(self, observations: Any, deterministic: bool) -> np.ndarray:
        """Env actions for a batch of observations."""
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32))
        with torch.no_grad():
            outputs = self.network(obs.reshape(len(obs), -1))
            if isinstance(outputs, tuple):
                outputs = outputs[0]
            actions = self.head.mode(outputs) if deterministic else self.head.sample(outputs)[0]
        return self.head.to_env(actions)
