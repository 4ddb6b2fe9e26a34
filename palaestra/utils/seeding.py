"""Seeded random generators, built exactly as Gymnasium builds them.

A seed goes through :class:`numpy.random.SeedSequence` into a PCG64 bit generator, so the
same seed gives the same random stream here and in Gymnasium.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra import error

RandomNumberGenerator = np.random.Generator


def np_random(seed: int | None = None) -> tuple[np.random.Generator, Any]:
    """Create a PCG64 generator from ``seed`` and return it with the seed that made it.

    Args:
        seed: a non-negative integer, or ``None`` for fresh entropy from the OS.

    Returns:
        The generator and the entropy of its seed sequence (equal to ``seed`` when given).

    Raises:
        palaestra.error.Error: if ``seed`` is not ``None`` or a non-negative ``int``.

    Example:
        >>> rng, seed = np_random(42)
        >>> seed, int(rng.integers(100))
        (42, 8)
    """
    if seed is not None and not (isinstance(seed, int) and seed >= 0):
        if isinstance(seed, int):
            raise error.Error(f"Seed must be >= 0, got {seed}")
        raise error.Error(
            f"Seed must be a python integer, actual type: {type(seed)} (value {seed!r})"
        )
    sequence = np.random.SeedSequence(seed)
    return np.random.Generator(np.random.PCG64(sequence)), sequence.entropy
