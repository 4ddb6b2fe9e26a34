"""The :class:`MultiDiscrete` space: an array of independent discrete choices."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from palaestra import logger
from palaestra.spaces._checks import (
    as_array_or_none,
    check_binary_mask,
    check_probability_values,
    reject_mask_and_probability,
    require,
)
from palaestra.spaces.discrete import Discrete
from palaestra.spaces.space import Space


class MultiDiscrete(Space[npt.NDArray[np.integer]]):
    """Arrays whose entry ``i`` is an integer in ``[start[i], start[i] + nvec[i])``.

    Args:
        nvec: the number of values of each entry (any shape, all positive).
        dtype: an integer dtype.
        seed: seed or generator for sampling.
        start: the smallest value of each entry (zeros by default), shaped like ``nvec``.

    Raises:
        ValueError: for a non-integer dtype, a ``start`` shaped unlike ``nvec``, or a
            non-positive count.

    Example:
        >>> MultiDiscrete([5, 2, 2])
        MultiDiscrete([5 2 2])
        >>> MultiDiscrete([3, 3], start=[-1, 0])
        MultiDiscrete([3 3], start=[-1  0])
    """

    def __init__(
        self,
        nvec: npt.ArrayLike,
        dtype: npt.DTypeLike = np.int64,
        seed: int | np.random.Generator | None = None,
        start: npt.ArrayLike | None = None,
    ) -> None:
        if dtype is None:
            raise ValueError("MultiDiscrete dtype must be explicitly provided, cannot be None.")
        self.dtype = np.dtype(dtype)
        if not np.issubdtype(self.dtype, np.integer):
            raise ValueError(
                f"Invalid MultiDiscrete dtype ({self.dtype}), must be an integer dtype"
            )
        self.nvec = np.array(nvec, dtype=self.dtype, copy=True)
        if start is None:
            self.start = np.zeros(self.nvec.shape, dtype=self.dtype)
        else:
            self.start = np.array(start, dtype=self.dtype, copy=True)
        if self.start.shape != self.nvec.shape:
            raise ValueError(
                "start and nvec (counts) should have the same shape, "
                f"got {self.start.shape} and {self.nvec.shape}"
            )
        if not (self.nvec > 0).all():
            raise ValueError(f"nvec (counts) have to be positive, actual value: {self.nvec}")
        super().__init__(self.nvec.shape, self.dtype, seed)

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of ``nvec``."""
        return self._shape

    @property
    def is_np_flattenable(self) -> bool:
        """Always ``True``: entries flatten to concatenated one-hot vectors."""
        return True

    def sample(
        self, mask: tuple[Any, ...] | None = None, probability: tuple[Any, ...] | None = None
    ) -> npt.NDArray[np.integer]:
        """Draw every entry independently, optionally masked or weighted per entry.

        Args:
            mask: a (nested, following ``nvec``'s shape) tuple of ``np.int8`` arrays, one per
                entry, of length ``nvec[i]``; an all-zero mask yields ``start[i]``.
            probability: the same structure with ``np.float64`` arrays summing to one.

        Raises:
            ValueError: if both are given.
            AssertionError: for a malformed mask or probability.

        Example:
            >>> space = MultiDiscrete([2, 3], seed=0)
            >>> mask = (np.array([0, 1], dtype=np.int8), np.array([0, 0, 1], dtype=np.int8))
            >>> space.sample(mask=mask)
            array([1, 2])
        """
        reject_mask_and_probability(mask, probability)
        if mask is not None:
            values = self._sample_nested(mask, self.nvec, self.start, self._masked_choice)
            return np.array(values, dtype=self.dtype)
        if probability is not None:
            values = self._sample_nested(probability, self.nvec, self.start, self._weighted_choice)
            return np.array(values, dtype=self.dtype)
        return (self.np_random.random(self.nvec.shape) * self.nvec).astype(self.dtype) + self.start

    def _sample_nested(self, sub_mask: Any, sub_nvec: Any, sub_start: Any, choose: Any) -> Any:
        if isinstance(sub_nvec, np.ndarray):
            require(
                isinstance(sub_mask, tuple),
                f"Expects the mask to be a tuple for sub_nvec ({sub_nvec}), "
                f"actual type: {type(sub_mask)}",
            )
            require(
                len(sub_mask) == len(sub_nvec),
                "Expects the mask length to be equal to the number of actions, "
                f"mask length: {len(sub_mask)}, nvec length: {len(sub_nvec)}",
            )
            return [
                self._sample_nested(*parts, choose) for parts in zip(sub_mask, sub_nvec, sub_start)
            ]
        require(
            isinstance(sub_mask, np.ndarray),
            f"Expects the sub mask to be np.ndarray, actual type: {type(sub_mask)}",
        )
        require(
            len(sub_mask) == sub_nvec,
            "Expects the mask length to be equal to the number of actions, "
            f"mask length: {len(sub_mask)}, action: {sub_nvec}",
        )
        return choose(sub_mask) + sub_start

    def _masked_choice(self, mask: np.ndarray) -> Any:
        require(
            mask.dtype == np.int8,
            f"Expects the mask dtype to be np.int8, actual dtype: {mask.dtype}",
        )
        allowed = check_binary_mask(mask, "Expects all masks values to 0 or 1")
        if not np.any(allowed):
            return 0
        return self.np_random.choice(np.flatnonzero(allowed))

    def _weighted_choice(self, probability: np.ndarray) -> Any:
        require(
            probability.dtype == np.float64,
            f"Expects the mask dtype to be np.float64, actual dtype: {probability.dtype}",
        )
        check_probability_values(
            probability,
            messages=(
                "Expects all masks values to be between 0 and 1",
                "Expects the sum of all mask values to be 1",
            ),
        )
        possible = probability > 0
        weights = probability / np.sum(probability)
        return self.np_random.choice(np.flatnonzero(possible), p=weights[possible])

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` is an integer array of the right shape within range.

        Example:
            >>> [0, 2] in MultiDiscrete([2, 3]), [2, 0] in MultiDiscrete([2, 3])
            (True, False)
        """
        if isinstance(x, Sequence):
            x = as_array_or_none(x)
        return bool(
            isinstance(x, np.ndarray)
            and x.shape == self.shape
            and np.can_cast(x.dtype, self.dtype)
            and np.all(self.start <= x)
            and np.all(x <= self.start + (self.nvec - 1))
        )

    def to_jsonable(self, sample_n: Iterable[np.ndarray]) -> list[Sequence[int]]:
        """Convert a batch of samples to nested lists.

        Example:
            >>> MultiDiscrete([2, 3]).to_jsonable([np.array([1, 2])])
            [[1, 2]]
        """
        return [sample.tolist() for sample in sample_n]

    def from_jsonable(self, sample_n: list[Sequence[int]]) -> list[np.ndarray]:
        """Convert nested lists back to arrays.

        Example:
            >>> MultiDiscrete([2, 3]).from_jsonable([[1, 2]])
            [array([1, 2])]
        """
        return [np.array(sample, dtype=self.dtype) for sample in sample_n]

    def __repr__(self) -> str:
        if np.any(self.start != 0):
            return f"MultiDiscrete({self.nvec}, start={self.start})"
        return f"MultiDiscrete({self.nvec})"

    def __getitem__(self, index: Any) -> Discrete | MultiDiscrete:
        """Return the subspace at ``index``, sharing the current generator state.

        Example:
            >>> MultiDiscrete([[2, 3], [4, 5]])[1]
            MultiDiscrete([4 5])
        """
        nvec, start = self.nvec[index], self.start[index]
        if nvec.ndim == 0:
            subspace: Discrete | MultiDiscrete = Discrete(nvec, start=start, dtype=self.dtype)
        else:
            subspace = MultiDiscrete(nvec, start=start, dtype=self.dtype)
        subspace.np_random.bit_generator.state = self.np_random.bit_generator.state
        return subspace

    def __len__(self) -> int:
        if self.nvec.ndim >= 2:
            logger.warn("Getting the length of a multi-dimensional MultiDiscrete space.")
        return len(self.nvec)

    def __eq__(self, other: object) -> bool:
        return bool(
            isinstance(other, MultiDiscrete)
            and self.dtype == other.dtype
            and self.shape == other.shape
            and np.all(self.nvec == other.nvec)
            and np.all(self.start == other.start)
        )

    def __setstate__(self, state: Iterable[tuple[str, Any]] | Mapping[str, Any]) -> None:
        state = dict(state)
        if "start" not in state:
            # Pickles from before ``start`` existed.
            state["start"] = np.zeros(state["_shape"], dtype=state["dtype"])
        super().__setstate__(state)
