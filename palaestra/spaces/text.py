"""The :class:`Text` space: strings over a character set with bounded length."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from palaestra.spaces._checks import reject_mask_and_probability, require
from palaestra.spaces.space import Space

alphanumeric: frozenset[str] = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
)


def _is_integer(value: Any) -> bool:
    return bool(np.issubdtype(type(value), np.integer))


class Text(Space[str]):
    """Strings of ``min_length`` to ``max_length`` characters drawn from ``charset``.

    A set charset is ordered by sorting; a string charset keeps its order (duplicates
    dropped). That order is the index order used by masks and by flattening.

    Args:
        max_length: the longest allowed string.
        min_length: the shortest allowed string (default 1).
        charset: the allowed characters, as a set or a string.
        seed: seed or generator for sampling.

    Raises:
        TypeError: if a length is not an integer.
        ValueError: for a negative ``min_length``, ``min_length > max_length`` or charset
            entries that are not single characters.

    Example:
        >>> Text(5, charset="abc")
        Text(1, 5, charset=abc)
        >>> "cab" in Text(5, charset="abc")
        True
    """

    def __init__(
        self,
        max_length: int,
        *,
        min_length: int = 1,
        charset: frozenset[str] | str = alphanumeric,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        if not _is_integer(min_length):
            raise TypeError(
                f"Expects the min_length to be an integer, actual type: {type(min_length)}"
            )
        if not _is_integer(max_length):
            raise TypeError(
                f"Expects the max_length to be an integer, actual type: {type(max_length)}"
            )
        if min_length < 0:
            raise ValueError(
                f"Minimum text length must be non-negative, actual value: {min_length}"
            )
        if min_length > max_length:
            raise ValueError(
                "The min_length must be less than or equal to the max_length, "
                f"min_length: {min_length}, max_length: {max_length}"
            )
        self.min_length = int(min_length)
        self.max_length = int(max_length)
        if isinstance(charset, (set, frozenset)):
            chars = sorted(charset)
        else:
            chars = list(dict.fromkeys(charset))
        not_single = [char for char in chars if len(char) != 1]
        if not_single:
            raise ValueError(
                "Expects all charset elements to be a single character, "
                f"actual invalid elements: {not_single}"
            )
        self._char_set = frozenset(chars)
        self._char_list = tuple(chars)
        self._char_index = {char: np.int32(i) for i, char in enumerate(chars)}
        self._char_str = "".join(sorted(chars))
        super().__init__(dtype=str, seed=seed)

    def sample(
        self,
        mask: tuple[int | None, npt.NDArray[np.int8] | None] | None = None,
        probability: tuple[int | None, npt.NDArray[np.float64] | None] | None = None,
    ) -> str:
        """Draw a string: a uniform length, then each character independently.

        Args:
            mask: ``(length, char_mask)``; either part may be ``None``. ``length`` fixes the
                string length; ``char_mask`` is an ``np.int8`` array over
                :attr:`character_list` with 1 for allowed characters.
            probability: ``(length, char_probability)`` with an ``np.float64`` array summing
                to one instead of the mask.

        Raises:
            ValueError: if both are given, or every character is masked out while strings
                must be non-empty.
            AssertionError: for a malformed mask, probability or length.

        Example:
            >>> space = Text(3, charset="ab", seed=0)
            >>> space.sample(mask=(3, np.array([0, 1], dtype=np.int8)))
            'bbb'
        """
        reject_mask_and_probability(mask, probability)
        length: Any = None
        weights: Any = None
        if mask is not None:
            length, weights = self._unpack(mask, np.int8, "mask")
            if weights is not None:
                require(
                    np.all((weights == 0) | (weights == 1)),
                    f"Expects all mask values to 0 or 1, actual values: {weights}",
                )
                if np.sum(weights) > 0:
                    weights = weights / np.sum(weights)
        elif probability is not None:
            length, weights = self._unpack(probability, np.float64, "probability")
            if weights is not None:
                require(
                    np.all((weights >= 0) & (weights <= 1)),
                    "Expects all probability mask values to be within 0 and 1, "
                    f"actual values: {weights}",
                )
                require(
                    np.isclose(np.sum(weights), 1),
                    "Expects the sum of the probability mask to be 1, "
                    f"actual sum: {np.sum(weights)}",
                )
        if length is None:
            length = self.np_random.integers(self.min_length, self.max_length + 1)
        if weights is None:
            weights = np.ones(len(self._char_list)) / len(self._char_list)
        if np.all(weights == 0):
            if self.min_length == 0:
                return ""
            raise ValueError(
                "Trying to sample with a minimum length > 0 (actual minimum length="
                f"{self.min_length}) but the character mask is all zero meaning that no "
                "character could be sampled. Allow at least one character."
            )
        return "".join(self.np_random.choice(self._char_list, size=length, p=weights))

    def _unpack(self, mask: Any, dtype: type, name: str) -> tuple[Any, Any]:
        require(
            isinstance(mask, tuple),
            f"Expects the `{name}` type to be a tuple, actual type: {type(mask)}",
        )
        require(
            len(mask) == 2, f"Expects the `{name}` length to be two, actual length: {len(mask)}"
        )
        length, weights = mask
        if length is not None:
            require(
                _is_integer(length),
                f"Expects the Text sample length to be an integer, actual type: {type(length)}",
            )
            require(
                self.min_length <= length <= self.max_length,
                f"Expects the Text sample length be between {self.min_length} and "
                f"{self.max_length}, actual length: {length}",
            )
        if weights is not None:
            require(
                isinstance(weights, np.ndarray),
                f"Expects the Text sample `{name}` to be an np.ndarray, "
                f"actual type: {type(weights)}",
            )
            require(
                weights.dtype == dtype,
                f"Expects the Text sample `{name}` to be type {dtype}, "
                f"actual dtype: {weights.dtype}",
            )
            require(
                weights.shape == (len(self._char_list),),
                f"expects the Text sample `{name}` to be {(len(self._char_list),)}, "
                f"actual shape: {weights.shape}",
            )
        return length, weights

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` is a string of allowed length made of allowed characters.

        Example:
            >>> "" in Text(3), "abcd" in Text(3)
            (False, False)
        """
        if isinstance(x, str) and self.min_length <= len(x) <= self.max_length:
            return all(char in self._char_set for char in x)
        return False

    def __repr__(self) -> str:
        return f"Text({self.min_length}, {self.max_length}, charset={self.characters})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Text)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
            and self.character_set == other.character_set
        )

    @property
    def character_set(self) -> frozenset[str]:
        """The allowed characters as a set."""
        return self._char_set

    @property
    def character_list(self) -> tuple[str, ...]:
        """The allowed characters in index order."""
        return self._char_list

    def character_index(self, char: str) -> np.int32:
        """Return the index of ``char`` in :attr:`character_list`.

        Example:
            >>> Text(2, charset="xyz").character_index("y")
            np.int32(1)
        """
        return self._char_index[char]

    @property
    def characters(self) -> str:
        """The allowed characters, sorted, as one string."""
        return self._char_str

    @property
    def is_np_flattenable(self) -> bool:
        """Always ``True``: text flattens to a fixed-length array of character indices."""
        return True
