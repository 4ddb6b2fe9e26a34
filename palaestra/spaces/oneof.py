"""The :class:`OneOf` space: an element of exactly one of several spaces, tagged by index."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from palaestra.spaces._checks import reject_mask_and_probability
from palaestra.spaces._composite import check_tuple_argument, draw_subseeds
from palaestra.spaces.dict import Dict
from palaestra.spaces.space import Space
from palaestra.spaces.tuple import Tuple
from palaestra.utils.library_name import library_name


def _element_to_jsonable(space: Space[Any], value: Any) -> Any:
    """JSON data of one element of ``space``.

    Tuple and Dict lay their batches out per subspace (columns), so one element of them is
    converted subspace by subspace, recursively; other spaces convert the batch ``[value]``.
    """
    if isinstance(space, Tuple):
        return [_element_to_jsonable(sub, item) for sub, item in zip(space.spaces, value)]
    if isinstance(space, Dict):
        return {key: _element_to_jsonable(sub, value[key]) for key, sub in space.spaces.items()}
    return space.to_jsonable([value])[0]


def _element_from_jsonable(space: Space[Any], data: Any) -> Any:
    """Invert :func:`_element_to_jsonable`."""
    if isinstance(space, Tuple):
        return tuple(_element_from_jsonable(sub, item) for sub, item in zip(space.spaces, data))
    if isinstance(space, Dict):
        return {key: _element_from_jsonable(sub, data[key]) for key, sub in space.spaces.items()}
    return space.from_jsonable([data])[0]


class OneOf(Space[tuple]):
    """A disjoint union of spaces; elements are ``(index, element of spaces[index])``.

    Args:
        spaces: the alternatives (at least one).
        seed: seed or generator for sampling.

    Raises:
        TypeError: if ``spaces`` is not iterable or holds something that is not a Space.
        ValueError: if ``spaces`` is empty.

    Example:
        >>> from palaestra.spaces import Discrete
        >>> OneOf((Discrete(2), Discrete(3)))
        OneOf(Discrete(2), Discrete(3))
        >>> (1, 2) in OneOf((Discrete(2), Discrete(3)))
        True
    """

    def __init__(
        self, spaces: Iterable[Space[Any]], seed: int | np.random.Generator | None = None
    ) -> None:
        if not isinstance(spaces, Iterable):
            raise TypeError(f"{spaces} is not an iterable")
        self.spaces = tuple(spaces)
        if len(self.spaces) == 0:
            raise ValueError("Empty `OneOf` spaces are not supported.")
        for space in self.spaces:
            if not isinstance(space, Space):
                raise TypeError(
                    f"{space} does not inherit from `{library_name()}.Space`. "
                    f"Actual Type: {type(space)}"
                )
        super().__init__(None, None, seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Whether every alternative is flattenable."""
        return all(space.is_np_flattenable for space in self.spaces)

    def seed(self, seed: int | tuple[int, ...] | None = None) -> tuple:
        """Seed the index generator and every alternative.

        Args:
            seed: ``None`` for fresh entropy everywhere; an ``int`` from which one seed per
                alternative is drawn; or a sequence of ``1 + len(spaces)`` seeds (the first for
                the index generator).

        Returns:
            The seeds used: the index generator's first, then each alternative's.

        Raises:
            ValueError: for a seed sequence of the wrong length.
            TypeError: for any other seed type.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> OneOf((Discrete(2),)).seed([1, 2])
            (1, 2)
        """
        if seed is None:
            return (super().seed(None), *(space.seed(None) for space in self.spaces))
        if isinstance(seed, int):
            own_seed = super().seed(seed)
            subseeds = draw_subseeds(self.np_random, len(self.spaces))
            # Restart the index stream so it does not depend on the number of alternatives.
            super().seed(seed)
            return (own_seed, *(space.seed(sub) for space, sub in zip(self.spaces, subseeds)))
        if isinstance(seed, (tuple, list)):
            if len(seed) != len(self.spaces) + 1:
                raise ValueError(
                    "Expects that the subspaces of seeds equals the number of subspaces + 1. "
                    f"Actual length of seeds: {len(seed)}, length of subspaces: {len(self.spaces)}"
                )
            return (
                super().seed(seed[0]),
                *(space.seed(sub) for space, sub in zip(self.spaces, seed[1:])),
            )
        raise TypeError(f"Expected None, int, or tuple of ints, actual type: {type(seed)}")

    def sample(
        self, mask: tuple[Any, ...] | None = None, probability: tuple[Any, ...] | None = None
    ) -> tuple[np.int64, Any]:
        """Pick an alternative uniformly, then sample it with its entry of the mask/probability.

        Raises:
            ValueError: if both are given.
            AssertionError: if the argument is not a tuple with one entry per alternative.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> index, value = OneOf((Discrete(2), Discrete(3)), seed=0).sample()
            >>> int(index) in (0, 1)
            True
        """
        index = self.np_random.integers(0, len(self.spaces), dtype=np.int64)
        chosen = self.spaces[index]
        reject_mask_and_probability(mask, probability)
        if mask is not None:
            check_tuple_argument(mask, "mask", len(self.spaces), verb="is")
            return index, chosen.sample(mask=mask[index])
        if probability is not None:
            check_tuple_argument(probability, "probability", len(self.spaces), verb="is")
            return index, chosen.sample(probability=probability[index])
        return index, chosen.sample()

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` is ``(index, value)`` with ``value`` in ``spaces[index]``.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> (2, 0) in OneOf((Discrete(2), Discrete(3)))
            False
        """
        return (
            isinstance(x, tuple)
            and len(x) == 2
            and isinstance(x[0], (np.int64, int))
            and 0 <= x[0] < len(self.spaces)
            and self.spaces[x[0]].contains(x[1])
        )

    def __repr__(self) -> str:
        return "OneOf(" + ", ".join(str(space) for space in self.spaces) + ")"

    def to_jsonable(self, sample_n: Iterable[tuple[Any, Any]]) -> list[list[Any]]:
        """Convert a batch of samples to ``[index, jsonable value]`` pairs.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> OneOf((Discrete(2), Discrete(3))).to_jsonable([(np.int64(1), np.int64(2))])
            [[1, 2]]
        """
        return [[int(i), _element_to_jsonable(self.spaces[i], value)] for i, value in sample_n]

    def from_jsonable(self, sample_n: list[list[Any]]) -> list[tuple[Any, Any]]:
        """Convert ``[index, jsonable value]`` pairs back to samples.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> OneOf((Discrete(2), Discrete(3))).from_jsonable([[1, 2]])
            [(np.int64(1), np.int64(2))]
        """
        return [(np.int64(i), _element_from_jsonable(self.spaces[i], data)) for i, data in sample_n]

    def __getitem__(self, index: int) -> Space[Any]:
        return self.spaces[index]

    def __len__(self) -> int:
        return len(self.spaces)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OneOf) and self.spaces == other.spaces
