"""One shared-memory block holding every array a pool's workers and parent exchange.

Actions, observations, rewards and flags of all sub-environments, and one control word per
worker (command, sequence number, status), live side by side in a single
:class:`multiprocessing.shared_memory.SharedMemory` segment. Both sides address them as numpy
arrays over the same buffer, so a step moves no pickled data at all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from multiprocessing.shared_memory import SharedMemory

import numpy as np

__all__ = ["BlockLayout", "SharedBlock"]

# Each array starts on a cache line, so workers writing neighbouring fields do not share one.
_ALIGNMENT = 64

BlockLayout = dict[str, tuple[tuple[int, ...], str]]


def _offsets(layout: BlockLayout) -> tuple[dict[str, int], int]:
    offsets, position = {}, 0
    for name, (shape, dtype) in layout.items():
        offsets[name] = position
        size = math.prod(shape) * np.dtype(dtype).itemsize
        position += -(-size // _ALIGNMENT) * _ALIGNMENT
    return offsets, max(position, _ALIGNMENT)


class SharedBlock:
    """Named numpy arrays over one shared-memory segment.

    The creating side owns the segment and unlinks it in :meth:`close`; an attaching side
    (a worker started with ``spawn``) only unmaps it.

    Args:
        layout: ``name -> (shape, dtype string)``, in placement order.
        name: ``None`` to create a segment, or the name of one to attach to.

    Example:
        >>> block = SharedBlock({"rewards": ((4,), "float64"), "flags": ((4,), "bool")})
        >>> block["rewards"][:] = 1.5
        >>> other = SharedBlock(block.layout, name=block.name)
        >>> other["rewards"].tolist()
        [1.5, 1.5, 1.5, 1.5]
        >>> other.close()
        >>> block.close()
    """

    def __init__(self, layout: BlockLayout, name: str | None = None):
        self.layout = dict(layout)
        offsets, size = _offsets(self.layout)
        self.owner = name is None
        self.memory = SharedMemory(name=name, create=self.owner, size=size if self.owner else 0)
        self.name = self.memory.name
        self.arrays = {
            key: np.ndarray(shape, dtype=dtype, buffer=self.memory.buf, offset=offsets[key])
            for key, (shape, dtype) in self.layout.items()
        }

    def __getitem__(self, key: str) -> np.ndarray:
        return self.arrays[key]

    def close(self) -> None:
        """Drop the arrays and unmap the segment; the owner also unlinks it."""
        self.arrays = {}
        self.memory.close()
        if self.owner:
            self.memory.unlink()


def pool_layout(
    num_envs: int,
    num_workers: int,
    action_leaves: Sequence[tuple[str, tuple[int, ...], str]] | None,
    observation_leaves: Sequence[tuple[str, tuple[int, ...], str]] | None,
) -> BlockLayout:
    """Return the layout of a pool's block.

    Args:
        num_envs: the number of sub-environments.
        num_workers: the number of workers (one control word each).
        action_leaves: ``(key, per-env shape, dtype)`` of each action array, or ``None``
            when actions travel through the pipes (see
            :func:`~palaestra.vector.pool._layout.fixed_leaves`).
        observation_leaves: the same for observations.

    Example:
        >>> sorted(pool_layout(4, 2, [("actions", (), "<i8")], None))[:3]
        ['actions', 'command', 'done']
    """
    layout: BlockLayout = {}
    for key, shape, dtype in [*(action_leaves or []), *(observation_leaves or [])]:
        layout[key] = ((num_envs, *shape), np.dtype(dtype).str)
    layout.update(
        {
            "rewards": ((num_envs,), "float64"),
            "terminations": ((num_envs,), "bool"),
            "truncations": ((num_envs,), "bool"),
            "command": ((num_workers,), "int64"),
            "sequence": ((num_workers,), "int64"),
            "done": ((num_workers,), "int64"),
            "status": ((num_workers,), "int64"),
        }
    )
    return layout
