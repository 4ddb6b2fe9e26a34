"""The :class:`Sequence` space: variable-length sequences of elements of one feature space."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from palaestra.spaces._checks import reject_mask_and_probability, require
from palaestra.spaces._vector_utils import vector_utils
from palaestra.spaces.space import Space

# What unpacking a value that is not a batch of the feature space can raise.
_NOT_A_BATCH = (TypeError, ValueError, KeyError, IndexError, AttributeError)


class Sequence(Space[Any]):
    """Finite sequences of elements of ``space``; lengths are geometric with p = 0.25.

    Args:
        space: the feature space of every element.
        seed: seed or generator for sampling.
        stack: return samples stacked into one batched element (as
            :func:`palaestra.vector.utils.concatenate` builds them) instead of a tuple.

    Raises:
        TypeError: if ``space`` is not a Space.

    Example:
        >>> from palaestra.spaces import Discrete
        >>> Sequence(Discrete(2))
        Sequence(Discrete(2), stack=False)
        >>> (0, 1, 1) in Sequence(Discrete(2))
        True
    """

    def __init__(
        self,
        space: Space[Any],
        seed: int | np.random.Generator | None = None,
        stack: bool = False,
    ) -> None:
        if not isinstance(space, Space):
            raise TypeError(
                "Expects the feature space to be instance of a gym Space, "
                f"actual type: {type(space)}"
            )
        self.feature_space = space
        self.stack = stack
        if self.stack:
            self.stacked_feature_space = vector_utils().batch_space(self.feature_space, 1)
        super().__init__(None, None, seed)

    def seed(self, seed: int | tuple[int, int] | None = None) -> tuple[Any, Any]:
        """Seed the length generator and the feature space.

        Args:
            seed: ``None`` for fresh entropy; an ``int`` from which the feature space's seed is
                drawn; or a pair ``(length seed, feature seed)``.

        Returns:
            ``(length seed, feature space seed)``.

        Raises:
            ValueError: for a seed sequence not of length two.
            TypeError: for any other seed type.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> Sequence(Discrete(2)).seed((3, 4))
            (3, 4)
        """
        if seed is None:
            return super().seed(None), self.feature_space.seed(None)
        if isinstance(seed, int):
            own_seed = super().seed(seed)
            feature_seed = int(self.np_random.integers(np.iinfo(np.int32).max))
            # Restart the length stream after drawing the feature seed from it.
            super().seed(seed)
            return own_seed, self.feature_space.seed(feature_seed)
        if isinstance(seed, (tuple, list)):
            if len(seed) != 2:
                raise ValueError(
                    "Expects the seed to have two elements for the Sequence and feature space, "
                    f"actual length: {len(seed)}"
                )
            return super().seed(seed[0]), self.feature_space.seed(seed[1])
        raise TypeError(f"Expected None, int, tuple of ints, actual type: {type(seed)}")

    @property
    def is_np_flattenable(self) -> bool:
        """Always ``False``: sequences have no fixed size."""
        return False

    def sample(
        self, mask: tuple[Any, Any] | None = None, probability: tuple[Any, Any] | None = None
    ) -> Any:
        """Draw a length, then that many feature elements.

        Args:
            mask: ``(length_mask, feature_mask)``. ``length_mask`` is ``None`` (geometric
                length), a non-negative int (that length) or a 1-D integer array of allowed
                lengths (one chosen uniformly); ``feature_mask`` goes to every feature sample.
            probability: ``(length_mask, feature_probability)`` likewise.

        Raises:
            ValueError: if both are given.
            AssertionError: for a malformed length mask.
            TypeError: for a length mask that is neither an int nor an array.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> Sequence(Discrete(2), seed=0).sample(mask=(3, np.array([0, 1], dtype=np.int8)))
            (np.int64(1), np.int64(1), np.int64(1))
        """
        reject_mask_and_probability(mask, probability)
        if mask is not None:
            length = self.generate_sample_length(mask[0], "mask")
            values = tuple(self.feature_space.sample(mask=mask[1]) for _ in range(length))
        elif probability is not None:
            length = self.generate_sample_length(probability[0], "probability")
            values = tuple(
                self.feature_space.sample(probability=probability[1]) for _ in range(length)
            )
        else:
            length = self.np_random.geometric(0.25)
            values = tuple(self.feature_space.sample() for _ in range(length))
        if not self.stack:
            return values
        utils = vector_utils()
        out = utils.create_empty_array(self.feature_space, len(values))
        if not values:
            # Nothing to stack (a length mask of 0): the empty batch is the sample.
            return out
        return utils.concatenate(self.feature_space, values, out)

    def generate_sample_length(self, length_mask: Any, mask_type: str | None) -> Any:
        """Return the length of the next sample, following ``length_mask`` (see :meth:`sample`).

        Raises:
            AssertionError: for negative lengths, or an array that is not 1-D of integers.
            TypeError: for a length mask that is neither an int nor an array.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> Sequence(Discrete(2)).generate_sample_length(4, "mask")
            4
        """
        if length_mask is None:
            return self.np_random.geometric(0.25)
        if np.issubdtype(type(length_mask), np.integer):
            require(
                length_mask >= 0,
                f"Expects the length mask of `{mask_type}` to be greater than or equal to zero, "
                f"actual value: {length_mask}",
            )
            return length_mask
        if isinstance(length_mask, np.ndarray):
            require(
                length_mask.ndim == 1,
                f"Expects the shape of the length mask of `{mask_type}` to be 1-dimensional, "
                f"actual shape: {length_mask.shape}",
            )
            require(
                np.all(length_mask >= 0),
                f"Expects all values in the length_mask of `{mask_type}` to be greater than or "
                f"equal to zero, actual values: {length_mask}",
            )
            require(
                np.issubdtype(length_mask.dtype, np.integer),
                f"Expects the length mask array of `{mask_type}` to have dtype of np.integer, "
                f"actual type: {length_mask.dtype}",
            )
            return self.np_random.choice(length_mask)
        raise TypeError(
            f"Expects the type of length_mask of `{mask_type}` to be an integer or a np.ndarray, "
            f"actual type: {type(length_mask)}"
        )

    def contains(self, x: Any) -> bool:
        """Return whether every element of ``x`` belongs to the feature space.

        Unstacked sequences must be tuples.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> (0, 2) in Sequence(Discrete(2)), [0] in Sequence(Discrete(2))
            (False, False)
        """
        if self.stack:
            try:
                items = list(vector_utils().iterate(self.stacked_feature_space, x))
            except _NOT_A_BATCH:
                return False
            return all(item in self.feature_space for item in items)
        return isinstance(x, tuple) and all(self.feature_space.contains(item) for item in x)

    def __repr__(self) -> str:
        return f"Sequence({self.feature_space}, stack={self.stack})"

    def to_jsonable(self, sample_n: Iterable[Any]) -> list[list[Any]]:
        """Convert a batch of sequences to one JSON list per sequence.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> Sequence(Discrete(3)).to_jsonable([(np.int64(1), np.int64(2))])
            [[1, 2]]
        """
        if self.stack:
            return self.stacked_feature_space.to_jsonable(sample_n)
        return [self.feature_space.to_jsonable(sample) for sample in sample_n]

    def from_jsonable(self, sample_n: list[list[Any]]) -> list[Any]:
        """Convert JSON lists back to sequences.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> Sequence(Discrete(3)).from_jsonable([[1, 2]])
            [(np.int64(1), np.int64(2))]
        """
        if self.stack:
            return self.stacked_feature_space.from_jsonable(sample_n)
        return [tuple(self.feature_space.from_jsonable(sample)) for sample in sample_n]

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Sequence)
            and self.feature_space == other.feature_space
            and self.stack == other.stack
        )
