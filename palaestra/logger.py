"""Minimal leveled logging for palaestra, with warnings that show once per call site.

Warnings go through :mod:`warnings`, so the usual filters (``-W error``, ``pytest.warns``)
apply and a repeated warning from the same place is shown once.

Example:
    >>> from palaestra import logger
    >>> logger.set_level(logger.ERROR)
    >>> logger.warn("not shown at this level")
    >>> logger.set_level(logger.WARN)
"""

from __future__ import annotations

import sys
import warnings

from palaestra.utils.colorize import colorize

DEBUG = 10
INFO = 20
WARN = 30
ERROR = 40
DISABLED = 50

min_level = WARN

# Warnings raised through ``warn`` are shown once per location, like Python's default filter.
warnings.simplefilter("once", DeprecationWarning)


def set_level(level: int) -> None:
    """Show only messages at ``level`` or above (``DEBUG``, ``INFO``, ``WARN``, ``ERROR``).

    Args:
        level: the minimum level; ``DISABLED`` silences everything.
    """
    global min_level
    min_level = level


def debug(msg: str, *args: object) -> None:
    """Print a debug message to stdout when the level allows."""
    if min_level <= DEBUG:
        print(f"DEBUG: {msg % args}", file=sys.stdout)


def info(msg: str, *args: object) -> None:
    """Print an informational message to stdout when the level allows."""
    if min_level <= INFO:
        print(f"INFO: {msg % args}", file=sys.stdout)


def warn(
    msg: str,
    *args: object,
    category: type[Warning] | None = None,
    stacklevel: int = 1,
) -> None:
    """Issue a yellow warning through :func:`warnings.warn` when the level allows.

    Args:
        msg: the message, ``%``-formatted with ``args``.
        args: values for the message.
        category: the warning class; ``UserWarning`` by default.
        stacklevel: how many frames above the caller the warning points at.
    """
    if min_level <= WARN:
        warnings.warn(
            colorize(f"WARN: {msg % args}", "yellow"),
            category=category,
            stacklevel=stacklevel + 1,
        )


def deprecation(msg: str, *args: object) -> None:
    """Issue a :class:`DeprecationWarning`."""
    warn(msg, *args, category=DeprecationWarning, stacklevel=2)


def error(msg: str, *args: object) -> None:
    """Issue a red ``ERROR:`` :class:`UserWarning` when the level allows, as Gymnasium does.

    Being a warning, it can be recorded (``warnings.catch_warnings``) or turned into an
    exception (``-W error``) like every other message of the logger.
    """
    if min_level <= ERROR:
        warnings.warn(colorize(f"ERROR: {msg % args}", "red"), stacklevel=3)
