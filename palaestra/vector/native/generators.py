"""One random stream per sub-environment, drawn from as a batch.

Seeding parity with :class:`~palaestra.vector.SyncVectorEnv` needs each sub-environment to own
a PCG64 stream seeded exactly as a single environment's ``np_random`` and consumed in the same
order. :class:`GeneratorBatch` keeps the 128-bit states of all streams in arrays and advances
the selected ones together (see :mod:`palaestra.vector.native.pcg64`);
:meth:`GeneratorBatch.rows` hands the dynamics' initial-state functions an object with the
:class:`numpy.random.Generator` method they call (``uniform``), whose leading ``size`` axis
walks the selected sub-environments.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from palaestra.utils import seeding
from palaestra.vector.native.pcg64 import (
    doubles_after_jumps,
    join_state,
    jump_constants,
    multiply_128,
    split_state,
)
from palaestra.vector.native.seed_sequences import BATCHED_SEED_LIMIT, pcg64_states

__all__ = ["GeneratorBatch", "GeneratorRows", "GENERATOR_OBJECTS_MAX_ENVS"]

# Up to this many sub-environments, per-env Generator objects beat array-stepped states
# (resets touch only a few sub-envs per step, and a Generator draw costs about a microsecond).
# Measured on CartPole's numpy path (CPU time per step, interleaved): objects ahead at 8
# sub-envs (29.9 vs 31.4 us), even at 32, behind from 64 on (48.7 vs 41.7 us at 256, where
# objects made the step as slow as Gymnasium's CartPoleVectorEnv).
GENERATOR_OBJECTS_MAX_ENVS = 32

# From this many seeds on, the streams' states are computed together (pcg64_states: about
# 0.3 ms however many) instead of from a Generator per seed (10-20 us each).
SEEDS_IN_BULK_FROM = 32


def _seeds_in_bulk(seeds: list[Any]) -> bool:
    """Whether ``seeds`` are many plain ints that :func:`pcg64_states` takes (else one by one).

    ``None`` (OS entropy), and anything that is not a non-negative ``int`` below 2**64, go
    through :func:`palaestra.utils.seeding.np_random`, which also says what is wrong with a
    bad seed.
    """
    return len(seeds) >= SEEDS_IN_BULK_FROM and all(
        type(seed) is int and 0 <= seed < BATCHED_SEED_LIMIT for seed in seeds
    )


class GeneratorRows:
    """The streams of some sub-environments, drawn from row by row.

    Args:
        batch: the streams' owner.
        indices: the selected sub-environments (``None``: all, in order).

    Example:
        >>> batch = GeneratorBatch(2)
        >>> batch.seed(np.arange(2), [1, 2])
        >>> draws = batch.rows().uniform(0.0, 1.0, size=(2, 3))
        >>> single = np.random.Generator(np.random.PCG64(np.random.SeedSequence(2)))
        >>> bool(np.all(draws[1] == single.uniform(0.0, 1.0, size=3)))
        True
    """

    def __init__(self, batch: GeneratorBatch, indices: np.ndarray | None):
        self.batch = batch
        self.indices = indices

    def __len__(self) -> int:
        return self.batch.num_envs if self.indices is None else len(self.indices)

    def generators(self) -> list[np.random.Generator]:
        """Return the selected sub-environments' own generators, for draws beyond ``uniform``.

        Only a batch made with ``objects=True`` has them; drawing from one advances that
        sub-environment's stream, as its single environment's ``np_random`` would.

        Raises:
            RuntimeError: for a batch that keeps its streams as arrays.

        Example:
            >>> batch = GeneratorBatch(1, objects=True)
            >>> batch.seed(np.array([0]), [5])
            >>> float(batch.rows().generators()[0].standard_normal()) == float(
            ...     np.random.default_rng(5).standard_normal())
            True
        """
        objects = self.batch._objects
        if objects is None or not self.batch.keeps_objects:
            raise RuntimeError(
                "These streams are kept as arrays; make the GeneratorBatch with objects=True "
                "to draw from each sub-environment's own Generator."
            )
        rows = range(self.batch.num_envs) if self.indices is None else self.indices
        return [objects[row] for row in rows]  # type: ignore[misc]

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None) -> np.ndarray:
        """Draw ``size[0]`` rows, row ``i`` from stream ``i`` with shape ``size[1:]``.

        Each row equals ``generator.uniform(low, high, size[1:])`` on that sub-env's own
        generator.

        Args:
            low: lower bound(s), broadcast against one row.
            high: upper bound(s), broadcast against one row.
            size: an int (one draw per row) or a tuple whose first entry is the row count.

        Raises:
            ValueError: if the row count differs from the number of selected streams.
        """
        shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
        if shape[0] != len(self):
            raise ValueError(
                f"Asked for {shape[0]} rows of draws from {len(self)} streams; the leading "
                "size must equal the number of selected sub-environments."
            )
        unit = self.batch.draw_doubles(self.indices, math.prod(shape[1:])).reshape(shape)
        if not isinstance(low, float) or not isinstance(high, float):
            low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
        # numpy's own formula, so the values equal Generator.uniform's bit for bit.
        return low + (high - low) * unit


class GeneratorBatch:
    """The PCG64 streams of ``num_envs`` sub-environments.

    A sub-environment reset with seed ``None`` keeps its stream, or gets one from OS entropy
    if it has none yet, as :meth:`palaestra.Env.reset` does.

    Small batches keep one :class:`numpy.random.Generator` per sub-environment (a draw from
    a few of them is cheapest one by one); large ones keep the states in arrays and step the
    selected streams together, with numpy array operations or, when ``compiled``, a numba
    loop.

    Args:
        num_envs: the number of sub-environments.
        compiled: draw from the state arrays with numba.
        objects: keep one :class:`numpy.random.Generator` per sub-environment at every size
            and accelerator, for initial states drawn with more than ``uniform`` (see
            :meth:`GeneratorRows.generators`).

    Example:
        >>> batch = GeneratorBatch(2)
        >>> batch.seed(np.array([0, 1]), [7, 8])
        >>> batch.seeds
        [7, 8]
        >>> batch.rows(np.array([1])).uniform(size=(1,)).shape
        (1,)
    """

    def __init__(self, num_envs: int, compiled: bool = False, objects: bool = False):
        self.num_envs = num_envs
        self.keeps_objects = objects
        self._objects: list[np.random.Generator | None] | None = None
        if objects or (not compiled and num_envs <= GENERATOR_OBJECTS_MAX_ENVS):
            self._objects = [None] * num_envs
        self._compiled_draw = None
        if compiled and not objects:
            from palaestra.vector.native.compiled import compiled_draw_doubles

            self._compiled_draw = compiled_draw_doubles
        self.seeds: list[int | None] = [None] * num_envs
        self.seeded = np.zeros(num_envs, dtype=np.bool_)
        self._high, self._low, self._inc_high, self._inc_low = (
            np.zeros(num_envs, dtype=np.uint64) for _ in range(4)
        )
        # Per draw count: the jump multipliers and every stream's jump increments.
        self._jumps: dict[int, tuple[tuple[np.ndarray, np.ndarray], tuple[Any, Any]]] = {}
        # Each stream's next draw of ``_ahead_count`` doubles, made ahead in bulk where
        # ``_ahead_ready``. ``_high`` and ``_low`` hold every stream's state after its draws,
        # the one made ahead included: a ready stream's own state (before that draw) is kept
        # in ``_before_high`` and ``_before_low``. Handing a draw out is then only clearing
        # its ready flag, with no state to copy.
        self._ahead_count = 0
        self._ahead = np.zeros((0, num_envs))
        self._before_high, self._before_low = np.zeros((2, num_envs), dtype=np.uint64)
        self._ahead_ready = np.zeros(num_envs, dtype=np.bool_)

    def seed(self, indices: np.ndarray, seeds: Sequence[int | None]) -> None:
        """Reseed the streams at ``indices``; ``seeds`` holds one entry per sub-env."""
        fresh = [i for i in indices if seeds[i] is not None or not self.seeded[i]]
        if not fresh:
            return
        rows = np.asarray(fresh)
        chosen = [seeds[i] for i in fresh]
        if self._objects is None and _seeds_in_bulk(chosen):
            # The streams' states computed together, without a Generator per seed.
            states = pcg64_states(chosen)
            self._high[rows], self._low[rows], self._inc_high[rows], self._inc_low[rows] = states
            for index, seed in zip(fresh, chosen, strict=True):
                self.seeds[index] = seed
        else:
            self._seed_one_by_one(fresh, seeds)
        self.seeded[rows] = True
        if self._objects is not None:
            return
        self._jumps.clear()
        # A draw made ahead from the old stream is dropped (the new state is in place).
        self._ahead_ready[rows] = False

    def _seed_one_by_one(self, fresh: list[int], seeds: Sequence[int | None]) -> None:
        states = []
        for index in fresh:
            generator, self.seeds[index] = seeding.np_random(seeds[index])
            if self._objects is not None:
                self._objects[index] = generator
            else:
                states.append(generator.bit_generator.state["state"])
        if self._objects is None:
            rows = np.asarray(fresh)
            self._high[rows], self._low[rows], self._inc_high[rows], self._inc_low[rows] = (
                split_state(states)
            )

    def use_compiled_draws(self) -> None:
        """Draw with numba from now on, every stream continuing from where it is.

        Generator objects become array states and draws made ahead are given back to their
        streams, so the next draws are the ones the numpy path would have made. A batch made
        with ``objects=True`` keeps its objects (their draws are the same).

        Example:
            >>> batch = GeneratorBatch(1)
            >>> batch.seed(np.array([0]), [3])
            >>> expected = batch.generators[0].random(2)
            >>> batch.use_compiled_draws()  # doctest: +SKIP
            >>> bool(np.all(batch.draw_doubles(None, 2)[0] == expected))  # doctest: +SKIP
            True
        """
        if self.keeps_objects:
            return
        from palaestra.vector.native.compiled import compiled_draw_doubles

        if self._objects is not None:
            rows = np.flatnonzero(self.seeded)
            if len(rows):
                states = [self._objects[row].bit_generator.state["state"] for row in rows]  # type: ignore[union-attr]
                (
                    self._high[rows],
                    self._low[rows],
                    self._inc_high[rows],
                    self._inc_low[rows],
                ) = split_state(states)
            self._objects = None
        self._drop_ahead()
        self._jumps.clear()
        self._compiled_draw = compiled_draw_doubles

    def rows(self, indices: np.ndarray | None = None) -> GeneratorRows:
        """Return the streams at ``indices`` (all for ``None``), for batched draws."""
        return GeneratorRows(self, indices)

    def draw_doubles(self, indices: np.ndarray | None, count: int) -> np.ndarray:
        """Draw ``count`` doubles in ``[0, 1)`` from each selected stream, shape ``(k, count)``."""
        if self._objects is not None:
            rows = range(self.num_envs) if indices is None else indices
            draws = [self._objects[row].random(count) for row in rows]  # type: ignore[union-attr]
            return np.array(draws).reshape(len(draws), count)
        if self._compiled_draw is not None:
            rows = np.arange(self.num_envs) if indices is None else np.asarray(indices)
            out = np.empty((len(rows), count), dtype=np.float64)
            self._compiled_draw(self._high, self._low, self._inc_high, self._inc_low, rows, out)
            return out
        if indices is None:
            self._drop_ahead()
            draws, self._high[:], self._low[:] = self._jump(slice(None), count)
            return draws.T
        return self._hand_out_ahead(indices, count)

    def _hand_out_ahead(self, indices: np.ndarray, count: int) -> np.ndarray:
        """Hand out the selected streams' draws made ahead, making them first if need be.

        A few sub-envs reset per step, but drawing for them costs dozens of array operations
        however few they are; drawing for every stream that needs a next draw at once costs
        those operations once per several steps. A handed-out draw costs a gather, a check
        and a flag.
        """
        if count != self._ahead_count:
            self._drop_ahead()
            self._ahead_count = count
            self._ahead = np.zeros((count, self.num_envs))
        ready = self._ahead_ready
        # count_nonzero and take: a fraction of the cost of a ufunc reduction and of a
        # fancy index on small selections.
        if np.count_nonzero(ready[indices]) != len(indices):
            rows = (~ready).nonzero()[0]
            self._before_high[rows] = self._high[rows]
            self._before_low[rows] = self._low[rows]
            self._ahead[:, rows], self._high[rows], self._low[rows] = self._jump(rows, count)
            ready[rows] = True
        ready[indices] = False
        return self._ahead.take(indices, axis=1).T

    def _drop_ahead(self) -> None:
        """Forget every draw made ahead: its streams go back to their state before it."""
        ready = self._ahead_ready
        np.copyto(self._high, self._before_high, where=ready)
        np.copyto(self._low, self._before_low, where=ready)
        ready[:] = False

    def _states(self) -> tuple[np.ndarray, np.ndarray]:
        """Every stream's own state (high and low halves), draws made ahead not counted."""
        ready = self._ahead_ready
        return (
            np.where(ready, self._before_high, self._high),
            np.where(ready, self._before_low, self._low),
        )

    def _jump(self, rows: Any, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return ``count`` doubles of each stream in ``rows`` (``(count, k)``), new states."""
        multipliers, (increment_high, increment_low) = self._jump_table(count)
        if isinstance(rows, slice):
            return doubles_after_jumps(
                self._high, self._low, multipliers, (increment_high, increment_low)
            )
        return doubles_after_jumps(
            self._high.take(rows),
            self._low.take(rows),
            multipliers,
            (increment_high.take(rows, axis=1), increment_low.take(rows, axis=1)),
        )

    def _jump_table(self, count: int) -> Any:
        """Return the constants that draw ``count`` doubles from every stream in one jump.

        They are the multipliers' halves, ``(count, 1)``, and every stream's increments,
        ``(count, num_envs)``.
        """
        table = self._jumps.get(count)
        if table is None:
            multipliers, factors = jump_constants(count)
            multiplier_halves = tuple(half[:, None] for half in _halves(multipliers))
            factor_halves = (half[:, None] for half in _halves(factors))
            increments = multiply_128(self._inc_high, self._inc_low, *factor_halves)
            table = self._jumps[count] = (multiplier_halves, increments)
        return table

    @property
    def generators(self) -> tuple[np.random.Generator | None, ...]:
        """Snapshots of the streams as :class:`numpy.random.Generator` objects (``None``: unseeded).

        Each is a copy at the stream's current position, whatever the batch size and
        accelerator: drawing from it never advances the sub-environment's own stream (reseed
        that with ``reset(seed=...)``).

        Example:
            >>> batch = GeneratorBatch(1)
            >>> batch.seed(np.array([0]), [3])
            >>> first = batch.generators[0].random()
            >>> batch.generators[0].random() == first
            True
        """
        if self._objects is not None:
            return tuple(None if g is None else _copy(g.bit_generator.state) for g in self._objects)
        states = join_state(*self._states())
        increments = join_state(self._inc_high, self._inc_low)
        snapshots: list[np.random.Generator | None] = []
        for seeded, state, increment in zip(self.seeded, states, increments, strict=True):
            if not seeded:
                snapshots.append(None)
                continue
            snapshots.append(
                _copy(
                    {
                        "bit_generator": "PCG64",
                        "state": {"state": state, "inc": increment},
                        "has_uint32": 0,
                        "uinteger": 0,
                    }
                )
            )
        return tuple(snapshots)


def _copy(state: dict) -> np.random.Generator:
    """Return a new Generator on a PCG64 bit generator in ``state``."""
    bit_generator = np.random.PCG64()
    bit_generator.state = state
    return np.random.Generator(bit_generator)


def _halves(numbers: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """128-bit integers as two ``uint64`` arrays, high halves and low halves."""
    high, low, _, _ = split_state([{"state": n, "inc": 0} for n in numbers])
    return high, low
