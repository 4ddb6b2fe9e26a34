"""What the Box2D environments share: the engine import, pygame and the render window.

Box2D is imported here, once, so a missing engine gives one clear
:class:`~palaestra.error.DependencyNotInstalled` naming the ``box2d`` extra. pygame is
imported only when an environment first renders.

Example:
    >>> b2 = import_box2d()
    >>> world = b2.b2World(gravity=(0, -10))
    >>> world.gravity.y
    -10.0
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np

from palaestra import logger
from palaestra.error import DependencyNotInstalled

__all__ = [
    "import_box2d",
    "import_pygame",
    "Window",
    "warn_no_render_mode",
    "surface_to_array",
    "ContactRelay",
]

INSTALL_HINT = 'run `pip install "palaestra[box2d]"`'


def import_box2d() -> Any:
    """Import and return the ``Box2D`` module, or explain how to install it.

    Raises:
        DependencyNotInstalled: if Box2D (``box2d`` or ``box2d-py``) is not installed.

    Example:
        >>> import_box2d().__name__
        'Box2D'
    """
    try:
        with warnings.catch_warnings():
            # Box2D's SWIG bindings warn about their own types on import; nothing to act on.
            warnings.filterwarnings(
                "ignore", message="builtin type .* has no __module__", category=DeprecationWarning
            )
            import Box2D
    except ImportError as e:
        raise DependencyNotInstalled(
            f"Box2D is not installed; the Box2D environments need it: {INSTALL_HINT}"
        ) from e
    return Box2D


def import_pygame() -> Any:
    """Import and return pygame, or explain how to install it.

    Raises:
        DependencyNotInstalled: if pygame (pygame-ce) is not installed.

    Example:
        >>> import_pygame().__name__
        'pygame'
    """
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
        import pygame.gfxdraw
    except ImportError as e:
        raise DependencyNotInstalled(
            f"pygame is not installed; rendering the Box2D environments needs it: {INSTALL_HINT}"
        ) from e
    return pygame


def warn_no_render_mode(env: Any) -> None:
    """Warn, as Gymnasium does, that ``render()`` was called without a render mode.

    Example:
        >>> class Bare:
        ...     spec = None
        >>> warn_no_render_mode(Bare())  # doctest: +SKIP
    """
    env_id = env.spec.id if env.spec is not None else type(env).__name__
    logger.warn(
        "You are calling render method without specifying any render mode. "
        "You can specify the render_mode at initialization, "
        f'e.g. gym.make("{env_id}", render_mode="rgb_array")'
    )


def surface_to_array(surface: Any) -> np.ndarray:
    """Copy a pygame surface into an ``(height, width, 3)`` uint8 array.

    Example:
        >>> pygame = import_pygame()
        >>> surface = pygame.Surface((4, 2))
        >>> _ = surface.fill((1, 2, 3))
        >>> frame = surface_to_array(surface)
        >>> frame.shape, frame[1, 3].tolist()
        ((2, 4, 3), [1, 2, 3])
    """
    pygame = import_pygame()
    return np.transpose(pygame.surfarray.array3d(surface), (1, 0, 2))


class Window:
    """A ``"human"`` render window, opened on first use and paced at ``fps``.

    Args:
        size: the window's ``(width, height)`` in pixels.
        fps: frames per second to keep.
        title: the window's caption.

    Raises:
        DependencyNotInstalled: if pygame is missing.

    Example:
        >>> import os
        >>> os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        '...'
        >>> window = Window((40, 30), fps=1000)
        >>> pygame = import_pygame()
        >>> window.show(pygame.Surface((40, 30)))
        >>> window.close()
    """

    def __init__(self, size: tuple[int, int], fps: float, title: str = "palaestra"):
        self.pygame = import_pygame()
        self.size = size
        self.fps = fps
        self.title = title
        self.screen: Any = None
        self.clock: Any = None

    def show(self, surface: Any, offset: tuple[float, float] = (0, 0), fill: bool = False) -> None:
        """Blit ``surface`` at ``offset``, process window events, flip and keep the pace."""
        pygame = self.pygame
        if self.screen is None:
            pygame.display.init()
            pygame.display.set_caption(self.title)
            self.screen = pygame.display.set_mode(self.size)
            self.clock = pygame.time.Clock()
        if fill:
            self.screen.fill(0)
        self.screen.blit(surface, offset)
        pygame.event.pump()
        self.clock.tick(self.fps)
        pygame.display.flip()

    def close(self) -> None:
        """Close the window if it is open; a later :meth:`show` opens a new one."""
        if self.screen is not None:
            self.pygame.display.quit()
            self.pygame.quit()
            self.screen = None
            self.clock = None


class ContactRelay:
    """Mixin for a ``b2.contactListener``: keeps the env and routes both contact callbacks.

    Box2D calls ``BeginContact`` and ``EndContact``; both go to ``_touch(contact, begin)``,
    which the listener defines (``begin`` is ``True`` when the contact starts). List it
    before ``b2.contactListener`` in the bases.

    Args:
        env: the environment the listener updates, kept as ``self.env``.

    Example:
        >>> class Log(ContactRelay):
        ...     def _touch(self, contact, begin):
        ...         print(contact, begin)
        >>> Log(env=None).EndContact("a contact")
        a contact False
    """

    def __init__(self, env: Any):
        super().__init__()
        self.env = env

    def BeginContact(self, contact: Any) -> None:
        """Box2D calls this when two fixtures' contact starts."""
        self._touch(contact, True)

    def EndContact(self, contact: Any) -> None:
        """Box2D calls this when two fixtures' contact ends."""
        self._touch(contact, False)

    def _touch(self, contact: Any, begin: bool) -> None:
        raise NotImplementedError
