"""The per-step bookkeeping of a batched env: step counters, truncation and ended masks.

:func:`close_step` is the numpy version; the numba accelerator compiles the same rules into
one pass over the rows (:func:`palaestra.vector.native.compiled.compiled_close_step`),
which saves several array passes per step at large batch sizes.
"""

from __future__ import annotations

import numpy as np

__all__ = ["NO_LIMIT", "close_step"]

# The step limit of an env without one.
NO_LIMIT = np.iinfo(np.int64).max


def close_step(
    rewards: np.ndarray,
    terminations: np.ndarray,
    elapsed: np.ndarray,
    restarting: np.ndarray | None,
    max_steps: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Count the step and return ``(truncations, ended, ended_rows)``.

    Rows in ``restarting`` (a mask, or row indices: cheaper when few) are being autoreset
    instead of stepped: their reward becomes 0, their flags False and their step count 0.
    Every other row counts one step and is truncated once it reaches ``max_steps``.
    ``rewards``, ``terminations`` and ``elapsed`` are updated in place.

    Example:
        >>> rewards, terminations = np.ones(3), np.array([True, False, False])
        >>> elapsed = np.array([4, 9, 2])
        >>> restarting = np.array([False, False, True])
        >>> truncations, ended, rows = close_step(rewards, terminations, elapsed, restarting, 10)
        >>> truncations.tolist(), ended.tolist(), rows.tolist(), elapsed.tolist()
        ([False, True, False], [True, True, False], [0, 1], [5, 10, 0])
        >>> rewards.tolist()
        [1.0, 1.0, 0.0]
    """
    elapsed += 1
    if restarting is not None:
        rewards[restarting] = 0.0
        terminations[restarting] = False
        elapsed[restarting] = 0
    truncations = elapsed >= max_steps
    ended = terminations | truncations
    # nonzero() on the 1-D mask itself: np.flatnonzero adds a ravel and a Python-level call.
    return truncations, ended, ended.nonzero()[0]
