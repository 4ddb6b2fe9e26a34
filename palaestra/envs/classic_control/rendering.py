"""Drawing for the classic-control environments, on pygame (extra ``classic-control``).

:class:`Canvas` owns everything pygame: the frame surface, and in ``"human"`` mode the window
and the clock that paces it. Scenes are drawn in a y-up pixel frame (the origin at the
bottom-left corner, as in a plot); :meth:`Canvas.finish` flips the frame and shows or
returns it. pygame is imported only when the first canvas is made, never at module import.

Example:
    >>> canvas = Canvas(40, 20, render_mode="rgb_array", fps=30)
    >>> canvas.clear()
    >>> canvas.polygon([(0, 0), (10, 0), (10, 10), (0, 10)], (0, 0, 0))
    >>> frame = canvas.finish()
    >>> frame.shape, frame.dtype, frame[19, 0].tolist(), frame[0, 39].tolist()
    ((20, 40, 3), dtype('uint8'), [0, 0, 0], [255, 255, 255])
    >>> canvas.close()
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from palaestra.error import DependencyNotInstalled

__all__ = ["Canvas", "import_pygame", "rotate", "Color", "Point"]

Color = tuple[int, int, int]
Point = tuple[float, float]

WHITE: Color = (255, 255, 255)
BLACK: Color = (0, 0, 0)


def import_pygame() -> Any:
    """Import and return pygame, or explain how to install it.

    Raises:
        DependencyNotInstalled: if pygame (pygame-ce) is not installed.

    Example:
        >>> import_pygame().__name__
        'pygame'
    """
    # The import banner would pollute the output of programs that only render.
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
    except ImportError as e:
        raise DependencyNotInstalled(
            "pygame is not installed; rendering the classic-control environments needs it: "
            'run `pip install "palaestra[classic-control]"`'
        ) from e
    return pygame


def rotate(points: Iterable[Point], angle: float, origin: Point = (0.0, 0.0)) -> list[Point]:
    """Rotate ``points`` counter-clockwise by ``angle`` radians, then shift them to ``origin``.

    Args:
        points: ``(x, y)`` pairs relative to the centre of rotation.
        angle: the rotation in radians.
        origin: where the centre of rotation lands.

    Example:
        >>> [(round(x, 6), round(y, 6)) for x, y in rotate([(1.0, 0.0)], math.pi / 2, (5, 5))]
        [(5.0, 6.0)]
    """
    cos_a, sin_a = math.cos(angle), math.sin(angle)
    ox, oy = origin
    return [(ox + x * cos_a - y * sin_a, oy + x * sin_a + y * cos_a) for x, y in points]


class Canvas:
    """A frame to draw one scene on, shown in a window or returned as an RGB array.

    Args:
        width: frame width in pixels.
        height: frame height in pixels.
        render_mode: ``"human"`` opens a window paced at ``fps``; any other mode (``"rgb_array"``,
            or ``"rgb_array_list"`` for an env built without ``make``'s frame collector) draws
            off screen and returns frames from :meth:`finish`, as Gymnasium's envs do.
        fps: frames per second of the ``"human"`` window.
        title: the window's caption.

    Raises:
        DependencyNotInstalled: if pygame is missing.

    Example:
        >>> canvas = Canvas(8, 6, render_mode="rgb_array", fps=30)
        >>> canvas.clear((10, 20, 30))
        >>> canvas.finish()[0, 0].tolist()
        [10, 20, 30]
    """

    def __init__(
        self, width: int, height: int, render_mode: str, fps: float, title: str = "palaestra"
    ):
        self.pygame = import_pygame()
        from pygame import gfxdraw

        self.gfxdraw = gfxdraw
        self.width, self.height = width, height
        self.render_mode = render_mode
        self.fps = fps
        self.title = title
        self.surface = self.pygame.Surface((width, height))
        self.window: Any = None
        self.clock: Any = None

    def clear(self, color: Color = WHITE) -> None:
        """Start a new frame filled with ``color``."""
        self.surface.fill(color)

    def _to_screen(self, points: Iterable[Point]) -> list[Point]:
        return [(x, self.height - 1 - y) for x, y in points]

    def polygon(self, points: Sequence[Point], color: Color) -> None:
        """Draw a filled, anti-aliased polygon with corners ``points`` (y up)."""
        screen_points = self._to_screen(points)
        self.gfxdraw.filled_polygon(self.surface, screen_points, color)
        self.gfxdraw.aapolygon(self.surface, screen_points, color)

    def circle(self, center: Point, radius: float, color: Color) -> None:
        """Draw a filled, anti-aliased disc (y up)."""
        (x, y), r = self._to_screen([center])[0], round(radius)
        self.gfxdraw.filled_circle(self.surface, round(x), round(y), r, color)
        self.gfxdraw.aacircle(self.surface, round(x), round(y), r, color)

    def line(self, start: Point, end: Point, color: Color, width: int = 1) -> None:
        """Draw a straight line (y up); ``width`` > 1 draws a thick, aliased line."""
        a, b = self._to_screen([start, end])
        if width == 1:
            self.pygame.draw.aaline(self.surface, color, a, b)
        else:
            self.pygame.draw.line(self.surface, color, a, b, width)

    def polyline(self, points: Sequence[Point], color: Color) -> None:
        """Draw an open, anti-aliased curve through ``points`` (y up)."""
        self.pygame.draw.aalines(self.surface, color, False, self._to_screen(points))

    def finish(self) -> np.ndarray | None:
        """End the frame: return it as an ``(height, width, 3)`` uint8 array, or show it.

        In ``"human"`` mode the window is opened on first use, the frame is displayed and the
        call sleeps to keep ``fps``; it returns ``None``.
        """
        if self.render_mode != "human":
            # One copy of the pixels in row order (surfarray.array3d copies column by
            # column and needs a transpose: about 4x slower for a 600x400 frame).
            pixels = bytearray(self.pygame.image.tobytes(self.surface, "RGB"))
            return np.frombuffer(pixels, np.uint8).reshape(self.height, self.width, 3)
        if self.window is None:
            self.pygame.display.init()
            self.pygame.display.set_caption(self.title)
            self.window = self.pygame.display.set_mode((self.width, self.height))
            self.clock = self.pygame.time.Clock()
        self.window.blit(self.surface, (0, 0))
        self.pygame.event.pump()
        self.clock.tick(self.fps)
        self.pygame.display.flip()
        return None

    def close(self) -> None:
        """Close the window, if one is open; the canvas can open a new one later."""
        if self.window is not None:
            self.pygame.display.quit()
            self.window = None
            self.clock = None
