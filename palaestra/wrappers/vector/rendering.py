"""Rendering wrappers for vector envs: a tiled pygame window and tiled video recording.

Both put the sub-envs' frames side by side in one image, row by row.

Example:
    >>> import numpy as np
    >>> frames = [np.full((2, 3, 3), i, dtype=np.uint8) for i in range(4)]
    >>> tile_frames(frames, rows=2, cols=2)[:, :, 0]
    array([[0, 0, 0, 1, 1, 1],
           [0, 0, 0, 1, 1, 1],
           [2, 2, 2, 3, 3, 3],
           [2, 2, 2, 3, 3, 3]], dtype=uint8)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from palaestra import logger
from palaestra.core import ActType, ObsType, RenderFrame
from palaestra.utils.record_constructor import RecordConstructorArgs
from palaestra.vector import VectorEnv, VectorWrapper
from palaestra.vector.episodes import NEXT_STEP, SAME_STEP, EpisodeMasks
from palaestra.wrappers.rendering import (
    _HumanDisplay,
    _VideoRecorder,
    collect_garbage_every_episode,
)

__all__ = ["HumanRendering", "RecordVideo", "tile_frames"]


def tile_frames(frames: Sequence[np.ndarray], rows: int, cols: int) -> np.ndarray:
    """Lay equally sized HxWxC frames out row by row on a ``rows`` x ``cols`` black grid.

    Args:
        frames: at most ``rows * cols`` frames of the same shape.
        rows: the grid's rows.
        cols: the grid's columns.

    Raises:
        ValueError: if the frames do not fit on the grid.

    Example:
        >>> tile_frames([np.ones((1, 1, 3), dtype=np.uint8)] * 2, rows=1, cols=3)[..., 0]
        array([[1, 1, 0]], dtype=uint8)
    """
    stack = np.asarray(frames)
    count, height, width, channels = stack.shape
    if count > rows * cols:
        raise ValueError(f"Cannot place {count} frames on a {rows}x{cols} grid.")
    grid = np.zeros((rows * cols, height, width, channels), dtype=stack.dtype)
    grid[:count] = stack
    # (rows, cols, h, w, c) -> (rows, h, cols, w, c) puts each grid row's frames side by side.
    grid = grid.reshape(rows, cols, height, width, channels).transpose(0, 2, 1, 3, 4)
    return grid.reshape(rows * height, cols * width, channels)


def grid_for_aspect(
    count: int, height: int, width: int, aspect: tuple[int, int]
) -> tuple[int, int]:
    """Choose ``(rows, cols)`` with ``rows * cols == count`` whose image is closest to ``aspect``.

    Args:
        count: the number of frames.
        height: one frame's height.
        width: one frame's width.
        aspect: the wanted width:height ratio, e.g. ``(16, 9)``.

    Example:
        >>> grid_for_aspect(6, height=100, width=100, aspect=(1, 1))
        (2, 3)
    """
    target = aspect[0] / aspect[1]
    divisors = [rows for rows in range(1, int(count**0.5) + 1) if count % rows == 0]
    rows = min(divisors, key=lambda r: abs((count // r) * width / (r * height) - target))
    return rows, count // rows


def grid_for_screen(
    count: int, frame_size: tuple[int, int], screen_size: tuple[int, int]
) -> tuple[int, int]:
    """Choose ``(rows, cols)`` for ``count`` frames so the grid's shape best fills the screen.

    Rows or columns are added one at a time, whichever keeps the grid's aspect nearest the
    screen's (both when tied), until every frame has a cell.

    Args:
        count: the number of frames.
        frame_size: one frame's (width, height).
        screen_size: the window's (width, height).

    Example:
        >>> grid_for_screen(3, frame_size=(600, 400), screen_size=(600, 400))
        (2, 2)
    """
    width_ratio = frame_size[0] / screen_size[0]
    height_ratio = frame_size[1] / screen_size[1]
    rows, cols = 1, 1
    while rows * cols < count:
        grid_height, grid_width = rows * height_ratio, cols * width_ratio
        if grid_height == grid_width:
            rows, cols = rows + 1, cols + 1
        elif grid_height > grid_width:
            cols += 1
        else:
            rows += 1
    return rows, cols


def _resize_nearest(frame: np.ndarray, height: int, width: int) -> np.ndarray:
    rows = np.arange(height) * frame.shape[0] // height
    cols = np.arange(width) * frame.shape[1] // width
    return frame[rows][:, cols]


class HumanRendering(_HumanDisplay, VectorWrapper, RecordConstructorArgs):
    """Show all sub-envs of a vector env, tiled, in one pygame window.

    Args:
        env: a vector env rendering images, with ``"render_fps"`` in its metadata.
        screen_size: the window's (width, height); one sub-env frame's size if ``None``.
            The sub-env frames are scaled down to fit.

    Raises:
        ValueError: if the render mode or ``render_fps`` is missing.
        DependencyNotInstalled: (on the first frame) if pygame is missing.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec(
        ...     "CartPole-v1", num_envs=3, vectorization_mode="sync", render_mode="rgb_array"
        ... )
        >>> envs = HumanRendering(envs)
        >>> _ = envs.reset(seed=0)
        >>> envs.num_rows, envs.num_cols
        (2, 2)
        >>> envs.close()
    """

    def __init__(self, env: VectorEnv, screen_size: tuple[int, int] | None = None):
        VectorWrapper.__init__(self, env)
        RecordConstructorArgs.__init__(self, screen_size=screen_size)
        self.screen_size = screen_size
        self.scaled_subenv_size: tuple[int, int] | None = None
        self.num_rows: int | None = None
        self.num_cols: int | None = None
        self._setup_display()

    def step(self, actions: ActType) -> tuple[ObsType, Any, Any, Any, dict[str, Any]]:
        """Step the sub-envs and draw their new frames."""
        result = self.env.step(actions)
        self._render_frame()
        return result

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset the sub-envs and draw their first frames."""
        result = self.env.reset(seed=seed, options=options)
        self._render_frame()
        return result

    def _plan_layout(self, frame_height: int, frame_width: int) -> None:
        if self.screen_size is None:
            self.screen_size = (frame_width, frame_height)
        rows, cols = grid_for_screen(
            self.num_envs, (frame_width, frame_height), tuple(self.screen_size)
        )
        scale = min(
            self.screen_size[0] / (cols * frame_width), self.screen_size[1] / (rows * frame_height)
        )
        self.num_rows, self.num_cols = rows, cols
        self.scaled_subenv_size = (int(frame_width * scale), int(frame_height * scale))

    def _render_frame(self) -> None:
        frames = self.env.render()
        if frames is None or len(frames) != self.num_envs:
            raise ValueError(
                f"Expected env.render() to return one frame per sub-env ({self.num_envs}), "
                f"got {frames!r:.80}"
            )
        if not all(isinstance(frame, np.ndarray) for frame in frames):
            # AssertionError, with Gymnasium's text: what its vector HumanRendering raises.
            raise AssertionError(
                "Expected `env.render()` to return a numpy array, actually returned "
                f"{[type(frame) for frame in frames]} (a vector env of sub-envs made with "
                "render_mode='rgb_array_list' renders lists; use 'rgb_array')"
            )
        if self.scaled_subenv_size is None:
            self._plan_layout(*frames[0].shape[:2])
        cell_width, cell_height = self.scaled_subenv_size
        cells = [
            _resize_nearest(np.asarray(f, dtype=np.uint8), cell_height, cell_width) for f in frames
        ]
        tiled = tile_frames(cells, self.num_rows, self.num_cols)
        screen = np.zeros((self.screen_size[1], self.screen_size[0], 3), dtype=np.uint8)
        screen[: tiled.shape[0], : tiled.shape[1]] = tiled[: screen.shape[0], : screen.shape[1]]
        self._window.show(screen, self.metadata["render_fps"])

    def close(self, **kwargs: Any) -> None:
        """Close the window, then the vector env."""
        self._window.close()
        self.env.close(**kwargs)


