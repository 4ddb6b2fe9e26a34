"""Validation of the ``mask`` and ``probability`` arguments shared by the spaces' ``sample``.

Invalid masks raise :class:`AssertionError` (and passing both raises :class:`ValueError`), the
same exception types Gymnasium uses, so code that catches them keeps working.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def require(condition: Any, message: str) -> None:
    """Raise :class:`AssertionError` with ``message`` unless ``condition`` holds.

    Unlike an ``assert`` statement this check survives ``python -O``.

    Example:
        >>> require(True, "never shown")
    """
    if not condition:
        raise AssertionError(message)


def reject_mask_and_probability(mask: Any, probability: Any) -> None:
    """Raise :class:`ValueError` when both a mask and a probability are given.

    Example:
        >>> reject_mask_and_probability(None, None)
    """
    if mask is not None and probability is not None:
        raise ValueError(
            "Only one of `mask` or `probability` can be provided, actual values: "
            f"mask={mask}, probability={probability}"
        )


def check_array(
    value: Any,
    name: str,
    dtype: type,
    shape: tuple[int, ...],
    label: str | None = None,
    show_value_as_shape: bool = False,
) -> None:
    """Check that ``value`` is a numpy array of the given dtype and shape.

    Args:
        value: the user's mask or probability array.
        name: how to call it in the error (``"mask"`` or ``"probability"``).
        dtype: the required dtype (``np.int8`` for masks, ``np.float64`` for probabilities).
        shape: the required shape.
        label: the words naming the argument (``"sample mask"`` unless given).
        show_value_as_shape: print the array itself as the actual shape (Gymnasium's
            ``MultiBinary`` wording, kept so code matching that text still matches).

    Raises:
        AssertionError: naming what was expected and what was given.

    Example:
        >>> check_array(np.zeros(3, dtype=np.int8), "mask", np.int8, (3,))
    """
    label = f"sample {name}" if label is None else label
    require(
        isinstance(value, np.ndarray),
        f"The expected type of the {label} is np.ndarray, actual type: {type(value)}",
    )
    require(
        value.dtype == dtype,
        f"The expected dtype of the {label} is np.{np.dtype(dtype)}, "
        f"actual dtype: {value.dtype}; build it with np.array(..., dtype=np.{np.dtype(dtype)})",
    )
    if value.shape != shape:
        shown = f"{value} (shape {value.shape})" if show_value_as_shape else f"{value.shape}"
        raise AssertionError(f"The expected shape of the {label} is {shape}, actual shape: {shown}")


def check_binary_mask(
    mask: np.ndarray, message: str = "All values of the sample mask should be 0 or 1"
) -> np.ndarray:
    """Check every mask entry is 0 or 1 and return the boolean array of allowed entries.

    Example:
        >>> check_binary_mask(np.array([0, 1], dtype=np.int8))
        array([False,  True])
    """
    allowed = mask == 1
    require(
        np.all(allowed | (mask == 0)),
        f"{message}, actual values: {mask}",
    )
    return allowed


def check_probability_values(
    probability: np.ndarray,
    must_sum_to_one: bool = True,
    messages: tuple[str, str] = (
        "All values of the sample probability should be between 0 and 1",
        "The sum of the sample probability should be equal to 1",
    ),
) -> None:
    """Check probabilities lie in ``[0, 1]`` and, if required, sum to one.

    Example:
        >>> check_probability_values(np.array([0.25, 0.75]))
    """
    require(
        np.all((probability >= 0) & (probability <= 1)),
        f"{messages[0]}, actual values: {probability}",
    )
    if must_sum_to_one:
        require(
            np.isclose(np.sum(probability), 1),
            f"{messages[1]}, actual sum: {np.sum(probability)}",
        )


def as_array_or_none(value: Any) -> np.ndarray | None:
    """Convert ``value`` to a numpy array, or return ``None`` if it has no array form.

    Membership tests use this so that ragged or odd input is simply not a member.

    Example:
        >>> as_array_or_none([1, 2])
        array([1, 2])
        >>> as_array_or_none([1, [2, 3]]) is None
        True
    """
    try:
        return np.array(value)
    except (ValueError, TypeError):
        return None
