"""save_video, write_mp4 and capped_cubic_video_schedule."""

from __future__ import annotations

import importlib
import os
import sys

import numpy as np
import pytest

from palaestra.error import DependencyNotInstalled
from palaestra.utils.save_video import capped_cubic_video_schedule, save_video, write_mp4
from tests.wrappers.test_rendering_support import (
    FakeClipRecorder,
    frame_brightness,
    read_video,
    video_fps,
)

pytest.importorskip("imageio_ffmpeg")


@pytest.fixture
def gymnasium_save_video(monkeypatch):
    """Gymnasium's save_video module, imported with moviepy replaced by a recorder."""
    pytest.importorskip("gymnasium")
    oracle = FakeClipRecorder()
    oracle.install(monkeypatch)
    monkeypatch.delitem(sys.modules, "gymnasium.utils.save_video", raising=False)
    return importlib.import_module("gymnasium.utils.save_video"), oracle


def episode_frames(count: int) -> list[np.ndarray]:
    """Frames whose brightness tells their index (see ``frame_brightness``)."""
    return [np.full((16, 24, 3), 20 * i, dtype=np.uint8) for i in range(count)]


def videos_in(folder) -> dict[str, list[int]]:
    return {
        name: frame_brightness(read_video(folder / name)) for name in sorted(os.listdir(folder))
    }


class TestCappedCubicSchedule:
    def test_films_cubes_below_1000(self):
        assert [i for i in range(1000) if capped_cubic_video_schedule(i)] == [
            k**3 for k in range(10)
        ]

    def test_films_every_thousandth_from_1000(self):
        assert [i for i in range(1000, 4001) if capped_cubic_video_schedule(i)] == [
            1000,
            2000,
            3000,
            4000,
        ]

    def test_matches_gymnasium(self, gymnasium_save_video):
        theirs = gymnasium_save_video[0].capped_cubic_video_schedule
        assert all(capped_cubic_video_schedule(i) == theirs(i) for i in range(5000))


class TestWriteMp4:
    def test_frames_round_trip(self, tmp_path):
        path = write_mp4(episode_frames(6), tmp_path / "a.mp4", fps=5)
        assert frame_brightness(read_video(path)) == [0, 1, 2, 3, 4, 5]

    def test_fps_is_stored(self, tmp_path):
        path = write_mp4(episode_frames(2), tmp_path / "a.mp4", fps=17)
        assert video_fps(path) == 17

    def test_odd_sides_are_padded_to_even(self, tmp_path):
        frames = [np.zeros((15, 21, 3), dtype=np.uint8)] * 2
        assert read_video(write_mp4(frames, tmp_path / "a.mp4", fps=5)).shape == (2, 16, 22, 3)

    def test_no_frames_is_an_error(self, tmp_path):
        with pytest.raises(ValueError, match="no frames were given"):
            write_mp4([], tmp_path / "a.mp4", fps=5)

    def test_no_frames_leave_no_file(self, tmp_path):
        with pytest.raises(ValueError):
            write_mp4(iter([]), tmp_path / "a.mp4", fps=5)
        assert os.listdir(tmp_path) == []

    def test_frames_can_be_streamed_from_a_generator(self, tmp_path):
        path = write_mp4((frame for frame in episode_frames(3)), tmp_path / "a.mp4", fps=5)
        assert frame_brightness(read_video(path)) == [0, 1, 2]

    def test_non_positive_fps_is_an_error(self, tmp_path):
        with pytest.raises(ValueError, match="fps=0"):
            write_mp4(episode_frames(1), tmp_path / "a.mp4", fps=0)

    def test_non_image_frame_is_an_error(self, tmp_path):
        with pytest.raises(ValueError, match=r"got shape \(3,\)"):
            write_mp4([np.zeros(3)], tmp_path / "a.mp4", fps=5)

    def test_missing_imageio_names_the_video_extra(self, tmp_path, monkeypatch):
        monkeypatch.setitem(sys.modules, "imageio", None)
        with pytest.raises(DependencyNotInstalled, match=r"palaestra\[video\]"):
            write_mp4(episode_frames(1), tmp_path / "a.mp4", fps=5)


class TestSaveVideo:
    def test_default_trigger_saves_cubic_episode(self, tmp_path):
        save_video(episode_frames(3), str(tmp_path), fps=5, episode_index=27)
        assert videos_in(tmp_path) == {"rl-video-episode-27.mp4": [0, 1, 2]}

    def test_default_trigger_skips_other_episodes(self, tmp_path):
        save_video(episode_frames(3), str(tmp_path), fps=5, episode_index=2)
        assert os.listdir(tmp_path) == []

    def test_video_length_keeps_first_frames(self, tmp_path):
        save_video(episode_frames(5), str(tmp_path), fps=5, video_length=2, name_prefix="x")
        assert videos_in(tmp_path) == {"x-episode-0.mp4": [0, 1]}

    def test_step_trigger_clips_start_after_the_reset_frame(self, tmp_path):
        save_video(
            episode_frames(6),
            str(tmp_path),
            step_trigger=lambda s: s == 12,
            step_starting_index=10,
            video_length=2,
            fps=5,
        )
        assert videos_in(tmp_path) == {"rl-video-step-12.mp4": [3, 4]}

    def test_duration_sets_the_frame_rate(self, tmp_path):
        save_video(episode_frames(8), str(tmp_path), duration=2)
        assert video_fps(tmp_path / "rl-video-episode-0.mp4") == 4

    def test_missing_frame_rate_is_an_error(self, tmp_path):
        with pytest.raises(ValueError, match="pass fps="):
            save_video(episode_frames(2), str(tmp_path))

    def test_folder_is_created(self, tmp_path):
        save_video(episode_frames(2), str(tmp_path / "new"), fps=5)
        assert os.listdir(tmp_path / "new") == ["rl-video-episode-0.mp4"]

    @pytest.mark.parametrize(
        "kwargs",
        [
            dict(episode_index=8),
            dict(episode_trigger=lambda e: True, video_length=3),
            dict(step_trigger=lambda s: s % 3 == 0, step_starting_index=4),
            dict(step_trigger=lambda s: s % 2 == 0, video_length=2, episode_trigger=lambda e: True),
        ],
    )
    def test_files_and_lengths_match_gymnasium(self, tmp_path, gymnasium_save_video, kwargs):
        theirs, oracle = gymnasium_save_video
        frames = episode_frames(7)
        theirs.save_video(list(frames), str(tmp_path / "g"), fps=5, **kwargs)
        save_video(list(frames), str(tmp_path / "p"), fps=5, **kwargs)
        expected = {name: count for name, count, _ in oracle.written}
        assert {name: len(shown) for name, shown in videos_in(tmp_path / "p").items()} == expected
