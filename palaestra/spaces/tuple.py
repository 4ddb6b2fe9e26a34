"""The :class:`Tuple` space: a fixed-length tuple of elements from other spaces."""

from __future__ import annotations

import typing
from collections.abc import Iterable
from typing import Any

import numpy as np

from palaestra.spaces._checks import reject_mask_and_probability
from palaestra.spaces._composite import check_tuple_argument, draw_subseeds
from palaestra.spaces.space import Space
from palaestra.utils.library_name import library_name


class Tuple(Space[tuple], typing.Sequence[Any]):
    """The cartesian product of several spaces; elements are tuples.

    Args:
        spaces: the subspaces, in order.
        seed: seed or generator for sampling.

    Raises:
        TypeError: if any entry is not a :class:`Space`.

    Example:
        >>> from palaestra.spaces import Box, Discrete
        >>> Tuple((Discrete(2), Box(-1.0, 1.0, (2,))))
        Tuple(Discrete(2), Box(-1.0, 1.0, (2,), float32))
    """

    def __init__(
        self, spaces: Iterable[Space[Any]], seed: int | np.random.Generator | None = None
    ) -> None:
        self.spaces = tuple(spaces)
        for space in self.spaces:
            if not isinstance(space, Space):
                raise TypeError(
                    f"{space} does not inherit from `{library_name()}.Space`. "
                    f"Actual Type: {type(space)}"
                )
        super().__init__(None, None, seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Whether every subspace is flattenable."""
        return all(space.is_np_flattenable for space in self.spaces)

    def seed(self, seed: int | typing.Sequence[int] | None = None) -> tuple:
        """Seed every subspace.

        Args:
            seed: ``None`` seeds each subspace from fresh entropy; an ``int`` seeds this
                space, which then draws one seed per subspace; a list or tuple gives each
                subspace its own seed.

        Returns:
            The tuple of seeds the subspaces used.

        Raises:
            ValueError: if a seed sequence's length differs from the number of subspaces.
            TypeError: for any other seed type.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> Tuple((Discrete(2), Discrete(3))).seed([1, 2])
            (1, 2)
        """
        if seed is None:
            return tuple(space.seed(None) for space in self.spaces)
        if isinstance(seed, int):
            super().seed(seed)
            subseeds = draw_subseeds(self.np_random, len(self.spaces))
            return tuple(space.seed(sub) for space, sub in zip(self.spaces, subseeds))
        if isinstance(seed, (tuple, list)):
            if len(seed) != len(self.spaces):
                raise ValueError(
                    "Expects that the subspaces of seeds equals the number of subspaces. "
                    f"Actual length of seeds: {len(seed)}, length of subspaces: {len(self.spaces)}"
                )
            return tuple(space.seed(sub) for sub, space in zip(seed, self.spaces))
        raise TypeError(f"Expected seed type: list, tuple, int or None, actual type: {type(seed)}")

    def sample(
        self, mask: tuple[Any, ...] | None = None, probability: tuple[Any, ...] | None = None
    ) -> tuple:
        """Sample every subspace, passing each its entry of ``mask`` or ``probability``.

        Raises:
            ValueError: if both are given.
            AssertionError: if the argument is not a tuple with one entry per subspace.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> space = Tuple((Discrete(2), Discrete(3)), seed=0)
            >>> space.sample(mask=(np.array([0, 1], dtype=np.int8), None))[0]
            np.int64(1)
        """
        reject_mask_and_probability(mask, probability)
        if mask is not None:
            check_tuple_argument(mask, "mask", len(self.spaces))
            return tuple(space.sample(mask=sub) for space, sub in zip(self.spaces, mask))
        if probability is not None:
            check_tuple_argument(probability, "probability", len(self.spaces))
            return tuple(
                space.sample(probability=sub) for space, sub in zip(self.spaces, probability)
            )
        return tuple(space.sample() for space in self.spaces)

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` (a tuple, list or array) has one member of each subspace.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> (1, 0) in Tuple((Discrete(2), Discrete(2)))
            True
        """
        if isinstance(x, (list, np.ndarray)):
            x = tuple(x)
        return (
            isinstance(x, tuple)
            and len(x) == len(self.spaces)
            and all(space.contains(part) for space, part in zip(self.spaces, x))
        )

    def __repr__(self) -> str:
        return "Tuple(" + ", ".join(str(space) for space in self.spaces) + ")"

    def to_jsonable(self, sample_n: typing.Sequence[tuple]) -> list[list[Any]]:
        """Convert a batch of samples to one JSON list per subspace.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> Tuple((Discrete(2), Discrete(3))).to_jsonable([(1, 2), (0, 0)])
            [[1, 0], [2, 0]]
        """
        return [
            space.to_jsonable([sample[i] for sample in sample_n])
            for i, space in enumerate(self.spaces)
        ]

    def from_jsonable(self, sample_n: list[list[Any]]) -> list[tuple]:
        """Convert per-subspace JSON lists back to a list of tuples.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> Tuple((Discrete(2), Discrete(3))).from_jsonable([[1], [2]])
            [(np.int64(1), np.int64(2))]
        """
        columns = [space.from_jsonable(sample_n[i]) for i, space in enumerate(self.spaces)]
        return list(zip(*columns))

    def __getitem__(self, index: Any) -> Any:
        return self.spaces[index]

    def __len__(self) -> int:
        return len(self.spaces)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tuple) and self.spaces == other.spaces
