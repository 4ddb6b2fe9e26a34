"""Per-sub-environment random streams for the batched toy-text environments.

The toy-text environments draw two kinds of numbers from ``np_random``: uniform doubles
(``random()``, for categorical sampling) and small bounded integers (``choice`` of a list:
Blackjack's cards, Taxi's fickle passenger). numpy draws the integers with Lemire's method on
32-bit halves of PCG64 outputs, keeping the unused half in the bit generator for the next
32-bit draw. :class:`TableStreams` reproduces both per stream, as a batch: it has the
interface the :class:`~palaestra.vector.native.NativeVectorEnv` base expects of its
generators (``seed``, ``rows``, ``generators``, ``seeds``), plus :meth:`TableStreams.doubles`
and :meth:`TableStreams.bounded`.

Small batches keep one :class:`numpy.random.Generator` per sub-environment (a call each is
cheapest there; the batched env chooses by its ``row_by_row_max_envs``); large ones keep the
128-bit states in ``uint64`` arrays and step the selected streams together with
:mod:`palaestra.vector.native.pcg64`'s arithmetic.

Example:
    >>> streams = TableStreams(2, use_arrays=True)
    >>> streams.seed(np.arange(2), [5, 6])
    >>> single = np.random.default_rng(6)
    >>> draws = streams.bounded(np.arange(2), 13)
    >>> int(draws[1]) == int(single.integers(0, 13))
    True
    >>> float(streams.doubles(np.arange(2))[1]) == single.random()
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from palaestra.utils import seeding
from palaestra.vector.native.pcg64 import (
    join_state,
    pcg64_output,
    pcg64_step,
    split_state,
)

__all__ = ["TableStreams", "TableRows", "BufferedIntegerStreams"]

_LOW_32 = np.uint64(0xFFFFFFFF)
_32 = np.uint64(32)
_11 = np.uint64(11)
_DOUBLE_UNIT = 1.0 / 9007199254740992.0


class TableRows:
    """Some sub-environments' streams, with the ``uniform`` draw of the native base class.

    Args:
        streams: the owner.
        indices: the selected sub-environments (``None``: all).
    """

    def __init__(self, streams: TableStreams, indices: np.ndarray | None):
        self.streams = streams
        self.indices = np.arange(streams.num_envs) if indices is None else np.asarray(indices)

    def __len__(self) -> int:
        return len(self.indices)

    def random(self) -> np.ndarray:
        """Draw one double in ``[0, 1)`` per selected stream."""
        return self.streams.doubles(self.indices)

    def uniform(self, low: float = 0.0, high: float = 1.0, size: Any = None) -> np.ndarray:
        """Draw one uniform double per selected stream (``size`` must be their count).

        Raises:
            ValueError: for a ``size`` other than the number of selected streams.
        """
        if size not in (None, len(self), (len(self),)):
            raise ValueError(
                f"TableRows draws one value per stream ({len(self)}), got size={size}."
            )
        return low + (high - low) * self.streams.doubles(self.indices)

    def bounded(self, n: int) -> np.ndarray:
        """Draw one integer in ``[0, n)`` per selected stream, as ``Generator.integers(0, n)``."""
        return self.streams.bounded(self.indices, n)


class TableStreams:
    """The PCG64 streams of ``num_envs`` sub-environments (doubles and bounded integers).

    Args:
        num_envs: the number of sub-environments.
        use_arrays: step states in arrays (else one Generator per sub-environment).

    Example:
        >>> streams = TableStreams(3)
        >>> streams.seed(np.arange(3), [0, 1, 2])
        >>> streams.seeds
        [0, 1, 2]
        >>> float(streams.doubles(np.array([0]))[0]) == np.random.default_rng(0).random()
        True
    """

    def __init__(self, num_envs: int, use_arrays: bool = True):
        self.num_envs = num_envs
        self.use_arrays = use_arrays
        self.seeds: list[int | None] = [None] * num_envs
        self.seeded = np.zeros(num_envs, dtype=np.bool_)
        self._objects: list[np.random.Generator | None] = [None] * num_envs
        # Generator mode: the bit generators, and the 32-bit half each holds for its next
        # 32-bit draw (kept here, and written back into the bit generator on request).
        self._bit_generators: list[Any] = [None] * num_envs
        self._halves: list[int | None] = [None] * num_envs
        # Generator mode: each stream's bound ``random`` method, for one double at a time.
        self.randoms: list[Any] = [None] * num_envs
        zeros = [np.zeros(num_envs, dtype=np.uint64) for _ in range(5)]
        self._high, self._low, self._inc_high, self._inc_low, self._half = zeros
        self._has_half = np.zeros(num_envs, dtype=np.bool_)

    def seed(self, indices: np.ndarray, seeds: Sequence[int | None]) -> None:
        """Reseed the streams at ``indices`` (``seeds`` has one entry per sub-env).

        A ``None`` seed keeps a seeded stream, or seeds it from OS entropy, as
        :meth:`palaestra.Env.reset` does.
        """
        for index in indices:
            if seeds[index] is None and self.seeded[index]:
                continue
            generator, self.seeds[index] = seeding.np_random(seeds[index])
            self.seeded[index] = True
            if not self.use_arrays:
                self._objects[index] = generator
                self._bit_generators[index] = generator.bit_generator
                self.randoms[index] = generator.random
                self._halves[index] = None
                continue
            state = generator.bit_generator.state
            halves = split_state([state["state"]])
            self._high[index], self._low[index], self._inc_high[index], self._inc_low[index] = (
                half[0] for half in halves
            )
            self._has_half[index] = False

    def rows(self, indices: np.ndarray | None = None) -> TableRows:
        """Return the streams at ``indices`` (all for ``None``)."""
        return TableRows(self, indices)

    def _next64(self, rows: np.ndarray) -> np.ndarray:
        high, low = pcg64_step(
            self._high[rows], self._low[rows], self._inc_high[rows], self._inc_low[rows]
        )
        self._high[rows], self._low[rows] = high, low
        return pcg64_output(high, low)

    def doubles(self, rows: np.ndarray) -> np.ndarray:
        """Draw one double in ``[0, 1)`` from each stream in ``rows``, as ``random()`` does."""
        if not self.use_arrays:
            objects = self._objects
            return np.array([objects[row].random() for row in rows], dtype=np.float64)  # type: ignore[union-attr]
        return (self._next64(rows) >> _11) * _DOUBLE_UNIT

    def _uint32(self, rows: np.ndarray) -> np.ndarray:
        """Numpy's ``next_uint32``: a stored upper half, else the lower half of a new output."""
        values = np.empty(len(rows), dtype=np.uint64)
        stored = self._has_half[rows]
        if stored.any():
            held = rows[stored]
            values[stored] = self._half[held]
            self._has_half[held] = False
        if not stored.all():
            fresh_rows = rows[~stored]
            output = self._next64(fresh_rows)
            values[~stored] = output & _LOW_32
            self._half[fresh_rows] = output >> _32
            self._has_half[fresh_rows] = True
        return values

    def bounded_one(self, row: int, n: int) -> int:
        """Draw an integer in ``[0, n)`` from stream ``row`` (Generator mode), as ``integers``.

        numpy's Lemire method on 32-bit draws, where a 32-bit draw is the held upper half of
        the last 64-bit output or, when none is held, the lower half of a new one.
        """
        threshold = (2**32 - n) % n
        while True:
            half = self._halves[row]
            if half is None:
                raw = self._bit_generators[row].random_raw()
                self._halves[row] = raw >> 32
                value = raw & 0xFFFFFFFF
            else:
                self._halves[row] = None
                value = half
            product = value * n
            if product & 0xFFFFFFFF >= threshold:
                return product >> 32

    def bounded(self, rows: np.ndarray, n: int) -> np.ndarray:
        """Draw an integer in ``[0, n)`` from each stream in ``rows``, as ``integers(0, n)``.

        Lemire's multiply-and-shift on 32-bit draws, redrawing the (rare) biased ones.
        """
        if not self.use_arrays:
            return np.array([self.bounded_one(row, n) for row in rows], dtype=np.int64)
        rows = np.asarray(rows)
        span = np.uint64(n)
        product = self._uint32(rows) * span
        threshold = np.uint64((2**32 - n) % n)
        redraw = (product & _LOW_32) < threshold
        while redraw.any():
            again = np.flatnonzero(redraw)
            product[again] = self._uint32(rows[again]) * span
            redraw[again] = (product[again] & _LOW_32) < threshold
        return (product >> _32).astype(np.int64)

    @property
    def generators(self) -> tuple[np.random.Generator | None, ...]:
        """The streams as :class:`numpy.random.Generator` objects (snapshots for arrays)."""
        if not self.use_arrays:
            for bit_generator, half in zip(self._bit_generators, self._halves, strict=True):
                if bit_generator is not None:
                    state = bit_generator.state
                    state["has_uint32"], state["uinteger"] = int(half is not None), half or 0
                    bit_generator.state = state
            return tuple(self._objects)
        states = join_state(self._high, self._low)
        increments = join_state(self._inc_high, self._inc_low)
        snapshots: list[np.random.Generator | None] = []
        for index in range(self.num_envs):
            if not self.seeded[index]:
                snapshots.append(None)
                continue
            bit_generator = np.random.PCG64()
            bit_generator.state = {
                "bit_generator": "PCG64",
                "state": {"state": states[index], "inc": increments[index]},
                "has_uint32": int(self._has_half[index]),
                "uinteger": int(self._half[index]),
            }
            snapshots.append(np.random.Generator(bit_generator))
        return tuple(snapshots)


