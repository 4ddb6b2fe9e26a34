"""One random generator per sub-environment, drawn from as a batch.

Seeding parity with :class:`~palaestra.vector.SyncVectorEnv` needs each sub-environment to own
a generator seeded exactly as a single environment's ``np_random`` and consumed in the same
order. :class:`GeneratorBatch` keeps those generators; :meth:`GeneratorBatch.rows` hands the
dynamics' initial-state functions an object with the :class:`numpy.random.Generator` method
they call (``uniform``), whose leading ``size`` axis walks the selected sub-environments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from palaestra.utils import seeding

__all__ = ["GeneratorBatch", "GeneratorRows"]


class GeneratorRows:
    """The generators of some sub-environments, drawn from row by row.

    Args:
        generators: one generator per row, in row order.

    Example:
        >>> import numpy as np
        >>> rows = GeneratorRows([np.random.default_rng(1), np.random.default_rng(2)])
        >>> draws = rows.uniform(0.0, 1.0, size=(2, 3))
        >>> bool(np.all(draws[1] == np.random.default_rng(2).uniform(0.0, 1.0, size=3)))
        True
    """

    def __init__(self, generators: Sequence[np.random.Generator]):
        self.generators = generators

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None) -> np.ndarray:
        """Draw ``size[0]`` rows, row ``i`` from generator ``i`` with shape ``size[1:]``.

        Args:
            low: lower bound(s), broadcast against one row.
            high: upper bound(s), broadcast against one row.
            size: an int (one draw per row) or a tuple whose first entry is the row count.

        Raises:
            ValueError: if the row count differs from the number of generators.
        """
        shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
        if shape[0] != len(self.generators):
            raise ValueError(
                f"Asked for {shape[0]} rows of draws from {len(self.generators)} generators; "
                "the leading size must equal the number of selected sub-environments."
            )
        row_shape = shape[1:]
        out = np.empty(shape, dtype=np.float64)
        for row, generator in enumerate(self.generators):
            out[row] = generator.uniform(low, high, size=row_shape)
        return out


class GeneratorBatch:
    """The ``np_random`` generators of ``num_envs`` sub-environments.

    A sub-environment reset with seed ``None`` keeps its generator, or gets one from OS
    entropy if it has none yet, as :meth:`palaestra.Env.reset` does.

    Args:
        num_envs: the number of sub-environments.

    Example:
        >>> batch = GeneratorBatch(2)
        >>> batch.seed(np.array([0, 1]), [7, 8])
        >>> batch.seeds
        [7, 8]
        >>> batch.rows(np.array([1])).uniform(size=(1,)).shape
        (1,)
    """

    def __init__(self, num_envs: int):
        self.generators: list[np.random.Generator | None] = [None] * num_envs
        self.seeds: list[int | None] = [None] * num_envs

    def seed(self, indices: np.ndarray, seeds: Sequence[int | None]) -> None:
        """Reseed the generators at ``indices``; ``seeds`` holds one entry per sub-env."""
        for index in indices:
            seed = seeds[index]
            if seed is not None or self.generators[index] is None:
                self.generators[index], self.seeds[index] = seeding.np_random(seed)

    def rows(self, indices: np.ndarray | None = None) -> GeneratorRows:
        """Return the generators at ``indices`` (all for ``None``), for batched draws."""
        if indices is None:
            return GeneratorRows(self.generators)  # type: ignore[arg-type]
        return GeneratorRows([self.generators[i] for i in indices])  # type: ignore[misc]
