"""The :class:`Space` base class that every observation and action space derives from."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Generic, TypeVar

import numpy as np
import numpy.typing as npt

from palaestra.utils import seeding

T_co = TypeVar("T_co", covariant=True)

MaskNDArray = npt.NDArray[np.int8]


class Space(Generic[T_co]):
    """Describe a set of valid observations or actions and draw random members from it.

    Subclasses implement :meth:`sample` and :meth:`contains`; the base class holds the
    shape, dtype and a lazily created random generator.

    Args:
        shape: the shape of array elements, or ``None`` for non-array spaces.
        dtype: the dtype of array elements, or ``None`` for non-array spaces.
        seed: an ``int`` to seed the generator, or a ready :class:`numpy.random.Generator`.

    Example:
        >>> space = Space(shape=(2,), dtype="float32")
        >>> space.shape, space.dtype
        ((2,), dtype('float32'))
    """

    def __init__(
        self,
        shape: Sequence[int] | None = None,
        dtype: npt.DTypeLike | None = None,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        self._shape = None if shape is None else tuple(shape)
        self.dtype = None if dtype is None else np.dtype(dtype)
        self._np_random: np.random.Generator | None = None
        if isinstance(seed, np.random.Generator):
            self._np_random = seed
        elif seed is not None:
            self.seed(seed)

    @property
    def np_random(self) -> np.random.Generator:
        """The space's random generator, created from fresh entropy on first use."""
        if self._np_random is None:
            self.seed()
        if self._np_random is None:
            # Composite spaces seed only their children, so they need their own fallback.
            self._np_random, _ = seeding.np_random()
        return self._np_random

    @property
    def shape(self) -> tuple[int, ...] | None:
        """The shape of the space's array elements (``None`` for non-array spaces)."""
        return self._shape

    @property
    def is_np_flattenable(self) -> bool:
        """Whether elements can be flattened into a single :class:`~palaestra.spaces.Box`."""
        raise NotImplementedError

    def sample(self, mask: Any | None = None, probability: Any | None = None) -> T_co:
        """Draw a random element, optionally restricted by ``mask`` or weighted by ``probability``.

        Args:
            mask: a space-specific ``np.int8`` mask of allowed values.
            probability: a space-specific ``np.float64`` array of probabilities.

        Raises:
            NotImplementedError: always, for the abstract base.
        """
        raise NotImplementedError

    def seed(self, seed: Any = None) -> Any:
        """Seed the space's generator (and those of its subspaces for composite spaces).

        Args:
            seed: a non-negative ``int``, or ``None`` for fresh entropy.

        Returns:
            The seed actually used (the entropy drawn when ``seed`` is ``None``).

        Example:
            >>> Space().seed(7)
            7
        """
        self._np_random, used_seed = seeding.np_random(seed)
        return used_seed

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` is a member of the space."""
        raise NotImplementedError

    def __contains__(self, x: Any) -> bool:
        return self.contains(x)

    def __setstate__(self, state: Iterable[tuple[str, Any]] | Mapping[str, Any]) -> None:
        state = dict(state)
        # Spaces pickled by older releases stored these two attributes without the underscore.
        for legacy_name in ("shape", "np_random"):
            if legacy_name in state:
                state[f"_{legacy_name}"] = state.pop(legacy_name)
        self.__dict__.update(state)

    def to_jsonable(self, sample_n: Iterable[T_co]) -> list[Any] | Any:
        """Convert a batch of samples into JSON-serialisable data.

        Example:
            >>> Space().to_jsonable((1, 2))
            [1, 2]
        """
        return list(sample_n)

    def from_jsonable(self, sample_n: list[Any]) -> list[Any]:
        """Convert JSON data made by :meth:`to_jsonable` back into a batch of samples.

        Example:
            >>> Space().from_jsonable([1, 2])
            [1, 2]
        """
        return sample_n
