"""ANSI colouring of terminal strings; ``color2num`` maps colour names to ANSI codes."""

from __future__ import annotations

color2num = {
    "gray": 30,
    "red": 31,
    "green": 32,
    "yellow": 33,
    "blue": 34,
    "magenta": 35,
    "cyan": 36,
    "white": 37,
    "crimson": 38,
}


def colorize(string: str, color: str, bold: bool = False, highlight: bool = False) -> str:
    r"""Wrap ``string`` in ANSI escape codes so a terminal shows it coloured.

    Args:
        string: the text to colour.
        color: one of gray, red, green, yellow, blue, magenta, cyan, white, crimson.
        bold: also make the text bold.
        highlight: colour the background instead of the foreground.

    Raises:
        KeyError: if ``color`` is not one of the names above.

    Example:
        >>> colorize("ok", "green")
        '\x1b[32mok\x1b[0m'
    """
    code = color2num[color] + (10 if highlight else 0)
    attributes = [str(code)] + (["1"] if bold else [])
    return f"\x1b[{';'.join(attributes)}m{string}\x1b[0m"
