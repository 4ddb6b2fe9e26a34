"""Wrappers built on an environment's rendering: video, windows, frame lists and pixel noise.

* :class:`RenderCollection` - ``render`` returns the list of frames since it was last called.
* :class:`RecordVideo` - films chosen episodes or step ranges to mp4 files.
* :class:`HumanRendering` - shows an ``rgb_array`` env in a pygame window.
* :class:`AddRenderObservation` - puts the rendered image into the observation.
* :class:`AddWhiteNoise` - replaces random pixels of the rendering with noise.
* :class:`ObstructView` - covers random square patches of the rendering with noise.

Example:
    >>> import palaestra as gym
    >>> env = gym.wrappers.RenderCollection(gym.make("CartPole-v1", render_mode="rgb_array"))
    >>> _ = env.reset(seed=0)
    >>> _ = env.step(0)
    >>> [frame.shape for frame in env.render()]
    [(400, 600, 3), (400, 600, 3)]
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable
from copy import deepcopy
from typing import Any, SupportsFloat

import numpy as np

from palaestra import logger
from palaestra.core import ActType, Env, ObsType, RenderFrame, Wrapper
from palaestra.error import DependencyNotInstalled
from palaestra.utils.record_constructor import RecordConstructorArgs
from palaestra.utils.save_video import (
    _import_imageio,
    capped_cubic_video_schedule,
    write_mp4,
)
from palaestra.wrappers.transform_observation import AddRenderObservation
from palaestra.wrappers.utils import check_chance

__all__ = [
    "RenderCollection",
    "RecordVideo",
    "HumanRendering",
    "AddRenderObservation",
    "AddWhiteNoise",
    "ObstructView",
]

_PYGAME_HINT = 'pygame is not installed, run `pip install "palaestra[classic-control]"`'

# Luma weights of ITU-R BT.601: the share of each RGB channel in a gray level.
_GRAY_WEIGHTS = np.array([0.2989, 0.5870, 0.1140])


def collect_garbage_every_episode(episode_id: int) -> bool:
    """Answer ``True`` always: the default ``gc_trigger`` of :class:`RecordVideo`.

    Args:
        episode_id: the episode index when a video was saved.

    Example:
        >>> collect_garbage_every_episode(7)
        True
    """
    return True


def _import_pygame() -> Any:
    try:
        import pygame
    except ImportError as e:
        raise DependencyNotInstalled(_PYGAME_HINT) from e
    return pygame


class RenderCollection(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Collect a frame after every reset and step, so ``render`` returns a list of frames.

    The wrapped env's render mode ``m`` becomes ``m + "_list"``. No vector version exists.

    Args:
        env: an env with a frame-returning render mode such as ``"rgb_array"``.
        pop_frames: empty the collection whenever ``render`` returns it.
        reset_clean: empty the collection on ``reset``.

    Raises:
        ValueError: if the env has no render mode or its mode already ends in ``"_list"``.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1", render_mode="rgb_array")
        >>> env = RenderCollection(env, pop_frames=False)
        >>> env.render_mode
        'rgb_array_list'
        >>> _ = env.reset(seed=123)
        >>> for _ in range(3):
        ...     _ = env.step(1)
        >>> len(env.render()), len(env.render())
        (4, 4)
    """

    def __init__(
        self, env: Env[ObsType, ActType], pop_frames: bool = True, reset_clean: bool = True
    ):
        RecordConstructorArgs.__init__(self, pop_frames=pop_frames, reset_clean=reset_clean)
        Wrapper.__init__(self, env)

        if env.render_mode is None:
            raise ValueError("Expected env.render_mode to be not None")
        if env.render_mode.endswith("_list"):
            raise ValueError(
                f"Expected env.render_mode to not end with '_list', got '{env.render_mode}'"
            )

        self.frame_list: list[RenderFrame] = []
        self.pop_frames = pop_frames
        self.reset_clean = reset_clean

        self.metadata = deepcopy(self.env.metadata)
        list_mode = f"{self.env.render_mode}_list"
        if list_mode not in self.metadata["render_modes"]:
            self.metadata["render_modes"] = [*self.metadata["render_modes"], list_mode]

    @property
    def render_mode(self) -> str:
        """The wrapped env's render mode with ``"_list"`` appended."""
        return f"{self.env.render_mode}_list"

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env and keep the frame it renders afterwards."""
        result = self.env.step(action)
        self.frame_list.append(self.env.render())
        return result

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset the env (emptying the collection if ``reset_clean``) and keep the first frame."""
        result = self.env.reset(seed=seed, options=options)
        if self.reset_clean:
            self.frame_list = []
        self.frame_list.append(self.env.render())
        return result

    def render(self) -> list[RenderFrame]:
        """Return the collected frames, emptying the collection if ``pop_frames``."""
        frames = self.frame_list
        if self.pop_frames:
            self.frame_list = []
        return frames


