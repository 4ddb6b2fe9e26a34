"""Helpers shared by the spaces that contain other spaces."""

from __future__ import annotations

from typing import Any

import numpy as np


def draw_subseeds(rng: np.random.Generator, count: int) -> list[int]:
    """Draw one seed per subspace from a parent's freshly seeded generator.

    The draw is a single ``integers`` call below ``2**31 - 1``, so the subseeds equal
    Gymnasium's for the same parent seed.

    Example:
        >>> draw_subseeds(np.random.default_rng(0), 2)
        [1826701614, 1367864806]
    """
    return [int(seed) for seed in rng.integers(np.iinfo(np.int32).max, size=count)]


def check_mapping_argument(value: Any, name: str, keys: Any) -> None:
    """Check a per-key ``mask``/``probability`` argument is a dict with exactly ``keys``.

    Raises:
        AssertionError: naming the expected and actual keys.

    Example:
        >>> check_mapping_argument({"a": None}, "mask", {"a": 1}.keys())
    """
    if not isinstance(value, dict):
        raise AssertionError(
            f"Expected sample {_mask_words(name)} to be a dict, actual type: {type(value)}"
        )
    if value.keys() != keys:
        raise AssertionError(
            f"Expected sample {_mask_words(name)} keys to be same as space keys, mask keys: "
            f"{value.keys()}, space keys: {keys}"
        )


def _mask_words(name: str) -> str:
    """Name the argument as Gymnasium's ``Dict`` messages do ("probability mask")."""
    return "probability mask" if name == "probability" else name


def check_tuple_argument(value: Any, name: str, length: int, verb: str = "to be") -> None:
    """Check a per-subspace ``mask``/``probability`` argument is a tuple of ``length`` items.

    Raises:
        AssertionError: naming the expected and actual type or length.

    Args:
        value: the user's argument.
        name: ``"mask"`` or ``"probability"``.
        length: the number of subspaces.
        verb: the words between the name and the expectation (``Tuple`` says "to be",
            ``OneOf`` "is", as Gymnasium's messages do).

    Example:
        >>> check_tuple_argument((None, None), "mask", 2)
    """
    if not isinstance(value, tuple):
        raise AssertionError(f"Expected type of `{name}` {verb} tuple, actual type: {type(value)}")
    if len(value) != length:
        raise AssertionError(
            f"Expected length of `{name}` {verb} {length}, actual length: {len(value)}"
        )