class BufferedIntegerStreams(TableStreams):
    """Array streams that only draw bounded integers, from 32-bit values made ahead in bulk.

    For an env whose steps draw nothing but small bounded integers (Blackjack's cards),
    each stream keeps a queue of its next 32-bit values (both halves of its next PCG64
    outputs, in the order numpy's ``next_uint32`` hands them out). When a draw finds a queue
    empty, every queue running low is topped up with ``ahead`` more outputs, made by that
    stream's own bit generator in C (``random_raw``); a draw is then a gather. The draws equal
    ``Generator.integers(0, n)``'s on each sub-env's own generator.

    Args:
        num_envs: the number of sub-environments.
        ahead: the 64-bit outputs added to a queue per top-up (``None``: as many as keep
            the queues within about 16 MiB, from 16 to 1024 per stream).

    Example:
        >>> streams = BufferedIntegerStreams(3)
        >>> streams.seed(np.arange(3), [4, 5, 6])
        >>> single = np.random.default_rng(5)
        >>> [int(streams.bounded(np.arange(3), 13)[1]) for _ in range(40)] == [
        ...     int(single.integers(0, 13)) for _ in range(40)]
        True
    """

    def __init__(self, num_envs: int, ahead: int | None = None):
        super().__init__(num_envs, use_arrays=True)
        # A top-up costs a Python call per stream: long queues make it rare (measured with
        # benchmarks/toy_text_speed.py), within a memory budget for large batches.
        self.ahead = ahead if ahead is not None else max(16, min(1024, (1 << 20) // num_envs))
        # Ring queues of at least 4 * ahead values (a power of two): values [next, length),
        # counted from each stream's first draw and taken modulo the ring size, are pending.
        size = 1 << (4 * self.ahead - 1).bit_length()
        self._size = size
        self._mask = size - 1
        self._values = np.zeros((num_envs, size), dtype=np.uint32)
        self._flat = self._values.ravel()
        self._next = np.zeros(num_envs, dtype=np.int64)
        self._length = np.zeros(num_envs, dtype=np.int64)

    def seed(self, indices: np.ndarray, seeds: Sequence[int | None]) -> None:
        """Reseed the streams at ``indices``; their queues are emptied.

        A ``None`` seed keeps a seeded stream, or seeds it from OS entropy.
        """
        for index in indices:
            if seeds[index] is None and self.seeded[index]:
                continue
            generator, self.seeds[index] = seeding.np_random(seeds[index])
            self.seeded[index] = True
            self._bit_generators[index] = generator.bit_generator
            self._next[index] = self._length[index] = 0

    def _top_up(self) -> None:
        """Append ``ahead`` outputs to every queue holding fewer than ``2 * ahead`` values."""
        count = 2 * self.ahead
        rows = np.flatnonzero(self._length - self._next < count)
        starts = (self._length[rows] & self._mask).tolist()
        values, size, ahead = self._values, self._size, self.ahead
        for row, start in zip(rows.tolist(), starts, strict=True):
            # Little-endian halves: each output's lower 32 bits first, as next_uint32 takes.
            fresh = self._bit_generators[row].random_raw(ahead).astype("<u8").view("<u4")
            stop = start + count
            if stop <= size:
                values[row, start:stop] = fresh
            else:
                values[row, start:] = fresh[: size - start]
                values[row, : stop - size] = fresh[size - start :]
        self._length[rows] += count

    def _take32(self, rows: np.ndarray) -> np.ndarray:
        positions = self._next[rows]
        if (positions >= self._length[rows]).any():
            self._top_up()
        self._next[rows] = positions + 1
        # One flat take: cheaper than indexing with a pair of index arrays.
        return self._flat.take(rows * self._size + (positions & self._mask)).astype(np.uint64)

    def bounded(self, rows: np.ndarray, n: int) -> np.ndarray:
        """Draw an integer in ``[0, n)`` from each stream in ``rows``, as ``integers(0, n)``."""
        rows = np.asarray(rows)
        span = np.uint64(n)
        product = self._take32(rows) * span
        threshold = np.uint64((2**32 - n) % n)
        redraw = (product & _LOW_32) < threshold
        while redraw.any():
            again = np.flatnonzero(redraw)
            product[again] = self._take32(rows[again]) * span
            redraw[again] = (product[again] & _LOW_32) < threshold
        return (product >> _32).astype(np.int64)

    def bounded_sequence(self, rows: np.ndarray, spans: Sequence[int]) -> np.ndarray:
        """Draw ``len(spans)`` integers per stream, column ``j`` in ``[0, spans[j])``, in order.

        The same draws as one :meth:`bounded` call per span, taken in one gather; a row
        with a (rare) rejected draw is redrawn that way.
        """
        rows = np.asarray(rows)
        count = len(spans)
        if (self._length[rows] - self._next[rows] < count).any():
            self._top_up()
        positions = (self._next[rows][:, None] + np.arange(count)) & self._mask
        positions += (rows * self._size)[:, None]
        spans_array = np.asarray(spans, dtype=np.uint64)
        products = self._flat.take(positions).astype(np.uint64) * spans_array
        thresholds = np.array([(2**32 - n) % n for n in spans], dtype=np.uint64)
        rejected = ((products & _LOW_32) < thresholds).any(axis=1)
        self._next[rows] += count
        draws = (products >> _32).astype(np.int64)
        if rejected.any():
            again = rows[rejected]
            self._next[again] -= count
            draws[rejected] = np.stack([self.bounded(again, n) for n in spans], axis=1)
        return draws

    def doubles(self, rows: np.ndarray) -> np.ndarray:
        """Not offered: these streams serve envs that draw only bounded integers.

        Raises:
            NotImplementedError: always.
        """
        raise NotImplementedError("BufferedIntegerStreams draws bounded integers only.")

    @property
    def generators(self) -> tuple[np.random.Generator | None, ...]:
        """Each stream as a Generator positioned at its next draw (a snapshot).

        A copy of the stream's bit generator, stepped back over the outputs not yet handed
        out (``advance`` by their count modulo 2**128); an odd number pending means a held
        upper half.
        """
        snapshots: list[np.random.Generator | None] = []
        for index in range(self.num_envs):
            if not self.seeded[index]:
                snapshots.append(None)
                continue
            pending = int(self._length[index] - self._next[index])
            bit_generator = np.random.PCG64()
            bit_generator.state = self._bit_generators[index].state
            bit_generator.advance((-(pending // 2)) % 2**128)
            held = pending % 2
            state = bit_generator.state
            state["has_uint32"] = held
            state["uinteger"] = (
                int(self._values[index, self._next[index] & self._mask]) if held else 0
            )
            bit_generator.state = state
            snapshots.append(np.random.Generator(bit_generator))
        return tuple(snapshots)


def _halves(numbers: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """128-bit integers as two ``uint64`` arrays, high halves and low halves."""
    high, low, _, _ = split_state([{"state": number, "inc": 0} for number in numbers])
    return high, low
