"""Argument types shared by the commands."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """Parse a command-line value that must be an integer of at least 1.

    Args:
        text: the value as typed.

    Raises:
        argparse.ArgumentTypeError: the value is not a positive integer (argparse turns it
            into a usage error with exit status 2).

    Example:
        >>> positive_int("3")
        3
    """
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """Parse a command-line value that must be a number above 0.

    Args:
        text: the value as typed.

    Raises:
        argparse.ArgumentTypeError: the value is not a positive finite number.

    Example:
        >>> positive_float("0.5")
        0.5
    """
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def folder_path(text: str) -> str:
    """Parse a command-line folder path, refusing the empty one.

    An empty ``--out ''`` (an unset shell variable) would otherwise mean the current
    folder and scatter a run's files there.

    Args:
        text: the value as typed.

    Raises:
        argparse.ArgumentTypeError: the value is empty or only spaces.

    Example:
        >>> folder_path("runs/cartpole")
        'runs/cartpole'
    """
    if not text.strip():
        raise argparse.ArgumentTypeError(
            f"expected a folder path, got {text!r} (for the current folder, pass '.')"
        )
    return text
