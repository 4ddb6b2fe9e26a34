"""The :class:`MultiBinary` space: arrays of independent bits."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from palaestra.spaces._checks import (
    as_array_or_none,
    check_array,
    check_probability_values,
    reject_mask_and_probability,
    require,
)
from palaestra.spaces.space import Space


class MultiBinary(Space[npt.NDArray[np.int8]]):
    """``np.int8`` arrays of zeros and ones with a fixed shape.

    Args:
        n: the number of bits, or a sequence giving the array shape.
        seed: seed or generator for sampling.

    Raises:
        ValueError: if ``n`` is not an int or sequence of ints, or has non-positive entries.

    Example:
        >>> MultiBinary(3)
        MultiBinary(3)
        >>> MultiBinary([2, 2]).shape
        (2, 2)
    """

    def __init__(
        self,
        n: npt.NDArray[np.integer] | Sequence[int] | int,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        if isinstance(n, int):
            self.n: int | tuple[int, ...] = int(n)
            shape: tuple[int, ...] = (self.n,)
        elif isinstance(n, (Sequence, np.ndarray)):
            self.n = shape = tuple(int(i) for i in n)
        else:
            raise ValueError(
                f"Expected n to be an int or a sequence of ints, actual type: {type(n)}"
            )
        if not (np.asarray(shape) > 0).all():
            raise ValueError(f"n (counts) have to be positive, got {n}")
        super().__init__(shape, np.int8, seed)

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of every element."""
        return self._shape

    @property
    def is_np_flattenable(self) -> bool:
        """Always ``True``."""
        return True

    def sample(
        self,
        mask: npt.NDArray[np.int8] | None = None,
        probability: npt.NDArray[np.float64] | None = None,
    ) -> npt.NDArray[np.int8]:
        """Draw each bit uniformly, or fix bits by a mask, or draw each with its probability.

        Args:
            mask: ``np.int8`` array of the space's shape: 0 or 1 fixes the bit, 2 draws it.
            probability: ``np.float64`` array of the space's shape: the chance of each bit
                being 1.

        Raises:
            ValueError: if both are given.
            AssertionError: for a malformed mask or probability.

        Example:
            >>> MultiBinary(3, seed=0).sample(mask=np.array([1, 0, 1], dtype=np.int8))
            array([1, 0, 1], dtype=int8)
        """
        reject_mask_and_probability(mask, probability)
        if mask is not None:
            check_array(mask, "mask", np.int8, self.shape, label="mask")
            require(
                np.all((mask == 0) | (mask == 1) | (mask == 2)),
                f"All values of a mask should be 0, 1 or 2, actual values: {mask}",
            )
            drawn = self.np_random.integers(low=0, high=2, size=self.n, dtype=self.dtype)
            return np.where(mask == 2, drawn, mask.astype(self.dtype))
        if probability is not None:
            check_array(
                probability,
                "probability",
                np.float64,
                self.shape,
                label="probability",
                show_value_as_shape=True,
            )
            check_probability_values(probability, must_sum_to_one=False)
            return (self.np_random.random(size=self.shape) <= probability).astype(self.dtype)
        return self.np_random.integers(low=0, high=2, size=self.n, dtype=self.dtype)

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` has the right shape and only zeros and ones.

        Example:
            >>> [0, 1] in MultiBinary(2), [0, 2] in MultiBinary(2)
            (True, False)
        """
        if isinstance(x, Sequence):
            x = as_array_or_none(x)
        return bool(
            isinstance(x, np.ndarray) and self.shape == x.shape and np.all((x == 0) | (x == 1))
        )

    def to_jsonable(self, sample_n: Iterable[np.ndarray]) -> list[Sequence[int]]:
        """Convert a batch of samples to nested lists.

        Example:
            >>> MultiBinary(2).to_jsonable([np.array([0, 1], dtype=np.int8)])
            [[0, 1]]
        """
        return np.array(list(sample_n)).tolist()

    def from_jsonable(self, sample_n: list[Sequence[int]]) -> list[np.ndarray]:
        """Convert nested lists back to ``np.int8`` arrays.

        Example:
            >>> MultiBinary(2).from_jsonable([[0, 1]])
            [array([0, 1], dtype=int8)]
        """
        return [np.asarray(sample, self.dtype) for sample in sample_n]

    def __repr__(self) -> str:
        return f"MultiBinary({self.n})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MultiBinary) and self.n == other.n
