"""Atari 2600 preprocessing in the style of Machado et al. (2018), "Revisiting the ALE".

:class:`AtariPreprocessing` works on any env whose ``unwrapped`` has an ALE-like ``ale``
attribute (``lives()``, ``getScreenGrayscale(buffer)``, ``getScreenRGB(buffer)``) and
``get_action_meanings()``: palaestra's Atari envs (made without frame skipping:
``palaestra.make("ALE/Pong-v5", frameskip=1)``), ale-py's own brought in with
:func:`palaestra.compat.from_gymnasium`, or a synthetic env of the same shape. On palaestra's
Atari envs it returns what Gymnasium's wrapper returns on ale-py's, step for step.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import numpy as np

from palaestra.core import ActType, Env, ObsType, Wrapper, WrapperObsType
from palaestra.spaces import Box
from palaestra.utils.record_constructor import RecordConstructorArgs
from palaestra.wrappers.transform_observation import _opencv_resizer
from palaestra.wrappers.utils import AreaResizer

__all__ = ["AtariPreprocessing"]


def _valid_screen_size(screen_size: Any) -> bool:
    if isinstance(screen_size, int):
        return screen_size > 0
    return (
        isinstance(screen_size, tuple)
        and len(screen_size) == 2
        and all(isinstance(size, int) and size > 0 for size in screen_size)
    )


class AtariPreprocessing(Wrapper[WrapperObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """The usual Atari preprocessing: no-op starts, frame skip with max-pooling, resize, gray.

    - **No-op reset**: after ``reset`` the env takes ``1..noop_max`` no-op actions (drawn
      from the env's ``np_random``; action 0 must mean ``"NOOP"``).
    - **Frame skip**: each ``step`` repeats the action ``frame_skip`` times, summing rewards,
      and observes the pixel-wise maximum of the last two screens (the base env itself must
      not skip frames: ``env.unwrapped._frameskip == 1``).
    - **Life loss**: with ``terminal_on_life_loss`` losing a life terminates the episode.
    - **Resize** to ``screen_size`` (an int for a square, or ``(width, height)``) by area
      averaging; OpenCV's ``INTER_AREA`` when ``cv2`` is installed, a numpy equivalent
      otherwise (Gymnasium requires OpenCV).
    - **Grayscale** screens by default (``grayscale_newaxis`` keeps a channel axis of 1);
      ``scale_obs`` returns float32 in ``[0, 1]`` instead of uint8.

    There is no vector version; stack frames with
    :class:`~palaestra.wrappers.FrameStackObservation`.

    Args:
        env: an ALE-like env (see the module docstring) with a ``Box`` observation space.
        noop_max: the most no-ops taken on reset; 0 disables them.
        frame_skip: how many frames each step lasts (positive).
        screen_size: the output size, an int or ``(width, height)``.
        terminal_on_life_loss: end the episode when a life is lost.
        grayscale_obs: observe grayscale screens instead of RGB.
        grayscale_newaxis: keep a trailing channel axis of size 1 on grayscale observations.
        scale_obs: observe float32 values in ``[0, 1]``.

    Raises:
        ValueError: for a non-positive ``frame_skip`` or ``screen_size``, a negative
            ``noop_max``, a base env that skips frames itself while ``frame_skip > 1``, or
            ``noop_max > 0`` when action 0 is not ``"NOOP"``.
        TypeError: if the observation space is not a ``Box``.

    Example:
        >>> import numpy as np
        >>> from palaestra import Env, spaces
        >>> class ALE:
        ...     def lives(self): return 3
        ...     def getScreenGrayscale(self, out): out[...] = 7
        ...     def getScreenRGB(self, out): out[...] = 7
        >>> class Arcade(Env):
        ...     observation_space = spaces.Box(0, 255, (210, 160, 3), np.uint8)
        ...     action_space = spaces.Discrete(4)
        ...     ale, _frameskip = ALE(), 1
        ...     def get_action_meanings(self): return ["NOOP", "FIRE", "LEFT", "RIGHT"]
        ...     def reset(self, *, seed=None, options=None):
        ...         super().reset(seed=seed)
        ...         return np.zeros((210, 160, 3), np.uint8), {}
        ...     def step(self, action):
        ...         return np.zeros((210, 160, 3), np.uint8), 1.0, False, False, {}
        >>> env = AtariPreprocessing(Arcade())
        >>> obs, info = env.reset(seed=0)
        >>> obs.shape, obs.dtype, int(obs[0, 0])
        ((84, 84), dtype('uint8'), 7)
        >>> env.step(1)[1]
        4.0
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        noop_max: int = 30,
        frame_skip: int = 4,
        screen_size: int | tuple[int, int] = 84,
        terminal_on_life_loss: bool = False,
        grayscale_obs: bool = True,
        grayscale_newaxis: bool = False,
        scale_obs: bool = False,
    ):
        RecordConstructorArgs.__init__(
            self,
            noop_max=noop_max,
            frame_skip=frame_skip,
            screen_size=screen_size,
            terminal_on_life_loss=terminal_on_life_loss,
            grayscale_obs=grayscale_obs,
            grayscale_newaxis=grayscale_newaxis,
            scale_obs=scale_obs,
        )
        Wrapper.__init__(self, env)
        self._check_arguments(env, noop_max, frame_skip, screen_size)
        self.noop_max = noop_max
        self.frame_skip = frame_skip
        self.screen_size: tuple[int, int] = (
            screen_size if isinstance(screen_size, tuple) else (screen_size, screen_size)
        )
        self.terminal_on_life_loss = terminal_on_life_loss
        self.grayscale_obs = grayscale_obs
        self.grayscale_newaxis = grayscale_newaxis
        self.scale_obs = scale_obs

        screen_shape = (
            env.observation_space.shape[:2] if grayscale_obs else env.observation_space.shape
        )
        # The two most recent screens, max-pooled into obs_buffer[0].
        self.obs_buffer = [np.empty(screen_shape, dtype=np.uint8) for _ in range(2)]
        self.lives = 0
        self.game_over = False

        width, height = self.screen_size
        shape: tuple[int, ...] = (height, width) if grayscale_obs else (height, width, 3)
        if grayscale_obs and grayscale_newaxis:
            shape = (*shape, 1)
        high, dtype = (1, np.float32) if scale_obs else (255, np.uint8)
        self.observation_space = Box(low=0, high=high, shape=shape, dtype=dtype)
        self._resize = _opencv_resizer((height, width, *screen_shape[2:])) or AreaResizer(
            screen_shape[:2], (height, width)
        )

    @staticmethod
    def _check_arguments(env: Env, noop_max: int, frame_skip: int, screen_size: Any) -> None:
        if frame_skip <= 0:
            raise ValueError(f"Expect the `frame_skip` to be positive, actually: {frame_skip}")
        if not _valid_screen_size(screen_size):
            raise ValueError(f"Expect the `screen_size` to be positive, actually: {screen_size}")
        if frame_skip > 1 and getattr(env.unwrapped, "_frameskip", None) != 1:
            raise ValueError(
                "Disable frame-skipping in the original env. Otherwise, more than one frame-skip "
                "will happen as through this wrapper (make the env with frameskip=1)"
            )
        if noop_max < 0:
            raise ValueError(f"Expect the `noop_max` to be non-negative, actually: {noop_max}")
        if noop_max > 0 and env.unwrapped.get_action_meanings()[0] != "NOOP":
            raise ValueError("When noop_max > 0, the first action meaning must be 'NOOP'")
        if not isinstance(env.observation_space, Box):
            raise TypeError(
                "AtariPreprocessing wrapper requires a Box observation space, "
                f"got {type(env.observation_space)}"
            )

    @property
    def ale(self) -> Any:
        """The base env's Arcade Learning Environment interface."""
        return self.env.unwrapped.ale

    def _grab_screen(self, buffer: np.ndarray) -> None:
        if self.grayscale_obs:
            self.ale.getScreenGrayscale(buffer)
        else:
            self.ale.getScreenRGB(buffer)

    def step(self, action: ActType) -> tuple[WrapperObsType, SupportsFloat, bool, bool, dict]:
        """Repeat ``action`` for ``frame_skip`` frames; return the pooled, resized screen."""
        total_reward, terminated, truncated, info = 0.0, False, False, {}
        for frame in range(self.frame_skip):
            _, reward, terminated, truncated, info = self.env.step(action)
            total_reward += reward
            self.game_over = terminated
            if self.terminal_on_life_loss:
                lives = self.ale.lives()
                terminated = terminated or lives < self.lives
                self.game_over = terminated
                self.lives = lives
            if terminated or truncated:
                break
            if frame == self.frame_skip - 2:
                self._grab_screen(self.obs_buffer[1])
            elif frame == self.frame_skip - 1:
                self._grab_screen(self.obs_buffer[0])
        return self._observation(), total_reward, terminated, truncated, info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[WrapperObsType, dict[str, Any]]:
        """Reset, take the random no-ops, and return the first preprocessed screen."""
        _, info = self.env.reset(seed=seed, options=options)
        noops = self.env.unwrapped.np_random.integers(1, self.noop_max + 1) if self.noop_max else 0
        for _ in range(noops):
            _, _, terminated, truncated, step_info = self.env.step(0)
            info.update(step_info)
            if terminated or truncated:
                _, info = self.env.reset(seed=seed, options=options)
        self.lives = self.ale.lives()
        self._grab_screen(self.obs_buffer[0])
        self.obs_buffer[1].fill(0)
        return self._observation(), info

    def _observation(self) -> Any:
        if self.frame_skip > 1:
            np.maximum(self.obs_buffer[0], self.obs_buffer[1], out=self.obs_buffer[0])
        resized = self._resize(self.obs_buffer[0]).reshape(self.observation_space.shape)
        if self.scale_obs:
            return np.asarray(resized, dtype=np.float32) / 255.0
        return np.asarray(resized, dtype=np.uint8)
