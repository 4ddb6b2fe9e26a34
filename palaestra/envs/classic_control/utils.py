"""Parsing of the reset ``options`` that the classic-control environments accept.

Example:
    >>> maybe_parse_reset_bounds({"low": -0.1}, -0.05, 0.05)
    (-0.1, 0.05)
"""

from __future__ import annotations

from typing import Any, SupportsFloat

__all__ = ["verify_number_and_cast", "maybe_parse_reset_bounds"]


def verify_number_and_cast(x: SupportsFloat) -> float:
    """Return ``x`` as a Python float, for reset options given as any number-like value.

    Args:
        x: the option's value.

    Raises:
        ValueError: if ``x`` cannot be converted to a float.

    Example:
        >>> verify_number_and_cast("0.5")
        0.5
    """
    try:
        return float(x)
    except (ValueError, TypeError) as e:
        raise ValueError(
            f"An option ({x}) could not be converted to a float; pass a number."
        ) from e


def maybe_parse_reset_bounds(
    options: dict[str, Any] | None, default_low: float, default_high: float
) -> tuple[float, float]:
    """Read the ``"low"`` / ``"high"`` bounds of the initial-state range from reset options.

    Args:
        options: the ``options`` given to ``reset``; missing keys keep their default.
        default_low: the lower bound used when ``options`` has no ``"low"``.
        default_high: the upper bound used when ``options`` has no ``"high"``.

    Returns:
        ``(low, high)`` as floats.

    Raises:
        ValueError: if a bound is not a number, or ``low > high``.

    Example:
        >>> maybe_parse_reset_bounds(None, -0.6, -0.4)
        (-0.6, -0.4)
    """
    if options is None:
        return default_low, default_high
    low = verify_number_and_cast(options.get("low", default_low))
    high = verify_number_and_cast(options.get("high", default_high))
    if low > high:
        raise ValueError(f"Lower bound ({low}) must be lower than higher bound ({high}).")
    return low, high