def _check_frame_render_mode(render_mode: str | None, wrapper_name: str) -> None:
    if render_mode in {None, "human", "ansi", "ansi_list"}:
        raise ValueError(
            f"Render mode is {render_mode}, which is incompatible with {wrapper_name}. "
            "Initialize your environment with a render_mode that returns an image, such as "
            "rgb_array."
        )


class _VideoRecorder:
    """The recording state shared by the single-env and vector :class:`RecordVideo` wrappers.

    Subclasses call :meth:`_setup_recorder` in ``__init__`` and :meth:`_keep_frame` with each
    frame; :meth:`start_recording` / :meth:`stop_recording` open and save videos.
    """

    episode_trigger: Callable[[int], bool] | None
    step_trigger: Callable[[int], bool] | None
    gc_trigger: Callable[[int], bool] | None
    video_folder: str
    frames_per_sec: float
    name_prefix: str
    video_length: float
    recording: bool
    recorded_frames: list[np.ndarray]
    render_history: list[np.ndarray]
    episode_id: int
    step_id: int
    _video_name: str | None

    def _setup_recorder(
        self,
        render_mode: str | None,
        video_folder: str,
        episode_trigger: Callable[[int], bool] | None,
        step_trigger: Callable[[int], bool] | None,
        video_length: int,
        name_prefix: str,
        fps: float | None,
        disable_logger: bool,
        gc_trigger: Callable[[int], bool] | None,
    ) -> None:
        _check_frame_render_mode(render_mode, type(self).__name__)
        if video_length < 0:
            raise ValueError(
                f"Expected video_length >= 0 (0 records whole episodes), got {video_length}."
            )
        _import_imageio()

        if episode_trigger is None and step_trigger is None:
            episode_trigger = capped_cubic_video_schedule
        self.episode_trigger = episode_trigger
        self.step_trigger = step_trigger
        self.gc_trigger = gc_trigger
        self.disable_logger = disable_logger

        self.video_folder = os.path.abspath(video_folder)
        if os.path.isdir(self.video_folder):
            logger.warn(
                "Overwriting existing videos at %s folder (try specifying a different "
                "`video_folder` for the `RecordVideo` wrapper if this is not desired)",
                self.video_folder,
            )
        os.makedirs(self.video_folder, exist_ok=True)

        self.frames_per_sec = self.metadata.get("render_fps", 30) if fps is None else fps
        self.name_prefix = name_prefix
        self.video_length = video_length if video_length != 0 else float("inf")
        self._video_name = None
        self.recording = False
        self.recorded_frames = []
        self.render_history = []
        self.episode_id = -1
        self.step_id = -1

    def _keep_frame(self, frame: Any) -> None:
        """Add a rendered frame to the video, stopping the recording if it is not an image."""
        if isinstance(frame, np.ndarray):
            self.recorded_frames.append(frame)
        else:
            self.stop_recording()
            logger.warn(
                "Recording stopped: expected type of frame returned by render to be a numpy "
                "array, got instead %s.",
                type(frame),
            )

    def _capture_frame(self) -> None:
        """Render and pass the frame to :meth:`_keep_frame`; each wrapper knows its frames."""
        raise NotImplementedError

    def _film_if_recording(self) -> None:
        """Add the current frame to the video in progress, ending it once long enough."""
        if not self.recording:
            return
        self._capture_frame()
        # Like Gymnasium, a clip ends once it holds more than ``video_length`` frames.
        if len(self.recorded_frames) > self.video_length:
            self.stop_recording()

    def _new_episode(self) -> None:
        """Count an episode start: end a whole-episode video, maybe start the next one."""
        self.episode_id += 1
        if self.recording and self.video_length == float("inf"):
            self.stop_recording()
        if self.episode_trigger and self.episode_trigger(self.episode_id):
            self.start_recording(f"{self.name_prefix}-episode-{self.episode_id}")

    def _new_step(self) -> None:
        """Count a step and start a video there if the step trigger says so."""
        self.step_id += 1
        if self.step_trigger and self.step_trigger(self.step_id):
            self.start_recording(f"{self.name_prefix}-step-{self.step_id}")

    def start_recording(self, video_name: str) -> None:
        """Start a video named ``video_name``, saving the one in progress first.

        Args:
            video_name: the file name without ``.mp4``.
        """
        if self.recording:
            self.stop_recording()
        self.recording = True
        self._video_name = video_name

    def stop_recording(self) -> None:
        """Save the video in progress (if it has frames) and stop recording.

        Raises:
            RuntimeError: if no recording is in progress.
        """
        if not self.recording:
            raise RuntimeError("stop_recording was called, but no recording was started")
        if len(self.recorded_frames) == 0:
            logger.warn("Ignored saving a video as there were zero frames to save.")
        else:
            path = os.path.join(self.video_folder, f"{self._video_name}.mp4")
            write_mp4(self.recorded_frames, path, self.frames_per_sec, not self.disable_logger)
        self.recorded_frames = []
        self.recording = False
        self._video_name = None
        if self.gc_trigger and self.gc_trigger(self.episode_id):
            gc.collect()

    def _frames_with_history(self, render_out: Any) -> Any:
        """Return ``render``'s output, preceded by list frames the recorder consumed earlier."""
        if self.recording and isinstance(render_out, list):
            self.recorded_frames += render_out
        if self.render_history:
            history, self.render_history = self.render_history, []
            return history + render_out
        return render_out

    def __del__(self) -> None:
        # A half-built wrapper (``__init__`` raised) has no frames attribute at all.
        if getattr(self, "recorded_frames", None):
            logger.warn("Unable to save last video! Did you call close()?")


