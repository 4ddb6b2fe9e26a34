"""Preallocated storage for one PPO rollout of ``n_steps`` batched steps."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.returns import gae_advantages

if TYPE_CHECKING:
    import torch
else:
    torch = require_torch()


class RolloutBuffer:
    """Holds one rollout of a vector env, written step by step without reallocating.

    Everything the env loop writes is a NumPy array (that is what envs and the NumPy actor
    produce); :meth:`training_batch` hands the valid steps to torch once per update.
    ``valid`` is ``False`` for the dummy reset steps of the ``NEXT_STEP`` autoreset
    convention (the step after an episode ended), which are left out of training.

    Observations are stored flat as float32 when ``observations`` is an int (the fast
    path's layout), or shaped like the space when it is a space: ``Dict``/``Tuple``
    observations as dicts/tuples of arrays, ``uint8`` images as ``uint8`` (see
    :func:`allocate_like`). :attr:`size` is how many steps of the last rollout are filled
    (a final, shorter rollout fills fewer than ``n_steps``).

    Args:
        n_steps: steps per sub-env per rollout.
        num_envs: number of sub-envs.
        observations: flat observation size, or one sub-env's observation space.
        action_shape: shape of one sub-env's stored action (``()`` for discrete).
        discrete: whether actions are integer indices.

    Example:
        >>> buffer = RolloutBuffer(n_steps=4, num_envs=2, observations=3, action_shape=(),
        ...                        discrete=True)
        >>> buffer.observations.shape, buffer.actions.dtype
        ((4, 2, 3), dtype('int64'))
    """

    log_probs: np.ndarray
    values: np.ndarray
    """Per-step log-probabilities and values, where the trainer allocates them."""

    def __init__(
        self,
        n_steps: int,
        num_envs: int,
        observations: Any,
        action_shape: tuple[int, ...],
        discrete: bool,
    ):
        self.n_steps = n_steps
        self.num_envs = num_envs
        self.size = n_steps
        action_dtype = np.int64 if discrete else np.float32
        if isinstance(observations, (int, np.integer)):
            self.observations = np.zeros((n_steps, num_envs, observations), dtype=np.float32)
        else:
            self.observations = allocate_like(observations, (n_steps, num_envs))
        self.actions = np.zeros((n_steps, num_envs, *action_shape), dtype=action_dtype)
        self.rewards = np.zeros((n_steps, num_envs), dtype=np.float32)
        self.terminated = np.zeros((n_steps, num_envs), dtype=bool)
        self.truncated = np.zeros((n_steps, num_envs), dtype=bool)
        self.valid = np.ones((n_steps, num_envs), dtype=bool)

    def compute_targets(
        self, values: np.ndarray, last_values: np.ndarray, gamma: float, gae_lambda: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """GAE advantages and value targets of the stored rollout.

        Args:
            values: value of each stored observation, ``(n_steps, num_envs)``.
            last_values: values of the observations after the last stored step, ``(N,)``.
            gamma: discount factor.
            gae_lambda: GAE lambda.

        Returns:
            ``(advantages, returns)``, each ``(n_steps, num_envs)`` float32.
        """
        size = self.size
        next_values = np.concatenate([values[1:size], last_values[None]], axis=0)
        return gae_advantages(
            self.rewards[:size],
            values[:size],
            next_values,
            self.terminated[:size],
            self.truncated[:size],
            self.valid[:size],
            gamma,
            gae_lambda,
        )

    def valid_index(self) -> np.ndarray:
        """Flat indices of the filled steps that are trained on."""
        return np.flatnonzero(self.valid[: self.size].reshape(-1))


def allocate_like(space: Any, leading: tuple[int, ...]) -> Any:
    """Zeroed storage for values of ``space`` with ``leading`` batch dimensions.

    ``Dict``/``Tuple`` spaces give dicts/tuples of arrays; ``uint8`` stays ``uint8``, other
    integers become int64 and everything else float32.

    Example:
        >>> from palaestra.spaces import Box, Dict, Discrete
        >>> store = allocate_like(Dict({"a": Box(0, 1, (2,)), "b": Discrete(3)}), (4, 2))
        >>> store["a"].shape, store["b"].dtype
        ((4, 2, 2), dtype('int64'))
    """
    kind = type(space).__name__
    if kind == "Dict":
        return {key: allocate_like(sub, leading) for key, sub in space.spaces.items()}
    if kind == "Tuple":
        return tuple(allocate_like(sub, leading) for sub in space.spaces)
    dtype = np.dtype(getattr(space, "dtype", None) or np.float32)
    stored: type[np.generic]
    if dtype == np.uint8:
        stored = np.uint8
    elif dtype.kind in "iub":
        stored = np.int64
    else:
        stored = np.float32
    return np.zeros((*leading, *(space.shape or ())), dtype=stored)


def write_at(store: Any, index: Any, values: Any) -> None:
    """Copy ``values`` (structured like ``store``) into ``store[index]``.

    Example:
        >>> store = {"a": np.zeros((2, 3))}
        >>> write_at(store, 1, {"a": np.ones(3)})
        >>> store["a"][1].tolist()
        [1.0, 1.0, 1.0]
    """
    if isinstance(store, dict):
        for key, part in store.items():
            write_at(part, index, values[key])
    elif isinstance(store, tuple):
        for part, value in zip(store, values):
            write_at(part, index, value)
    else:
        store[index] = np.asarray(values).reshape(store[index].shape)


def map_structure(function: Any, store: Any) -> Any:
    """Apply ``function`` to every array of a (possibly nested) dict/tuple structure.

    Example:
        >>> map_structure(lambda a: a.shape, {"a": np.zeros(2), "b": (np.zeros(3),)})
        {'a': (2,), 'b': ((3,),)}
    """
    if isinstance(store, dict):
        return {key: map_structure(function, value) for key, value in store.items()}
    if isinstance(store, tuple):
        return tuple(map_structure(function, value) for value in store)
    return function(store)


def minibatches(
    batch: tuple[torch.Tensor, ...], batch_size: int, generator: torch.Generator
) -> Iterator[tuple[torch.Tensor, ...]]:
    """Split a batch of equally long tensors into shuffled minibatches.

    A batch that fits in one minibatch is yielded as it is: for a full-batch step the
    order of the samples does not matter, so shuffling and copying would be wasted work.

    Args:
        batch: tensors whose first dimension indexes samples.
        batch_size: samples per minibatch (the last one may be smaller).
        generator: the torch generator that shuffles.

    Yields:
        Tuples of tensors like ``batch``.

    Example:
        >>> batch = (torch.arange(5), torch.arange(5) * 10)
        >>> [len(b[0]) for b in minibatches(batch, 2, torch.Generator().manual_seed(0))]
        [2, 2, 1]
    """
    size = len(batch[0])
    if size <= batch_size:
        yield batch
        return
    order = torch.randperm(size, generator=generator).to(batch[0].device)
    for start in range(0, size, batch_size):
        chosen = order[start : start + batch_size]
        yield tuple(tensor[chosen] for tensor in batch)
