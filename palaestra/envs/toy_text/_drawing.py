"""Procedural drawing for the toy-text environments: a pixel font, sprites and tiles.

Everything is drawn with pygame primitives on a surface in screen coordinates (y down);
no image file is read. :class:`ToyCanvas` wraps the classic-control
:class:`~palaestra.envs.classic_control.rendering.Canvas` (which owns the window and its
clock) and adds the toy-text drawing helpers.

Example:
    >>> canvas = ToyCanvas(40, 20, "rgb_array", fps=4, title="demo")
    >>> canvas.clear((0, 0, 0))
    >>> canvas.text("A1", (2, 2), scale=2, color=(255, 255, 255))
    >>> frame = canvas.finish()
    >>> frame.shape, bool(frame[2:16, 2:22].any())
    ((20, 40, 3), True)
    >>> canvas.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from palaestra.envs.classic_control.rendering import Canvas, Color
from palaestra.error import DependencyNotInstalled

__all__ = ["ToyCanvas", "GLYPHS", "text_width"]

# A 5x7 pixel font drawn for these environments: one string of five characters per row.
GLYPHS: dict[str, tuple[str, ...]] = {
    "0": (".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."),
    "1": ("..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."),
    "2": (".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"),
    "3": ("####.", "....#", "....#", ".###.", "....#", "....#", "####."),
    "4": ("...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."),
    "5": ("#####", "#....", "####.", "....#", "....#", "#...#", ".###."),
    "6": ("..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."),
    "7": ("#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."),
    "8": (".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."),
    "9": (".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."),
    "A": (".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"),
    "B": ("####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."),
    "C": (".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."),
    "D": ("####.", "#...#", "#...#", "#...#", "#...#", "#...#", "####."),
    "E": ("#####", "#....", "#....", "####.", "#....", "#....", "#####"),
    "G": (".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".###."),
    "J": ("..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."),
    "K": ("#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"),
    "L": ("#....", "#....", "#....", "#....", "#....", "#....", "#####"),
    "P": ("####.", "#...#", "#...#", "####.", "#....", "#....", "#...."),
    "Q": (".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"),
    "R": ("####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"),
    "S": (".####", "#....", "#....", ".###.", "....#", "....#", "####."),
    "T": ("#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."),
    "I": (".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."),
    "X": ("#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"),
    "U": ("#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."),
    "Y": ("#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."),
    " ": (".....",) * 7,
}
GLYPH_WIDTH, GLYPH_HEIGHT = 5, 7


def text_width(text: str, scale: int) -> int:
    """Return the width in pixels of ``text`` drawn at ``scale`` (one pixel column between glyphs).

    Example:
        >>> text_width("10", 2)
        22
    """
    return (len(text) * (GLYPH_WIDTH + 1) - 1) * scale if text else 0


def import_toy_text_pygame() -> Any:
    """Import pygame for toy-text rendering, or explain how to install it.

    Raises:
        DependencyNotInstalled: if pygame is not installed, naming the ``toy-text`` extra.
    """
    try:
        from palaestra.envs.classic_control.rendering import import_pygame

        return import_pygame()
    except DependencyNotInstalled as e:
        raise DependencyNotInstalled(
            'pygame is not installed, run `pip install "palaestra[toy-text]"`'
        ) from e


class ToyCanvas:
    """A frame for one toy-text scene (y down), shown in a window or returned as an array.

    Args:
        width: frame width in pixels.
        height: frame height in pixels.
        render_mode: ``"human"`` or ``"rgb_array"``.
        fps: frames per second of the ``"human"`` window.
        title: the window caption.

    Raises:
        DependencyNotInstalled: if pygame is missing.

    Example:
        >>> canvas = ToyCanvas(6, 4, "rgb_array", fps=4)
        >>> canvas.clear((1, 2, 3))
        >>> canvas.finish()[3, 5].tolist()
        [1, 2, 3]
    """

    def __init__(self, width: int, height: int, render_mode: str, fps: float, title: str = ""):
        self.pygame = import_toy_text_pygame()
        self.canvas = Canvas(width, height, render_mode, fps, title=title or "palaestra")
        self.surface = self.canvas.surface
        self.width, self.height = width, height

    def clear(self, color: Color) -> None:
        """Start a new frame filled with ``color``."""
        self.surface.fill(color)

    def rect(self, rect: Sequence[float], color: Color, width: int = 0, radius: int = 0) -> None:
        """Draw a rectangle ``(x, y, w, h)``: filled, or outlined ``width`` pixels wide."""
        self.pygame.draw.rect(self.surface, color, rect, width, border_radius=radius)

    def ellipse(self, rect: Sequence[float], color: Color, width: int = 0) -> None:
        """Draw the ellipse inscribed in ``rect``."""
        self.pygame.draw.ellipse(self.surface, color, rect, width)

    def circle(self, center: Sequence[float], radius: float, color: Color) -> None:
        """Draw a filled disc."""
        self.pygame.draw.circle(self.surface, color, center, radius)

    def polygon(self, points: Sequence[Sequence[float]], color: Color) -> None:
        """Draw a filled polygon."""
        self.pygame.draw.polygon(self.surface, color, points)

    def line(self, start: Sequence[float], end: Sequence[float], color: Color, width: int = 1):
        """Draw a straight line ``width`` pixels wide."""
        self.pygame.draw.line(self.surface, color, start, end, width)

    def text(self, text: str, at: Sequence[int], scale: int, color: Color) -> None:
        """Draw ``text`` in the pixel font with its top-left corner at ``at``.

        Raises:
            KeyError: for a character the font does not have.
        """
        x0, y0 = at
        for index, char in enumerate(text.upper()):
            left = x0 + index * (GLYPH_WIDTH + 1) * scale
            for row, bits in enumerate(GLYPHS[char]):
                for column, bit in enumerate(bits):
                    if bit == "#":
                        self.surface.fill(
                            color, (left + column * scale, y0 + row * scale, scale, scale)
                        )

    # Sprites shared by the grid worlds ---------------------------------------------------

    def walker(self, center: Sequence[float], size: float, coat: Color) -> None:
        """Draw a small walking figure (hood, coat, boots) centred at ``center``."""
        cx, cy = center
        unit = size / 10
        boot = (50, 40, 40)
        self.rect((cx - 3 * unit, cy + 3 * unit, 2.4 * unit, 2 * unit), boot)
        self.rect((cx + 0.6 * unit, cy + 3 * unit, 2.4 * unit, 2 * unit), boot)
        self.rect((cx - 3.5 * unit, cy - 1.5 * unit, 7 * unit, 5 * unit), coat, radius=int(unit))
        self.circle((cx, cy - 3 * unit), 2.4 * unit, (240, 205, 170))
        self.rect((cx - 2.6 * unit, cy - 5.8 * unit, 5.2 * unit, 1.8 * unit), coat)
        self.circle((cx - 0.9 * unit, cy - 3 * unit), max(1.0, 0.4 * unit), (30, 30, 30))
        self.circle((cx + 0.9 * unit, cy - 3 * unit), max(1.0, 0.4 * unit), (30, 30, 30))

    def flag(self, foot: Sequence[float], height: float, color: Color) -> None:
        """Draw a flag on a pole whose foot is at ``foot``."""
        x, y = foot
        self.line((x, y), (x, y - height), (70, 60, 50), max(1, round(height / 14)))
        self.polygon(
            [(x, y - height), (x + 0.6 * height, y - 0.8 * height), (x, y - 0.6 * height)], color
        )

    def finish(self) -> np.ndarray | None:
        """End the frame: an ``(height, width, 3)`` uint8 array, or ``None`` once shown."""
        return self.canvas.finish()

    def close(self) -> None:
        """Close the window, if one is open."""
        self.canvas.close()
