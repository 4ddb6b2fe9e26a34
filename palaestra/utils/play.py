"""Play an environment from the keyboard in a pygame window, optionally plotting live metrics.

pygame (extra ``classic-control``) is imported when a game starts and matplotlib when a
:class:`PlayPlot` is made, so importing this module needs neither.

Keys are pygame key codes or characters. The classic-control envs have built-in mappings
(:data:`DEFAULT_KEYS_TO_ACTION`); other envs need ``keys_to_action`` or a
``get_keys_to_action()`` method.

Example:
    >>> sorted(DEFAULT_KEYS_TO_ACTION)  # doctest: +NORMALIZE_WHITESPACE
    ['Acrobot-v1', 'CartPole-v0', 'CartPole-v1', 'MountainCar-v0',
     'MountainCarContinuous-v0', 'Pendulum-v1']
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from palaestra.core import ActType, Env
from palaestra.error import DependencyNotInstalled

if TYPE_CHECKING:
    from pygame import Surface
    from pygame.event import Event

__all__ = [
    "MissingKeysToAction",
    "PlayableGame",
    "display_arr",
    "play",
    "PlayPlot",
    "DEFAULT_KEYS_TO_ACTION",
    "default_keys_to_action",
    "env_keys_to_action",
]

# pygame prints a banner on import unless told not to; play's output should be the game only.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

# pygame 2 key codes of the arrow keys (pygame.K_LEFT etc.), fixed by SDL2.
_LEFT, _RIGHT = 1073741904, 1073741903


def _box_action(value: float) -> np.ndarray:
    return np.array([value], dtype=np.float32)


# The empty combination () is the action while no key is held (it overrides ``noop``).
DEFAULT_KEYS_TO_ACTION: dict[str, dict[tuple[int, ...], Any]] = {
    "CartPole-v0": {(_LEFT,): 0, (_RIGHT,): 1},
    "CartPole-v1": {(_LEFT,): 0, (_RIGHT,): 1},
    "MountainCar-v0": {(): 1, (_LEFT,): 0, (_RIGHT,): 2, (_LEFT, _RIGHT): 1},
    "Acrobot-v1": {(): 1, (_LEFT,): 0, (_RIGHT,): 2, (_LEFT, _RIGHT): 1},
    "MountainCarContinuous-v0": {
        (): _box_action(0.0),
        (_LEFT,): _box_action(-1.0),
        (_RIGHT,): _box_action(1.0),
    },
    "Pendulum-v1": {
        (): _box_action(0.0),
        (_LEFT,): _box_action(2.0),
        (_RIGHT,): _box_action(-2.0),
    },
}


class MissingKeysToAction(Exception):
    """The environment has no key-to-action mapping and none was given."""


def _import_pygame() -> Any:
    try:
        import pygame
    except ImportError as e:
        raise DependencyNotInstalled(
            'pygame is not installed, run `pip install "palaestra[classic-control]"`'
        ) from e
    return pygame


def default_keys_to_action(env: Env) -> dict:
    """Find a key mapping for ``env``: the built-in one for its id, else the env's own.

    This is what ``palaestra play ENV_ID`` uses. :func:`play` itself, like Gymnasium's, only
    asks the env (``get_keys_to_action()``) when it is given no mapping. The built-in table is
    known to work with pygame 2 key codes (the classic envs' own mappings follow Gymnasium's).

    Args:
        env: the (possibly wrapped) environment.

    Returns:
        The key-combination -> action mapping.

    Raises:
        MissingKeysToAction: if there is no mapping for the env.
        ValueError: if the env has no spec to look its id up by.

    Example:
        >>> import palaestra as gym
        >>> default_keys_to_action(gym.make("CartPole-v1"))[(1073741903,)]  # right arrow
        1
    """
    if env.spec is not None and env.spec.id in DEFAULT_KEYS_TO_ACTION:
        return DEFAULT_KEYS_TO_ACTION[env.spec.id]
    return env_keys_to_action(env)


def env_keys_to_action(env: Env) -> dict:
    """Return ``env.get_keys_to_action()`` (through wrappers): :func:`play`'s default mapping.

    Args:
        env: the (possibly wrapped) environment.

    Raises:
        MissingKeysToAction: if the env has no ``get_keys_to_action``.
        ValueError: if it has none and no spec to name it by.

    Example:
        >>> import palaestra as gym
        >>> env_keys_to_action(gym.make("MountainCar-v0"))[()]
        1
    """
    if env.has_wrapper_attr("get_keys_to_action"):
        return env.get_wrapper_attr("get_keys_to_action")()
    if env.spec is None:
        raise ValueError(
            "The environment must have an `env.spec` to auto-detect missing keys to action "
            "mappings."
        )
    raise MissingKeysToAction(
        f"{env.spec.id} does not have explicit key to action mapping, please specify one "
        "manually, e.g. `play(env, keys_to_action={'a': 0, 'd': 1})` (the mapping "
        "`palaestra play` uses: `palaestra.utils.play.default_keys_to_action(env)`)"
    )


def _check_keys_to_action(keys_to_action: Any, action_space: Any) -> None:
    if not isinstance(keys_to_action, dict):
        raise TypeError(f"keys_to_action must be a dictionary, got {type(keys_to_action)}")
    for keys, action in keys_to_action.items():
        if isinstance(keys, tuple):
            if not all(isinstance(key, (str, int)) for key in keys):
                raise TypeError(
                    f"All keys in key combination tuple must be integers or strings, got {keys}"
                )
        elif not isinstance(keys, (str, int)):
            raise TypeError(f"Keys in keys_to_action must be integers or strings, got {type(keys)}")
        if action not in action_space:
            raise ValueError(
                f"Action {action} is not a valid action in the environment action space: "
                f"{action_space}"
            )


def _key_codes(keys: tuple | str | int) -> tuple[int, ...]:
    """Turn a key, a string of keys or a tuple of keys into sorted key codes."""
    if isinstance(keys, int):
        keys = (keys,)
    return tuple(sorted(ord(key) if isinstance(key, str) else key for key in keys))


def _frame_of(rendered: Any) -> np.ndarray:
    frame = rendered[-1] if isinstance(rendered, list) else rendered
    if not isinstance(frame, np.ndarray):
        raise TypeError(f"Expected env.render() to return a numpy image, got {type(frame)}")
    return frame


class PlayableGame:
    """The pygame window and keyboard state of a game played with :func:`play`.

    Args:
        env: an env with render mode ``"rgb_array"`` or ``"rgb_array_list"``.
        keys_to_action: tuples of key codes -> action; the env's default mapping if ``None``.
        zoom: scale factor of the window, ``None`` for the frame's own size.

    Raises:
        ValueError: for another render mode or a zoom that is not positive.
        MissingKeysToAction: if no mapping is given or known.

    Example:
        >>> import pygame
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1", render_mode="rgb_array")
        >>> _ = env.reset(seed=0)
        >>> game = PlayableGame(env, keys_to_action={(pygame.K_a,): 0, (pygame.K_d,): 1}, zoom=0.5)
        >>> game.video_size, sorted(game.relevant_keys) == [pygame.K_a, pygame.K_d]
        ((300, 200), True)
        >>> pygame.quit()
    """

    def __init__(
        self,
        env: Env,
        keys_to_action: dict[tuple[int, ...], Any] | None = None,
        zoom: float | None = None,
    ) -> None:
        if env.render_mode not in {"rgb_array", "rgb_array_list"}:
            raise ValueError(
                "PlayableGame wrapper works only with rgb_array and rgb_array_list render "
                f"modes, but your environment render_mode = {env.render_mode}."
            )
        if zoom is not None and zoom <= 0:
            raise ValueError(f"Zoom must be a positive float, got {zoom}")
        pygame = _import_pygame()
        self.env = env
        if keys_to_action is None:
            keys_to_action = env_keys_to_action(env)
        if not isinstance(keys_to_action, dict):
            raise TypeError(f"keys_to_action must be a dictionary, got {type(keys_to_action)}")
        self.relevant_keys: set[int] = {key for keys in keys_to_action for key in keys}
        self.original_video_size = self._get_video_size(zoom)
        self.video_size = self.original_video_size
        self.screen: Surface = pygame.display.set_mode(self.video_size, pygame.RESIZABLE)
        self.pressed_keys: set[int] = set()
        self.running = True

    def _get_video_size(self, zoom: float | None = None) -> tuple[int, int]:
        frame = _frame_of(self.env.render())
        width, height = frame.shape[1], frame.shape[0]
        if zoom is not None:
            width, height = int(width * zoom), int(height * zoom)
        return width, height

    def process_event(self, event: Event) -> None:
        """Track held keys, stop on Escape or window close, and follow window resizes.

        Args:
            event: a pygame event.
        """
        pygame = _import_pygame()
        if event.type == pygame.KEYDOWN:
            if event.key in self.relevant_keys:
                self.pressed_keys.add(event.key)
            elif event.key == pygame.K_ESCAPE:
                self.running = False
        elif event.type == pygame.KEYUP:
            self.pressed_keys.discard(event.key)
        elif event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.WINDOWRESIZED:
            # Scale from the original size, so repeated resizes don't accumulate rounding.
            base_width, base_height = self.original_video_size
            scale = min(event.x / base_width, event.y / base_height)
            self.video_size = (round(scale * base_width), round(scale * base_height))


def display_arr(
    screen: Surface, arr: np.ndarray, video_size: tuple[int, int], transpose: bool | None
) -> None:
    """Draw an image on ``screen``, scaled to ``video_size`` and centred on black.

    Args:
        screen: the pygame surface to draw on.
        arr: a uint8 image, (height, width, 3) if ``transpose`` else (width, height, 3).
        video_size: the (width, height) to scale the image to.
        transpose: whether ``arr`` has rows first (the usual image layout).

    Raises:
        TypeError: if ``arr`` is not a uint8 numpy array.

    Example:
        >>> import pygame
        >>> screen = pygame.Surface((4, 2))
        >>> display_arr(screen, np.full((1, 2, 3), 255, np.uint8), (2, 2), transpose=True)
        >>> screen.get_at((0, 0)), screen.get_at((1, 1))
        (Color(0, 0, 0, 255), Color(255, 255, 255, 255))
    """
    if not isinstance(arr, np.ndarray) or arr.dtype != np.uint8:
        raise TypeError(
            f"Expected a uint8 numpy image, got {type(arr)} {getattr(arr, 'dtype', '')}"
        )
    pygame = _import_pygame()
    image = pygame.surfarray.make_surface(arr.swapaxes(0, 1) if transpose else arr)
    image = pygame.transform.scale(image, video_size)
    screen_width, screen_height = screen.get_size()
    offset = ((screen_width - video_size[0]) / 2, (screen_height - video_size[1]) / 2)
    screen.fill((0, 0, 0))
    screen.blit(image, offset)


def play(
    env: Env[Any, ActType],
    transpose: bool | None = True,
    fps: int | None = None,
    zoom: float | None = None,
    callback: Callable | None = None,
    keys_to_action: dict[Any, ActType] | None = None,
    seed: int | None = None,
    noop: ActType | int = 0,
    wait_on_player: bool = False,
) -> None:
    """Play ``env`` with the keyboard until the window is closed or Escape is pressed.

    Every frame, the held keys pick an action (``noop`` when no mapped combination is held)
    and the env steps; a finished episode is reset. With ``wait_on_player`` the env only steps
    while a key is held (for turn-based games).

    Args:
        env: an env with render mode ``"rgb_array"`` or ``"rgb_array_list"``.
        transpose: whether frames are (height, width, 3) images (the usual layout).
        fps: steps per second; ``env.metadata["render_fps"]`` (else 30) if ``None``.
        zoom: scale factor of the window.
        callback: called after every step as
            ``callback(obs_t, obs_tp1, action, rew, terminated, truncated, info)``.
        keys_to_action: key combination -> action. A combination is a key code, a character,
            a tuple of either, or a string of characters (``"wa"``: w and a together); the
            empty combination ``()`` names the action while no key is held (Gymnasium rejects
            it, although its MountainCar mapping uses it). If ``None``, the env's
            ``get_keys_to_action()``, as in Gymnasium (:func:`default_keys_to_action` also
            knows the classic-control envs).
        seed: the seed of every reset.
        noop: the action when no mapped combination is held (a mapping for the empty
            combination ``()`` takes precedence when no key is held).
        wait_on_player: step only while a key is held.

    Raises:
        MissingKeysToAction: if no mapping is given or known.
        TypeError: if ``keys_to_action`` is not a dict of key combinations.
        ValueError: for an action outside the action space, or a render mode that is not
            ``rgb_array``/``rgb_array_list``.

    Example:
        >>> import pygame
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1", render_mode="rgb_array")
        >>> def quit_after_three(obs_t, obs_tp1, action, rew, terminated, truncated, info):
        ...     quit_after_three.steps += 1
        ...     if quit_after_three.steps == 3:
        ...         pygame.event.post(pygame.event.Event(pygame.QUIT))
        >>> quit_after_three.steps = 0
        >>> play(env, keys_to_action={"a": 0, "d": 1}, fps=1000, seed=0, callback=quit_after_three)
        >>> quit_after_three.steps
        3
    """
    env.reset(seed=seed)
    if keys_to_action is None:
        keys_to_action = env_keys_to_action(env)
    _check_keys_to_action(keys_to_action, env.action_space)
    key_code_to_action = {_key_codes(keys): action for keys, action in keys_to_action.items()}
    game = PlayableGame(env, key_code_to_action, zoom)

    if fps is None:
        fps = env.metadata.get("render_fps", 30)
        if not isinstance(fps, int):
            raise TypeError(
                f"Expected env.metadata['render_fps'] to be an integer, got {type(fps)}"
            )

    pygame = _import_pygame()
    clock = pygame.time.Clock()
    episode_over, obs = True, None
    while game.running:
        if episode_over:
            episode_over = False
            obs = env.reset(seed=seed)
        elif not wait_on_player or game.pressed_keys:
            action = key_code_to_action.get(tuple(sorted(game.pressed_keys)), noop)
            prev_obs = obs
            obs, rew, terminated, truncated, info = env.step(action)
            episode_over = terminated or truncated
            if callback is not None:
                callback(prev_obs, obs, action, rew, terminated, truncated, info)
        display_arr(game.screen, _frame_of(env.render()), game.video_size, transpose)
        for event in pygame.event.get():
            game.process_event(event)
        pygame.display.flip()
        clock.tick(fps)
    pygame.quit()


class PlayPlot:
    """Live scatter plots of metrics computed from each transition, as a :func:`play` callback.

    Args:
        callback: ``(obs_t, obs_tp1, action, rew, terminated, truncated, info)`` -> one value
            per plot.
        horizon_timesteps: how many recent steps the plots show.
        plot_names: the plots' titles.

    Raises:
        DependencyNotInstalled: if matplotlib is missing.

    Example:
        >>> plotter = PlayPlot(lambda *t: [t[3]], horizon_timesteps=10, plot_names=["reward"])
        >>> plotter.callback(None, None, 0, 1.0, False, False, {})
        >>> list(plotter.data[0])
        [1.0]
    """

    def __init__(
        self,
        callback: Callable[..., Iterable[Any]],
        horizon_timesteps: int,
        plot_names: list[str],
    ) -> None:
        self.data_callback = callback
        self.horizon_timesteps = horizon_timesteps
        self.plot_names = plot_names
        self._plt = _import_pyplot()
        self.fig, axes = self._plt.subplots(len(plot_names))
        self.ax = list(np.atleast_1d(axes))
        for axis, name in zip(self.ax, plot_names, strict=True):
            axis.set_title(name)
        self.t = 0
        self.cur_plot: list[Any] = [None] * len(plot_names)
        self.data: list[deque] = [deque(maxlen=horizon_timesteps) for _ in plot_names]

    def callback(
        self,
        obs_t: Any,
        obs_tp1: Any,
        action: Any,
        rew: float,
        terminated: bool,
        truncated: bool,
        info: dict,
    ) -> None:
        """Compute this transition's metrics and redraw the plots.

        Args:
            obs_t: the observation before the step.
            obs_tp1: the observation after it.
            action: the action taken.
            rew: the reward.
            terminated: whether the episode terminated.
            truncated: whether it was truncated.
            info: the step's info.

        Raises:
            ValueError: if the callback returns a number of values other than one per plot.
        """
        points = list(self.data_callback(obs_t, obs_tp1, action, rew, terminated, truncated, info))
        if len(points) != len(self.data):
            raise ValueError(
                f"The PlayPlot callback returned {len(points)} values ({points!r}) but there are "
                f"{len(self.data)} plots ({self.plot_names}); return one value per plot name."
            )
        for point, series in zip(points, self.data):
            series.append(point)
        self.t += 1
        first = max(0, self.t - self.horizon_timesteps)
        for i, axis in enumerate(self.ax):
            if self.cur_plot[i] is not None:
                self.cur_plot[i].remove()
            self.cur_plot[i] = axis.scatter(range(first, self.t), list(self.data[i]), c="blue")
            axis.set_xlim(first, self.t)
        self._plt.pause(0.000001)


def _import_pyplot() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise DependencyNotInstalled(
            'matplotlib is not installed, run `pip install "palaestra[train]"`'
        ) from e
    return plt