class RecordVideo(_VideoRecorder, VectorWrapper, RecordConstructorArgs):
    """Film a vector env to mp4, all sub-envs tiled into each video frame.

    Episodes are those of sub-env 0: ``episode_trigger(i)`` starts
    ``{name_prefix}-episode-{i}.mp4`` when sub-env 0 begins episode ``i`` (also across
    autoresets), and ``step_trigger(s)`` starts ``{name_prefix}-step-{s}.mp4`` at vector step
    ``s``. In same-step autoreset mode the last frame of an episode is not filmed.

    Args:
        env: a vector env rendering images.
        video_folder: where videos are written; created if missing.
        video_aspect_ratio: the wanted width:height of the tiled frame.
        record_first_only: film only sub-env 0.
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
        >>> envs = gym.make_vec(
        ...     "CartPole-v1", num_envs=2, vectorization_mode="sync", render_mode="rgb_array"
        ... )
        >>> envs = RecordVideo(envs, folder, step_trigger=lambda s: s == 0, video_length=3)
        >>> _ = envs.reset(seed=0)
        >>> for _ in range(5):
        ...     _ = envs.step(envs.action_space.sample())
        >>> envs.close()
        >>> os.listdir(folder)
        ['rl-video-step-0.mp4']
    """

    def __init__(
        self,
        env: VectorEnv,
        video_folder: str,
        video_aspect_ratio: tuple[int, int] = (1, 1),
        record_first_only: bool = False,
        episode_trigger: Callable[[int], bool] | None = None,
        step_trigger: Callable[[int], bool] | None = None,
        video_length: int = 0,
        name_prefix: str = "rl-video",
        fps: int | None = None,
        disable_logger: bool = True,
        gc_trigger: Callable[[int], bool] | None = collect_garbage_every_episode,
    ):
        VectorWrapper.__init__(self, env)
        RecordConstructorArgs.__init__(
            self,
            video_folder=video_folder,
            video_aspect_ratio=video_aspect_ratio,
            record_first_only=record_first_only,
            episode_trigger=episode_trigger,
            step_trigger=step_trigger,
            video_length=video_length,
            name_prefix=name_prefix,
            fps=fps,
            disable_logger=disable_logger,
            gc_trigger=gc_trigger,
        )
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
        self._masks = EpisodeMasks.of(env)
        self.autoreset_mode = self._masks.mode
        if self.autoreset_mode is SAME_STEP:
            logger.warn(
                "Vector environment's autoreset mode is same-step "
                "(https://farama.org/Vector-Autoreset-Mode). Recorded episodes will not contain "
                "the last frame of the episode."
            )
        self.record_first_only = record_first_only
        self.video_aspect_ratio = video_aspect_ratio
        self.frame_rows, self.frame_cols = -1, -1

    @property
    def has_autoreset(self) -> bool:
        """Whether sub-env 0's episode ended on the last step, so the next step resets it."""
        return self.autoreset_mode is NEXT_STEP and bool(self._masks.previous_ends[0])

    def _capture_frame(self) -> None:
        frames = self.env.render()
        if not isinstance(frames, Sequence) or len(frames) != self.num_envs:
            raise ValueError(
                f"Expected env.render() to return one frame per sub-env ({self.num_envs}), "
                f"got {type(frames)}"
            )
        if self.record_first_only:
            frames = [frames[0]]
        if self.frame_rows == -1:
            height, width = frames[0].shape[:2]
            self.frame_rows, self.frame_cols = grid_for_aspect(
                len(frames), height, width, self.video_aspect_ratio
            )
        self._keep_frame(tile_frames(frames, self.frame_rows, self.frame_cols))

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset the sub-envs; a reset of sub-env 0 counts as a new episode."""
        if options is None or "reset_mask" not in options or options["reset_mask"][0]:
            self._new_episode()
        obs, info = self.env.reset(seed=seed, options=options)
        self._film_if_recording()
        # As Gymnasium's: any reset, partial or not, cancels a pending autoreset of sub-env 0.
        self._masks.reset()
        return obs, info

    def step(self, actions: ActType) -> tuple[ObsType, Any, Any, Any, dict[str, Any]]:
        """Step the sub-envs and add the tiled frame to the video in progress."""
        obs, rewards, terminations, truncations, info = self.env.step(actions)
        if self._masks.step(terminations, truncations).starts[0]:
            self._new_episode()
        self._new_step()
        self._film_if_recording()
        return obs, rewards, terminations, truncations, info

    def render(self) -> RenderFrame | list[RenderFrame]:
        """Render the sub-envs."""
        return self._frames_with_history(self.env.render())

    def close(self, **kwargs: Any) -> None:
        """Close the vector env and save the video in progress."""
        self.env.close(**kwargs)
        if self.recording:
            self.stop_recording()
