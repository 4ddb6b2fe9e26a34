"""A tiny image-rendering env and video helpers shared by the rendering-wrapper tests.

``FrameEnv`` renders a small frame whose pixels all equal the number of steps taken in the
episode (times ``BRIGHTNESS_STEP``), so a video's content tells which steps were filmed.
"""

from __future__ import annotations

import sys
import types

import numpy as np

import palaestra as gym
from palaestra import spaces

FRAME_SHAPE = (24, 32, 3)
EPISODE_LENGTH = 5
BRIGHTNESS_STEP = 20


def make_frame_env_class(base_env: type, space_module: types.ModuleType) -> type:
    """Build FrameEnv on ``base_env`` (palaestra.Env or gymnasium.Env) for differential tests."""

    class FrameEnv(base_env):
        metadata = {"render_modes": ["rgb_array"], "render_fps": 10}

        def __init__(self, render_mode="rgb_array", episode_length=EPISODE_LENGTH):
            self.render_mode = render_mode
            self.episode_length = episode_length
            self.observation_space = space_module.Box(0.0, 1.0, shape=(2,), dtype=np.float32)
            self.action_space = space_module.Discrete(2)
            self.t = 0

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            self.t = 0
            return self.observation_space.sample(), {}

        def step(self, action):
            self.t += 1
            terminated = self.t >= self.episode_length
            return self.observation_space.sample(), 1.0, terminated, False, {}

        def render(self):
            return np.full(FRAME_SHAPE, BRIGHTNESS_STEP * self.t, dtype=np.uint8)

    return FrameEnv


FrameEnv = make_frame_env_class(gym.Env, spaces)


def read_video(path) -> np.ndarray:
    """All frames of a video file as one (n, height, width, 3) array."""
    import imageio.v3 as iio

    return iio.imread(path)


def video_fps(path) -> float:
    import imageio

    with imageio.get_reader(path, format="FFMPEG") as reader:
        return reader.get_meta_data()["fps"]


def frame_brightness(frames: np.ndarray) -> list[int]:
    """The step count each decoded frame shows (rounding away video compression noise)."""
    return [round(float(frame.mean()) / BRIGHTNESS_STEP) for frame in frames]


def run_episodes(env, episodes: int, steps: int | None = None) -> None:
    """Reset and step ``env`` with action 0 until each episode ends (or for ``steps``)."""
    for _ in range(episodes):
        env.reset(seed=0)
        for _ in range(steps if steps is not None else 10**6):
            _, _, terminated, truncated, _ = env.step(0)
            if steps is None and (terminated or truncated):
                break


class FakeClipRecorder:
    """Stands in for moviepy, so Gymnasium's RecordVideo can run as an oracle without it.

    Records ``(file name, frame count, fps)`` for every clip Gymnasium would write.
    """

    def __init__(self) -> None:
        self.written: list[tuple[str, int, float]] = []

    def install(self, monkeypatch) -> None:
        recorder = self

        class ImageSequenceClip:
            def __init__(self, frames, fps):
                self.frames, self.fps = list(frames), fps

            def write_videofile(self, path, logger=None):
                recorder.written.append((path.rsplit("/", 1)[-1], len(self.frames), self.fps))

        names = [
            "moviepy",
            "moviepy.video",
            "moviepy.video.io",
            "moviepy.video.io.ImageSequenceClip",
        ]
        for name in names:
            module = types.ModuleType(name)
            module.ImageSequenceClip = ImageSequenceClip
            monkeypatch.setitem(sys.modules, name, module)