class RecordVideo(
    _VideoRecorder, Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs
):
    """Film episodes (or stretches of steps) of an env to mp4 files in ``video_folder``.

    ``episode_trigger(i)`` starts a video ``{name_prefix}-episode-{i}.mp4`` at the reset that
    begins episode ``i``; ``step_trigger(s)`` starts ``{name_prefix}-step-{s}.mp4`` at global
    step ``s`` (counted over all episodes from 0). With neither, episodes are chosen by
    :func:`~palaestra.utils.save_video.capped_cubic_video_schedule`. With ``video_length=0``
    a video runs to the next reset; otherwise it stops once it holds more than
    ``video_length`` frames, possibly spanning episodes. ``close`` saves a video in progress.

    Args:
        env: an env rendering images (``"rgb_array"`` or ``"rgb_array_list"``).
        video_folder: where videos are written; created if missing.
        episode_trigger: episode index -> whether to start recording.
        step_trigger: step index -> whether to start recording.
        video_length: a video ends once it holds more than this many frames (so it has
            ``video_length + 1``, as in Gymnasium); 0 for whole episodes.
        name_prefix: the start of every file name.
        fps: frame rate of the videos; ``env.metadata["render_fps"]`` (else 30) if ``None``.
        disable_logger: if ``False``, print a line for every video written.
        gc_trigger: episode index -> whether to run the garbage collector after saving.

    Raises:
        ValueError: if the render mode does not produce images, or ``video_length < 0``.
        DependencyNotInstalled: if imageio with its ffmpeg plugin is missing.

    Example:
        >>> import os, tempfile
        >>> import palaestra as gym
        >>> folder = os.path.join(tempfile.mkdtemp(), "videos")
        >>> env = gym.make("CartPole-v1", render_mode="rgb_array")
        >>> env = RecordVideo(env, folder, episode_trigger=lambda i: i % 2 == 0, video_length=5)
        >>> for episode in range(3):
        ...     _ = env.reset(seed=episode)
        ...     for _ in range(4):
        ...         _ = env.step(0)
        >>> env.close()
        >>> sorted(os.listdir(folder))
        ['rl-video-episode-0.mp4', 'rl-video-episode-2.mp4']
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        video_folder: str,
        episode_trigger: Callable[[int], bool] | None = None,
        step_trigger: Callable[[int], bool] | None = None,
        video_length: int = 0,
        name_prefix: str = "rl-video",
        fps: int | None = None,
        disable_logger: bool = True,
        gc_trigger: Callable[[int], bool] | None = collect_garbage_every_episode,
    ):
        RecordConstructorArgs.__init__(
            self,
            video_folder=video_folder,
            episode_trigger=episode_trigger,
            step_trigger=step_trigger,
            video_length=video_length,
            name_prefix=name_prefix,
            fps=fps,
            disable_logger=disable_logger,
            gc_trigger=gc_trigger,
        )
        Wrapper.__init__(self, env)
        self._setup_recorder(
            env.render_mode,
            video_folder,
            episode_trigger,
            step_trigger,
            video_length,
            name_prefix,
            fps,
            disable_logger,
            gc_trigger,
        )

    def _capture_frame(self) -> None:
        frame = self.env.render()
        if isinstance(frame, list):
            if len(frame) == 0:
                logger.warn(
                    "Trying to capture render frame but 'env.render()' has just been called. "
                    "The frame cannot be captured."
                )
                return
            # The frames are handed back by this wrapper's next ``render`` call.
            self.render_history += frame
            frame = frame[-1]
        self._keep_frame(frame)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset the env, end a whole-episode video and start one if the trigger says so."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._new_episode()
        self._film_if_recording()
        return obs, info

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env and add the new frame to the video in progress."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._new_step()
        self._film_if_recording()
        return obs, reward, terminated, truncated, info

    def render(self) -> RenderFrame | list[RenderFrame]:
        """Render the env; in list modes also return frames the recorder took from it."""
        return self._frames_with_history(self.env.render())

    def close(self) -> None:
        """Close the env and save the video in progress."""
        self.env.close()
        if self.recording:
            self.stop_recording()


class _FrameWindow:
    """A pygame window showing HxWx3 frames, opened on the first frame, paced to ``fps``."""

    def __init__(self) -> None:
        self.window: Any = None
        self.clock: Any = None

    def show(self, frame: np.ndarray, fps: float) -> None:
        """Draw ``frame`` (HxWx3 uint8) and wait so frames come at most ``fps`` per second."""
        pygame = _import_pygame()
        # pygame surfaces index pixels as (x, y), images as (row, column).
        columns_first = np.transpose(frame, axes=(1, 0, 2))
        if self.window is None:
            pygame.display.init()
            self.window = pygame.display.set_mode(columns_first.shape[:2])
            self.clock = pygame.time.Clock()
        self.window.blit(pygame.surfarray.make_surface(columns_first), (0, 0))
        pygame.event.pump()
        self.clock.tick(fps)
        pygame.display.flip()

    def close(self) -> None:
        """Close the window, if one was opened."""
        if self.window is not None:
            pygame = _import_pygame()
            pygame.display.quit()
            pygame.quit()
            self.window, self.clock = None, None


def _last_frame(rendered: Any) -> Any:
    return rendered[-1] if isinstance(rendered, list) else rendered


class _HumanDisplay:
    """The window plumbing shared by the single-env and vector :class:`HumanRendering`.

    Subclasses call :meth:`_setup_display` in ``__init__`` and draw with ``self._window``.
    """

    ACCEPTED_RENDER_MODES = ["rgb_array", "rgb_array_list", "depth_array", "depth_array_list"]

    env: Any
    metadata: dict[str, Any]

    def _setup_display(self) -> None:
        self._window = _FrameWindow()
        if self.env.render_mode not in self.ACCEPTED_RENDER_MODES:
            raise ValueError(
                f"Expected env.render_mode to be one of {self.ACCEPTED_RENDER_MODES} "
                f"but got '{self.env.render_mode}'"
            )
        if "render_fps" not in self.env.metadata:
            raise ValueError(
                "The base environment must specify 'render_fps' to be used with the "
                "HumanRendering wrapper"
            )
        if "human" not in self.metadata["render_modes"]:
            self.metadata = deepcopy(self.env.metadata)
            self.metadata["render_modes"] = [*self.metadata["render_modes"], "human"]

    @property
    def render_mode(self) -> str:
        """Always ``"human"``."""
        return "human"

    @property
    def window(self) -> Any:
        """The pygame display surface, or ``None`` before the first frame."""
        return self._window.window


class HumanRendering(
    _HumanDisplay, Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs
):
    """Show an env that renders images in a pygame window, paced by its ``render_fps``.

    Every ``reset`` and ``step`` draws the env's latest frame; ``render`` returns ``None``.
    ``make(..., render_mode="human")`` applies it to envs without native human rendering.

    Args:
        env: an env with render mode ``"rgb_array"``, ``"rgb_array_list"``, ``"depth_array"``
            or ``"depth_array_list"`` and ``"render_fps"`` in its metadata.

    Raises:
        ValueError: if the render mode or ``render_fps`` is missing.
        DependencyNotInstalled: (on the first frame) if pygame is missing.

    Example:
        >>> import palaestra as gym
        >>> env = HumanRendering(gym.make("CartPole-v1", render_mode="rgb_array"))
        >>> env.render_mode
        'human'
        >>> _ = env.reset(seed=0)
        >>> env.close()
    """

    def __init__(self, env: Env[ObsType, ActType]):
        RecordConstructorArgs.__init__(self)
        Wrapper.__init__(self, env)
        self.screen_size: tuple[int, int] | None = None
        self._setup_display()

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env and draw its new frame."""
        result = self.env.step(action)
        self._render_frame()
        return result

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset the env and draw its first frame."""
        result = self.env.reset(seed=seed, options=options)
        self._render_frame()
        return result

    def render(self) -> None:
        """Do nothing: frames are drawn by ``reset`` and ``step``."""
        return None

    def _render_frame(self) -> None:
        frame = _last_frame(self.env.render())
        if not isinstance(frame, np.ndarray):
            raise TypeError(
                f"Expected `env.render()` to return a numpy array, actually returned {type(frame)}"
            )
        size = (frame.shape[1], frame.shape[0])
        if self.screen_size is None:
            self.screen_size = size
        if self.screen_size != size:
            raise ValueError(
                f"The shape of the rgb array has changed from {self.screen_size} to {size}"
            )
        self._window.show(frame, self.metadata["render_fps"])

    def close(self) -> None:
        """Close the window, then the env."""
        self._window.close()
        self.env.close()


def pixel_noise(rng: np.random.Generator, shape: tuple[int, ...], grayscale: bool) -> np.ndarray:
    """Draw a uint8 noise image of ``shape`` (HxWx3) from ``rng``.

    Colour noise draws every channel uniformly from 0..254; gray noise draws each channel up
    to its luma weight times 255 and gives all three channels their sum. The draws match
    Gymnasium's, so the same generator state gives the same noise.

    Args:
        rng: the random generator to draw from.
        shape: the image shape, channels last.
        grayscale: draw gray instead of colour noise.

    Example:
        >>> noise = pixel_noise(np.random.default_rng(0), (2, 3, 3), grayscale=True)
        >>> noise.dtype, bool((noise[..., 0] == noise[..., 2]).all())
        (dtype('uint8'), True)
    """
    if not grayscale:
        return rng.integers(0, 255, size=shape, dtype=np.uint8)
    channels = rng.integers((0, 0, 0), 255 * _GRAY_WEIGHTS, size=shape, dtype=np.uint8)
    gray = channels.sum(axis=-1, keepdims=True, dtype=np.uint16).astype(np.uint8)
    return np.repeat(gray, shape[-1], axis=-1)


def patch_mask(
    image_size: tuple[int, int], centers: tuple[np.ndarray, np.ndarray], width: int
) -> np.ndarray:
    """Mark ``width`` x ``width`` squares around ``centers`` (clipped at the image's edges).

    Args:
        image_size: (height, width) of the image.
        centers: row and column indices of the square centres.
        width: the side of each square; its centre is at offset ``width // 2``.

    Returns:
        A boolean (height, width) mask, ``True`` inside any square.

    Example:
        >>> patch_mask((3, 4), (np.array([0]), np.array([3])), 2).astype(int)
        array([[0, 0, 1, 1],
               [0, 0, 0, 0],
               [0, 0, 0, 0]])
    """
    mask = np.zeros(image_size, dtype=bool)
    before = width // 2
    # A plain loop of slice assignments beats vectorised versions here: for typical patch
    # counts (up to thousands) a difference-array cumsum over the whole image costs more.
    for row, col in zip(*centers):
        top, left = max(row - before, 0), max(col - before, 0)
        mask[top : row - before + width, left : col - before + width] = True
    return mask


class AddWhiteNoise(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Replace each pixel of the rendering with noise with a given probability.

    Combined with :class:`AddRenderObservation` this makes image observations noisy. The noise
    is drawn from the env's ``np_random`` exactly as Gymnasium draws it.

    Args:
        env: an env rendering ``rgb_array`` images.
        probability_of_noise_per_pixel: the chance, in [0, 1), that a pixel becomes noise.
        is_noise_grayscale: use gray noise instead of colour noise.

    Raises:
        InvalidProbability: if the probability is outside [0, 1).

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1", render_mode="rgb_array")
        >>> env = AddWhiteNoise(env, probability_of_noise_per_pixel=0.5)
        >>> _ = env.reset(seed=123)
        >>> env.render().shape
        (400, 600, 3)
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        probability_of_noise_per_pixel: float,
        is_noise_grayscale: bool = False,
    ):
        check_chance("probability_of_noise_per_pixel", probability_of_noise_per_pixel)
        RecordConstructorArgs.__init__(
            self,
            probability_of_noise_per_pixel=probability_of_noise_per_pixel,
            is_noise_grayscale=is_noise_grayscale,
        )
        Wrapper.__init__(self, env)
        self.probability_of_noise_per_pixel = probability_of_noise_per_pixel
        self.is_noise_grayscale = is_noise_grayscale

    def render(self) -> np.ndarray:
        """Render the env and replace random pixels with noise."""
        frame = self.env.render()
        noise = pixel_noise(self.np_random, frame.shape, self.is_noise_grayscale)
        mask = self.np_random.random(frame.shape[:2]) < self.probability_of_noise_per_pixel
        return np.where(mask[..., None], noise, frame)


class ObstructView(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Cover random square patches of the rendering with noise.

    About ``obstructed_pixels_ratio`` of the pixels are covered (less where patches overlap)
    by ``obstruction_width``-wide squares at fresh random places on every ``render``. Draws
    come from the env's ``np_random`` exactly as in Gymnasium.

    Args:
        env: an env rendering ``rgb_array`` images.
        obstructed_pixels_ratio: the share of pixels to cover, in [0, 1).
        obstruction_width: the side of each square patch, at least 1.
        is_noise_grayscale: use gray noise instead of colour noise.

    Raises:
        ValueError: if the ratio is outside [0, 1) or the width is below 1.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1", render_mode="rgb_array")
        >>> env = ObstructView(env, obstructed_pixels_ratio=0.5, obstruction_width=50)
        >>> _ = env.reset(seed=123)
        >>> env.render().shape
        (400, 600, 3)
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        obstructed_pixels_ratio: float,
        obstruction_width: int,
        is_noise_grayscale: bool = False,
    ):
        check_chance("obstructed_pixels_ratio", obstructed_pixels_ratio, ValueError)
        if obstruction_width < 1:
            raise ValueError(
                f"obstruction_width should be larger or equal than 1. Received {obstruction_width}"
            )
        RecordConstructorArgs.__init__(
            self,
            obstructed_pixels_ratio=obstructed_pixels_ratio,
            obstruction_width=obstruction_width,
            is_noise_grayscale=is_noise_grayscale,
        )
        Wrapper.__init__(self, env)
        self.obstruction_centers_ratio = obstructed_pixels_ratio / obstruction_width**2
        self.obstruction_width = obstruction_width
        self.is_noise_grayscale = is_noise_grayscale

    def render(self) -> np.ndarray:
        """Render the env and cover random patches with noise."""
        frame = self.env.render()
        height, width = frame.shape[:2]
        n_pixels = height * width
        n_patches = int(n_pixels * self.obstruction_centers_ratio)
        flat_centers = self.np_random.integers(0, n_pixels, n_patches)
        centers = np.unravel_index(flat_centers, (height, width))
        mask = patch_mask((height, width), centers, self.obstruction_width)
        noise = pixel_noise(self.np_random, frame.shape, self.is_noise_grayscale)
        return np.where(mask[..., None], noise, frame)
