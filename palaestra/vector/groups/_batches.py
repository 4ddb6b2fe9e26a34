"""Batches of groups of sub-environments: sliced out, joined in, mapped onto flat arrays.

A group runs a contiguous slice of a vector env's sub-environments; its batches are slices
of the whole batch (:func:`slice_batch`, :func:`join_batches`, :func:`take_rows`).

A space whose every leaf has a fixed shape (``Box``, ``Discrete``, ``MultiDiscrete``,
``MultiBinary``, and ``Dict``/``Tuple`` of them) can live in one array per leaf, of shape
``(num_envs, *leaf_shape)`` (:func:`fixed_leaves`, :func:`assemble`, :func:`write_batch`):
the pool's shared block does so. Its batch is the nested ``dict``/``tuple`` of those arrays,
exactly as :func:`~palaestra.vector.utils.batch_space` batches it. Any other space
(``Text``, ``Graph``, ``Sequence``, ``OneOf``, or a composite holding one) travels as
per-group batches instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.vector.utils import batch_space, iterate

__all__ = [
    "assemble",
    "copy_batch",
    "fixed_leaves",
    "join_batches",
    "row_of",
    "slice_batch",
    "take_rows",
    "write_batch",
]

Leaves = list[tuple[str, tuple[int, ...], str]]
_FIXED = (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)


def _leaf_shape(space: Any) -> tuple[int, ...]:
    if isinstance(space, spaces.Discrete):
        return ()
    if isinstance(space, spaces.MultiDiscrete):
        return tuple(space.nvec.shape)
    return tuple(space.shape)


def fixed_leaves(space: Any, prefix: str) -> Leaves | None:
    """List ``(block key, per-env shape, dtype string)`` for each leaf, or ``None``.

    ``None`` means that some part of ``space`` has no fixed shape (or is a custom space), so
    its batches cannot live in the block.

    Example:
        >>> from palaestra.spaces import Box, Dict, Discrete, Text
        >>> fixed_leaves(Dict({"a": Box(0, 1, (2,)), "b": Discrete(3)}), "obs")
        [('obs/a', (2,), '<f4'), ('obs/b', (), '<i8')]
        >>> fixed_leaves(Text(4), "obs") is None
        True
    """
    if isinstance(space, _FIXED):
        return [(prefix, _leaf_shape(space), np.dtype(space.dtype).str)]
    if isinstance(space, spaces.Dict):
        parts = [fixed_leaves(sub, f"{prefix}/{key}") for key, sub in space.spaces.items()]
    elif isinstance(space, spaces.Tuple):
        parts = [fixed_leaves(sub, f"{prefix}/{i}") for i, sub in enumerate(space.spaces)]
    else:
        return None
    if any(part is None for part in parts):
        return None
    return [leaf for part in parts for leaf in part]  # type: ignore[union-attr]


def assemble(space: Any, arrays: dict[str, np.ndarray], prefix: str) -> Any:
    """Build the batch of ``space`` as views of the block ``arrays`` (see :func:`fixed_leaves`).

    Example:
        >>> from palaestra.spaces import Dict, Discrete
        >>> assemble(Dict({"b": Discrete(3)}), {"obs/b": np.zeros(2, np.int64)}, "obs")
        {'b': array([0, 0])}
    """
    if isinstance(space, spaces.Dict):
        return {key: assemble(sub, arrays, f"{prefix}/{key}") for key, sub in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(assemble(sub, arrays, f"{prefix}/{i}") for i, sub in enumerate(space.spaces))
    return arrays[prefix]


def copy_batch(batch: Any) -> Any:
    """Copy every array of a nested ``dict``/``tuple`` batch.

    Example:
        >>> copy_batch({"a": np.zeros(2)})
        {'a': array([0., 0.])}
    """
    if isinstance(batch, dict):
        return {key: copy_batch(value) for key, value in batch.items()}
    if isinstance(batch, tuple):
        return tuple(copy_batch(value) for value in batch)
    return batch.copy()


def write_batch(
    space: Any, batch: Any, arrays: dict[str, np.ndarray], prefix: str, rows: Any
) -> None:
    """Write a (nested) batch into the block ``arrays`` at ``rows``.

    Raises:
        KeyError, IndexError, TypeError, ValueError: if ``batch`` does not have the structure
            and shapes of ``space``'s batch.
    """
    if isinstance(space, spaces.Dict):
        for key, sub in space.spaces.items():
            write_batch(sub, batch[key], arrays, f"{prefix}/{key}", rows)
    elif isinstance(space, spaces.Tuple):
        for i, sub in enumerate(space.spaces):
            write_batch(sub, batch[i], arrays, f"{prefix}/{i}", rows)
    else:
        arrays[prefix][rows] = batch


def slice_batch(space: Any, batch: Any, rows: slice | np.ndarray) -> Any:
    """Take the sub-envs ``rows`` out of a batch of ``space`` (a single, unbatched space).

    Example:
        >>> from palaestra.spaces import Dict, Discrete, Text
        >>> slice_batch(Dict({"d": Discrete(2), "t": Text(3)}),
        ...             {"d": np.array([0, 1, 1]), "t": ("a", "b", "c")}, slice(1, 3))
        {'d': array([1, 1]), 't': ('b', 'c')}
    """
    if isinstance(space, spaces.Dict):
        return {key: slice_batch(sub, batch[key], rows) for key, sub in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(slice_batch(sub, batch[i], rows) for i, sub in enumerate(space.spaces))
    if isinstance(space, _FIXED):
        return np.asarray(batch)[rows]
    items = tuple(batch)
    if isinstance(rows, slice):
        return items[rows]
    return tuple(items[int(i)] for i in rows)


def join_batches(space: Any, batches: Sequence[Any]) -> Any:
    """Join the batches of consecutive groups of sub-envs into one batch of ``space``.

    Example:
        >>> from palaestra.spaces import Tuple, Discrete, Text
        >>> join_batches(Tuple((Discrete(2), Text(3))),
        ...              [(np.array([0]), ("a",)), (np.array([1, 1]), ("b", "c"))])
        (array([0, 1, 1]), ('a', 'b', 'c'))
    """
    if isinstance(space, spaces.Dict):
        return {
            key: join_batches(sub, [batch[key] for batch in batches])
            for key, sub in space.spaces.items()
        }
    if isinstance(space, spaces.Tuple):
        return tuple(
            join_batches(sub, [batch[i] for batch in batches]) for i, sub in enumerate(space.spaces)
        )
    if isinstance(space, _FIXED):
        return np.concatenate([np.asarray(batch) for batch in batches])
    return tuple(item for batch in batches for item in batch)


def take_rows(batch: Any, ids: np.ndarray) -> Any:
    """Take rows ``ids`` of a (nested ``dict``/``tuple``) batch of arrays.

    Example:
        >>> take_rows({"a": np.arange(3)}, np.array([2, 0]))
        {'a': array([2, 0])}
    """
    if isinstance(batch, dict):
        return {key: take_rows(value, ids) for key, value in batch.items()}
    if isinstance(batch, tuple):
        return tuple(take_rows(value, ids) for value in batch)
    return batch[ids]


def row_of(space: Any, batch: Any, offset: int, size: int) -> Any:
    """Return sub-env ``offset``'s observation out of a group's batch of ``size``.

    Example:
        >>> from palaestra.spaces import Discrete
        >>> row_of(Discrete(3), np.array([2, 1]), 1, 2)
        np.int64(1)
    """
    return list(iterate(batch_space(space, size), batch))[offset]
