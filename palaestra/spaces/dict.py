"""The :class:`Dict` space: a dictionary of elements from named subspaces."""

from __future__ import annotations

import collections.abc
import typing
from collections import OrderedDict
from collections.abc import Iterator, KeysView, Sequence
from typing import Any

import numpy as np

from palaestra.spaces._checks import reject_mask_and_probability
from palaestra.spaces._composite import check_mapping_argument, draw_subseeds
from palaestra.spaces.space import Space
from palaestra.utils.library_name import library_name


def _ordered_spaces(spaces: Any, sort_keys: bool) -> dict[Any, Space[Any]]:
    """Turn the constructor's ``spaces`` argument into a dict in the space's key order."""
    if isinstance(spaces, OrderedDict):
        return dict(spaces.items())
    if isinstance(spaces, collections.abc.Mapping):
        if sort_keys:
            try:
                return dict(sorted(spaces.items()))
            except TypeError:  # keys of mixed, unorderable types keep their given order
                return dict(spaces.items())
        return dict(spaces.items())
    if isinstance(spaces, Sequence):
        return dict(spaces)
    if spaces is None:
        return {}
    raise TypeError(
        "Unexpected Dict space input, expecting dict, OrderedDict or Sequence, "
        f"actual type: {type(spaces)}"
    )


class Dict(Space[dict], typing.Mapping[str, Space[Any]]):
    """A dictionary of named subspaces; elements are dicts with the same keys.

    Keys of a plain ``dict`` are sorted (unless ``sort_keys=False``); an ``OrderedDict`` or a
    sequence of pairs keeps its order; keyword arguments are appended.

    Args:
        spaces: a mapping or sequence of ``(key, space)`` pairs.
        seed: seed or generator for sampling.
        sort_keys: whether to sort the keys of a plain ``dict``.
        **spaces_kwargs: more subspaces given by keyword.

    Raises:
        TypeError: for an unsupported ``spaces`` argument or a value that is not a Space.
        ValueError: if a keyword repeats a key of ``spaces``.

    Example:
        >>> from palaestra.spaces import Discrete
        >>> Dict({"b": Discrete(3), "a": Discrete(2)})
        Dict('a': Discrete(2), 'b': Discrete(3))
    """

    def __init__(
        self,
        spaces: typing.Mapping[str, Space[Any]] | Sequence[tuple[str, Space[Any]]] | None = None,
        seed: dict | int | np.random.Generator | None = None,
        *,
        sort_keys: bool = True,
        **spaces_kwargs: Space[Any],
    ) -> None:
        self.sort_keys = sort_keys
        all_spaces = _ordered_spaces(spaces, sort_keys)
        for key, space in spaces_kwargs.items():
            if key in all_spaces:
                raise ValueError(
                    f"Dict space keyword '{key}' already exists in the spaces dictionary."
                )
            all_spaces[key] = space
        for key, space in all_spaces.items():
            if not isinstance(space, Space):
                raise TypeError(
                    f"Dict space element is not an instance of Space: key='{key}', space={space}"
                )
        self.spaces = all_spaces
        super().__init__(None, None, seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Whether every subspace is flattenable."""
        return all(space.is_np_flattenable for space in self.spaces.values())

    def seed(self, seed: int | dict[str, Any] | None = None) -> dict[str, Any]:
        """Seed every subspace.

        Args:
            seed: ``None`` seeds each subspace from fresh entropy; an ``int`` seeds this
                space, which then draws one seed per subspace in key order; a dict gives each
                key its own seed and must have exactly the space's keys.

        Returns:
            A dict of the seeds the subspaces used.

        Raises:
            ValueError: if a seed dict's keys differ from the space's.
            TypeError: for any other seed type.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> Dict(a=Discrete(2)).seed({"a": 3})
            {'a': 3}
        """
        if seed is None:
            return {key: space.seed(None) for key, space in self.spaces.items()}
        if isinstance(seed, int):
            super().seed(seed)
            subseeds = draw_subseeds(self.np_random, len(self.spaces))
            return {
                key: space.seed(sub) for (key, space), sub in zip(self.spaces.items(), subseeds)
            }
        if isinstance(seed, dict):
            if seed.keys() != self.spaces.keys():
                raise ValueError(
                    f"The seed keys: {seed.keys()} are not identical to space keys: "
                    f"{self.spaces.keys()}"
                )
            return {key: self.spaces[key].seed(seed[key]) for key in seed}
        raise TypeError(f"Expected seed type: dict, int or None, actual type: {type(seed)}")

    def sample(
        self, mask: dict[str, Any] | None = None, probability: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Sample every subspace, passing each its entry of ``mask`` or ``probability``.

        Raises:
            ValueError: if both are given.
            AssertionError: if the argument is not a dict with exactly the space's keys.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> space = Dict(a=Discrete(3), seed=0)
            >>> space.sample(mask={"a": np.array([0, 0, 1], dtype=np.int8)})
            {'a': np.int64(2)}
        """
        reject_mask_and_probability(mask, probability)
        if mask is not None:
            check_mapping_argument(mask, "mask", self.spaces.keys())
            return {key: space.sample(mask=mask[key]) for key, space in self.spaces.items()}
        if probability is not None:
            check_mapping_argument(probability, "probability", self.spaces.keys())
            return {
                key: space.sample(probability=probability[key])
                for key, space in self.spaces.items()
            }
        return {key: space.sample() for key, space in self.spaces.items()}

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` is a dict with the space's keys and members as values.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> {"a": 1} in Dict(a=Discrete(2)), {"b": 1} in Dict(a=Discrete(2))
            (True, False)
        """
        if isinstance(x, dict) and x.keys() == self.spaces.keys():
            return all(x[key] in space for key, space in self.spaces.items())
        return False

    def __getitem__(self, key: str) -> Space[Any]:
        return self.spaces[key]

    def keys(self) -> KeysView:
        """Return a view of the subspace keys, in order."""
        return KeysView(self.spaces)

    def __setitem__(self, key: str, value: Space[Any]) -> None:
        if not isinstance(value, Space):
            raise TypeError(
                f"Trying to set {key} to Dict space with value that is not a {library_name()} "
                f"space, actual type: {type(value)}"
            )
        self.spaces[key] = value

    def __iter__(self) -> Iterator[str]:
        yield from self.spaces

    def __len__(self) -> int:
        return len(self.spaces)

    def __repr__(self) -> str:
        return "Dict(" + ", ".join(f"{key!r}: {space}" for key, space in self.spaces.items()) + ")"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dict) and self.spaces == other.spaces

    def to_jsonable(self, sample_n: typing.Sequence[dict[str, Any]]) -> dict[str, list[Any]]:
        """Convert a batch of samples to one JSON list per key.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> Dict(a=Discrete(2)).to_jsonable([{"a": 1}, {"a": 0}])
            {'a': [1, 0]}
        """
        return {
            key: space.to_jsonable([sample[key] for sample in sample_n])
            for key, space in self.spaces.items()
        }

    def from_jsonable(self, sample_n: dict[str, list[Any]]) -> list[dict[str, Any]]:
        """Convert per-key JSON lists back to a list of dicts.

        Example:
            >>> from palaestra.spaces import Discrete
            >>> Dict(a=Discrete(2)).from_jsonable({"a": [1]})
            [{'a': np.int64(1)}]
        """
        columns = {key: space.from_jsonable(sample_n[key]) for key, space in self.spaces.items()}
        count = len(next(iter(columns.values())))
        return [{key: column[i] for key, column in columns.items()} for i in range(count)]
