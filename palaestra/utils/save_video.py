"""Writing rendered frames to mp4 files, and the default schedule of which episodes to film.

Videos are encoded with imageio's ffmpeg plugin (the ``video`` extra), imported only when a
video is actually written, so importing this module costs nothing.

Example:
    >>> from palaestra.utils.save_video import capped_cubic_video_schedule
    >>> [n for n in range(30) if capped_cubic_video_schedule(n)]
    [0, 1, 8, 27]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from palaestra import logger
from palaestra.error import DependencyNotInstalled

__all__ = ["capped_cubic_video_schedule", "save_video", "write_mp4"]

_VIDEO_EXTRA_HINT = 'run `pip install "palaestra[video]"`'


def capped_cubic_video_schedule(episode_id: int) -> bool:
    """Decide, as the default episode trigger, to film perfect cubes below 1000, then every 1000th.

    That is episodes 0, 1, 8, 27, ..., 729, 1000, 2000, 3000, ...

    Args:
        episode_id: the episode's index, counted from 0.

    Returns:
        Whether that episode is filmed.

    Example:
        >>> capped_cubic_video_schedule(64), capped_cubic_video_schedule(65)
        (True, False)
        >>> capped_cubic_video_schedule(2000), capped_cubic_video_schedule(1331)
        (True, False)
    """
    if episode_id < 1000:
        return round(episode_id ** (1 / 3)) ** 3 == episode_id
    return episode_id % 1000 == 0


def _import_imageio() -> Any:
    try:
        import imageio
        import imageio_ffmpeg  # noqa: F401  (imageio's ffmpeg plugin needs it)
    except ImportError as e:
        raise DependencyNotInstalled(
            f"Writing videos needs imageio with its ffmpeg plugin, {_VIDEO_EXTRA_HINT}"
        ) from e
    return imageio


def _even_sized(frame: np.ndarray) -> np.ndarray:
    """Pad a frame with black on the bottom/right to even sides, as yuv420p h264 requires."""
    height, width = frame.shape[:2]
    pad = ((0, height % 2), (0, width % 2)) + ((0, 0),) * (frame.ndim - 2)
    return np.pad(frame, pad) if height % 2 or width % 2 else frame


def _as_video_frame(frame: Any) -> np.ndarray:
    """Check a rendered frame is an image and make it uint8 RGB with even sides."""
    array = np.asarray(frame)
    if array.ndim == 2:
        array = np.repeat(array[..., None], 3, axis=-1)
    if array.ndim != 3 or array.shape[-1] not in (1, 3, 4):
        raise ValueError(
            f"Expected video frames of shape (height, width, 3), got shape {array.shape}; "
            "render with render_mode='rgb_array' to get images."
        )
    if array.dtype != np.uint8:
        array = np.clip(array, 0, 255).astype(np.uint8)
    return _even_sized(array)


def write_mp4(
    frames: Iterable[np.ndarray],
    path: str | os.PathLike[str],
    fps: float,
    show_progress: bool = False,
    **writer_kwargs: Any,
) -> str:
    """Encode ``frames`` as an h264 mp4 at ``path`` and return the path written.

    Frames are encoded as they come, so a generator can stream a long recording without
    holding it in memory. They keep their exact size: odd sides are padded by one black
    pixel, never rescaled.

    Args:
        frames: HxWx3 uint8 images, all the same size.
        path: the file to write; its folder must exist.
        fps: frames per second stored in the file.
        show_progress: print a line to stdout once the file is written.
        writer_kwargs: passed on to ``imageio.get_writer`` (e.g. ``quality``, ``codec``).

    Raises:
        ValueError: if there are no frames (no file is left behind), a frame is not an image,
            or ``fps`` is not positive.
        DependencyNotInstalled: if imageio or its ffmpeg plugin is missing.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> frames = (np.full((32, 48, 3), 10 * i, dtype=np.uint8) for i in range(5))
        >>> path = write_mp4(frames, os.path.join(tempfile.mkdtemp(), "ramp.mp4"), fps=10)
        >>> os.path.getsize(path) > 0
        True
    """
    if not fps > 0:
        raise ValueError(f"Expected a positive number of frames per second, got fps={fps!r}.")
    imageio = _import_imageio()
    options = {"codec": "libx264", "pixelformat": "yuv420p", "macro_block_size": 1}
    options.update(writer_kwargs)
    path = os.fspath(path)
    count = 0
    writer = imageio.get_writer(path, format="FFMPEG", mode="I", fps=fps, **options)
    try:
        for frame in frames:
            writer.append_data(_as_video_frame(frame))
            count += 1
    finally:
        writer.close()
    if count == 0:
        # imageio starts ffmpeg on the first frame, so an empty video leaves no file behind.
        raise ValueError(f"Cannot write the video {path}: no frames were given.")
    if show_progress:
        print(f"Wrote {count} frames to {path}")
    return path


def _fps_from(kwargs: dict[str, Any], n_frames: int) -> float:
    """Read the frame rate from ``fps=`` or derive it from a clip ``duration=`` in seconds."""
    if "fps" in kwargs:
        return kwargs.pop("fps")
    if "duration" in kwargs:
        return n_frames / kwargs.pop("duration")
    raise ValueError(
        "save_video needs the frame rate: pass fps=... (e.g. env.metadata['render_fps']) "
        "or duration=... in seconds."
    )


def save_video(
    frames: list,
    video_folder: str,
    episode_trigger: Callable[[int], bool] | None = None,
    step_trigger: Callable[[int], bool] | None = None,
    video_length: int | None = None,
    name_prefix: str = "rl-video",
    episode_index: int = 0,
    step_starting_index: int = 0,
    save_logger: str | None = None,
    **kwargs: Any,
) -> None:
    """Save one episode's rendered frames as mp4 videos chosen by episode or step triggers.

    With an episode trigger that accepts ``episode_index``, the episode (its first
    ``video_length`` frames) goes to ``{name_prefix}-episode-{episode_index}.mp4``. With a step
    trigger, every step ``s`` it accepts (counted from ``step_starting_index``; frame 0 is the
    reset frame, so step ``s`` is frame ``s - step_starting_index + 1``) starts a clip of
    ``video_length`` frames (to the episode's end if ``None``) saved as
    ``{name_prefix}-step-{s}.mp4``. With no trigger, :func:`capped_cubic_video_schedule` picks
    episodes.

    Args:
        frames: the episode's frames, e.g. from an env with ``render_mode="rgb_array_list"``.
        video_folder: where the videos go; created if missing.
        episode_trigger: episode index -> whether to save the episode.
        step_trigger: global step index -> whether to start a clip there.
        video_length: the most frames per video; ``None`` for no limit.
        name_prefix: the start of every file name.
        episode_index: the index of this episode.
        step_starting_index: the global index of the episode's first step.
        save_logger: ``"bar"`` to print a line per video written, ``None`` for silence.
        kwargs: ``fps`` (or ``duration`` of the whole clip in seconds) and options for the
            imageio ffmpeg writer.

    Raises:
        ValueError: if neither ``fps`` nor ``duration`` is given.
        DependencyNotInstalled: if imageio or its ffmpeg plugin is missing.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> folder = tempfile.mkdtemp()
        >>> frames = [np.zeros((16, 16, 3), dtype=np.uint8)] * 4
        >>> save_video(frames, folder, fps=4, episode_index=8)
        >>> os.listdir(folder)
        ['rl-video-episode-8.mp4']
    """
    if not isinstance(frames, list):
        logger.error(f"Expected a list of frames, got a {type(frames)} instead.")
    if episode_trigger is None and step_trigger is None:
        episode_trigger = capped_cubic_video_schedule
    fps = _fps_from(kwargs, len(frames))
    video_folder = os.path.abspath(video_folder)
    os.makedirs(video_folder, exist_ok=True)
    path_prefix = os.path.join(video_folder, name_prefix)
    show_progress = save_logger is not None

    if episode_trigger is not None and episode_trigger(episode_index):
        write_mp4(
            frames[:video_length],
            f"{path_prefix}-episode-{episode_index}.mp4",
            fps,
            show_progress,
            **kwargs,
        )

    if step_trigger is not None:
        # Frame 0 comes from reset; frame k is what step k-1 of the episode produced.
        for frame_index in range(1, len(frames)):
            step_index = step_starting_index + frame_index - 1
            if step_trigger(step_index):
                end = None if video_length is None else frame_index + video_length
                write_mp4(
                    frames[frame_index:end],
                    f"{path_prefix}-step-{step_index}.mp4",
                    fps,
                    show_progress,
                    **kwargs,
                )
