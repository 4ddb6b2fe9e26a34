"""The :class:`Discrete` space: one integer out of ``n`` consecutive values."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from palaestra.spaces._checks import (
    check_array,
    check_binary_mask,
    check_probability_values,
    reject_mask_and_probability,
)
from palaestra.spaces.space import MaskNDArray, Space


class Discrete(Space[np.integer]):
    """The integers ``start, start + 1, ..., start + n - 1``.

    Args:
        n: how many values the space holds (positive).
        seed: seed or generator for sampling.
        start: the smallest value.
        dtype: an integer dtype for the elements.

    Raises:
        TypeError: if ``n`` or ``start`` is not an integer, or ``dtype`` is not an integer dtype.
        ValueError: if ``n`` is not positive.

    Example:
        >>> Discrete(3, start=-1)
        Discrete(3, start=-1)
        >>> Discrete(2, seed=42).sample()
        np.int64(0)
    """

    _range_cache: tuple[Any, Any, Any, int, int] | None = None

    def __init__(
        self,
        n: int | np.integer,
        seed: int | np.random.Generator | None = None,
        start: int | np.integer = 0,
        dtype: npt.DTypeLike = np.int64,
    ) -> None:
        if not np.issubdtype(type(n), np.integer):
            raise TypeError(f"Expects `n` to be an integer, actual dtype: {type(n)}")
        if n <= 0:
            raise ValueError(f"n (counts) have to be positive, actual value: {n}")
        if not np.issubdtype(type(start), np.integer):
            raise TypeError(f"Expects `start` to be an integer, actual type: {type(start)}")
        if dtype is None:
            raise TypeError(f"Invalid Discrete dtype, cannot be {dtype}.")
        self.dtype = np.dtype(dtype)
        if not np.issubdtype(self.dtype, np.integer):
            raise TypeError(f"Invalid Discrete dtype ({self.dtype}), must be an integer dtype")
        self.n = self.dtype.type(n)
        self.start = self.dtype.type(start)
        super().__init__((), self.dtype, seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Always ``True``: a Discrete flattens to a one-hot vector."""
        return True

    def sample(
        self, mask: MaskNDArray | None = None, probability: npt.NDArray[np.float64] | None = None
    ) -> np.integer:
        """Draw a value uniformly, among the mask's allowed values, or with given probabilities.

        Args:
            mask: ``np.int8`` array of shape ``(n,)``; 1 allows a value, 0 forbids it. With no
                value allowed, ``start`` is returned.
            probability: ``np.float64`` array of shape ``(n,)`` summing to one.

        Raises:
            ValueError: if both ``mask`` and ``probability`` are given.
            AssertionError: if either has the wrong type, dtype, shape or values.

        Example:
            >>> space = Discrete(4, seed=0)
            >>> space.sample(mask=np.array([0, 0, 1, 0], dtype=np.int8))
            np.int64(2)
        """
        reject_mask_and_probability(mask, probability)
        if mask is not None:
            check_array(mask, "mask", np.int8, (int(self.n),))
            allowed = check_binary_mask(mask)
            if not np.any(allowed):
                return self.start
            return self.start + self.dtype.type(self.np_random.choice(np.flatnonzero(allowed)))
        if probability is not None:
            check_array(probability, "probability", np.float64, (int(self.n),))
            check_probability_values(probability)
            values = np.arange(self.n, dtype=self.dtype)
            return self.start + self.np_random.choice(values, p=probability)
        return self.start + self.np_random.integers(self.n, dtype=self.dtype.type)

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` is an integer scalar within the range.

        Example:
            >>> 2 in Discrete(3), 3 in Discrete(3), 1.0 in Discrete(3)
            (True, False, False)
        """
        kind = type(x)
        if kind is int or kind is self.dtype.type:
            # The common case, a plain int or a scalar of the space's own dtype, is one
            # range check: such values always fit, or are checked against, the dtype.
            low, high = self._accepted_range()
            return low <= int(x) < high
        if isinstance(x, int):
            info = np.iinfo(self.dtype)
            if not info.min <= x <= info.max:
                return False
            x = self.dtype.type(x)
        elif not (
            isinstance(x, (np.generic, np.ndarray))
            and np.issubdtype(x.dtype, np.integer)
            and x.shape == ()
        ):
            return False
        in_range = int(self.start) <= int(x) < int(self.start) + int(self.n)
        return bool(in_range and np.can_cast(x.dtype, self.dtype))

    def _accepted_range(self) -> tuple[int, int]:
        """Python-int bounds ``[low, high)`` of the values in the space that fit its dtype.

        Cached, and recomputed whenever ``n``, ``start`` or ``dtype`` is replaced.
        """
        cache = self._range_cache
        if (
            cache is None
            or cache[0] is not self.n
            or cache[1] is not self.start
            or cache[2] is not self.dtype
        ):
            low = int(self.start)
            high = min(low + int(self.n), int(np.iinfo(self.dtype).max) + 1)
            cache = self._range_cache = (self.n, self.start, self.dtype, low, high)
        return cache[3], cache[4]

    def __repr__(self) -> str:
        parts = [str(self.n)]
        if self.start != 0:
            parts.append(f"start={self.start}")
        if self.dtype != np.int64:
            parts.append(f"dtype={self.dtype}")
        return f"Discrete({', '.join(parts)})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Discrete)
            and self.n == other.n
            and self.start == other.start
            and self.dtype == other.dtype
        )

    def __setstate__(self, state: Iterable[tuple[str, Any]] | Mapping[str, Any]) -> None:
        state = dict(state)
        # Pickles from before ``start`` existed.
        state.setdefault("start", np.int64(0))
        super().__setstate__(state)

    def to_jsonable(self, sample_n: Iterable[int | np.integer]) -> list[int]:
        """Convert a batch of samples to python ints.

        Example:
            >>> Discrete(3).to_jsonable([np.int64(2)])
            [2]
        """
        return [int(x) for x in sample_n]

    def from_jsonable(self, sample_n: list[int]) -> list[np.integer]:
        """Convert python ints back to the space's integer type.

        Example:
            >>> Discrete(3).from_jsonable([2])
            [np.int64(2)]
        """
        return [self.dtype.type(x) for x in sample_n]
