"""Vector RecordVideo and HumanRendering, and the frame-tiling helpers."""

from __future__ import annotations

import os
import warnings
from functools import partial

import numpy as np
import pytest

import palaestra as gym
from palaestra.vector import AutoresetMode, SyncVectorEnv
from palaestra.wrappers.vector import HumanRendering, RecordVideo
from palaestra.wrappers.vector.rendering import grid_for_aspect, grid_for_screen, tile_frames
from tests.wrappers.test_rendering_support import (
    FRAME_SHAPE,
    FakeClipRecorder,
    FrameEnv,
    make_frame_env_class,
    read_video,
)

pytest.importorskip("imageio_ffmpeg")

# Sub-env 0 ends its episodes every 3 steps, the others later, so episodes follow sub-env 0.
EPISODE_LENGTHS = (3, 4, 5, 7)


def frame_envs(autoreset_mode=AutoresetMode.NEXT_STEP, count=None):
    return SyncVectorEnv(
        [partial(FrameEnv, episode_length=n) for n in EPISODE_LENGTHS[:count]],
        autoreset_mode=autoreset_mode,
    )


def record(envs, folder, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RecordVideo(envs, str(folder), **kwargs)


def run_steps(envs, steps):
    envs.reset(seed=0)
    for _ in range(steps):
        envs.step(np.zeros(envs.num_envs, dtype=np.int64))
    envs.close()


def videos_in(folder) -> dict[str, int]:
    return {name: len(read_video(folder / name)) for name in sorted(os.listdir(folder))}


class TestTiling:
    def test_frames_fill_rows_first(self):
        frames = [np.full((1, 1, 1), i, dtype=np.uint8) for i in range(5)]
        assert tile_frames(frames, rows=2, cols=3)[..., 0].tolist() == [[0, 1, 2], [3, 4, 0]]

    def test_too_many_frames_is_an_error(self):
        with pytest.raises(ValueError, match="Cannot place 3 frames on a 1x2 grid"):
            tile_frames([np.zeros((1, 1, 3))] * 3, rows=1, cols=2)

    @pytest.mark.parametrize(
        ("count", "aspect", "expected"),
        [(4, (1, 1), (2, 2)), (6, (16, 9), (2, 3)), (5, (1, 1), (1, 5)), (8, (1, 2), (2, 4))],
    )
    def test_aspect_grid_uses_divisors(self, count, aspect, expected):
        assert grid_for_aspect(count, height=10, width=10, aspect=aspect) == expected

    @pytest.mark.parametrize(
        ("count", "expected"), [(1, (1, 1)), (2, (2, 2)), (5, (3, 3)), (9, (3, 3)), (10, (4, 4))]
    )
    def test_screen_grid_grows_evenly_for_a_same_shaped_screen(self, count, expected):
        assert grid_for_screen(count, frame_size=(60, 40), screen_size=(60, 40)) == expected

    def test_screen_grid_adds_columns_for_a_wide_screen(self):
        assert grid_for_screen(3, frame_size=(10, 10), screen_size=(30, 10)) == (1, 3)


class TestRecordVideo:
    def test_frames_tile_all_sub_envs(self, tmp_path):
        run_steps(record(frame_envs(), tmp_path, episode_trigger=lambda i: i == 0), steps=2)
        frames = read_video(tmp_path / "rl-video-episode-0.mp4")
        assert frames.shape == (3, 2 * FRAME_SHAPE[0], 2 * FRAME_SHAPE[1], 3)

    def test_record_first_only_films_sub_env_zero(self, tmp_path):
        envs = record(
            frame_envs(), tmp_path, episode_trigger=lambda i: i == 0, record_first_only=True
        )
        run_steps(envs, steps=2)
        assert read_video(tmp_path / "rl-video-episode-0.mp4").shape[1:] == FRAME_SHAPE

    def test_aspect_ratio_picks_the_grid(self, tmp_path):
        envs = record(
            frame_envs(), tmp_path, episode_trigger=lambda i: i == 0, video_aspect_ratio=(4, 1)
        )
        run_steps(envs, steps=1)
        assert (envs.frame_rows, envs.frame_cols) == (1, 4)

    def test_episodes_follow_sub_env_zero_across_autoresets(self, tmp_path):
        run_steps(record(frame_envs(), tmp_path, episode_trigger=lambda i: i in (1, 2)), steps=9)
        assert videos_in(tmp_path) == {"rl-video-episode-1.mp4": 4, "rl-video-episode-2.mp4": 2}

    def test_step_trigger_and_length(self, tmp_path):
        run_steps(
            record(frame_envs(), tmp_path, step_trigger=lambda s: s == 2, video_length=3), steps=9
        )
        assert videos_in(tmp_path) == {"rl-video-step-2.mp4": 4}

    def test_close_saves_the_partial_video(self, tmp_path):
        envs = record(frame_envs(), tmp_path, episode_trigger=lambda i: True)
        envs.reset(seed=0)
        envs.step(np.zeros(4, dtype=np.int64))
        envs.close()
        assert videos_in(tmp_path) == {"rl-video-episode-0.mp4": 2}

    @pytest.mark.parametrize("render_mode", [None, "human", "ansi"])
    def test_non_image_render_mode_is_rejected(self, tmp_path, render_mode):
        envs = SyncVectorEnv([partial(FrameEnv, render_mode=render_mode)])
        with pytest.raises(
            ValueError, match=f"Render mode is {render_mode}, which is incompatible"
        ):
            RecordVideo(envs, str(tmp_path))

    def test_same_step_mode_is_warned_about(self, tmp_path):
        with pytest.warns(UserWarning, match="will not contain the last frame"):
            RecordVideo(frame_envs(AutoresetMode.SAME_STEP), str(tmp_path / "v"))

    def test_cartpole_video_is_readable(self, tmp_path):
        envs = gym.make_vec(
            "CartPole-v1", num_envs=2, vectorization_mode="sync", render_mode="rgb_array"
        )
        run_steps(record(envs, tmp_path, step_trigger=lambda s: s == 0, video_length=4), steps=6)
        assert read_video(tmp_path / "rl-video-step-0.mp4").shape == (5, 400, 1200, 3)


SCENARIOS = {
    "default trigger": dict(steps=40),
    "episodes 1 and 3": dict(steps=15, episode_trigger=lambda i: i in (1, 3)),
    "short clips": dict(steps=15, episode_trigger=lambda i: i % 2 == 0, video_length=2),
    "steps": dict(steps=15, step_trigger=lambda s: s % 6 == 1, video_length=3),
}


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_videos_match_gymnasium(tmp_path, monkeypatch, scenario, mode):
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.wrappers.vector import RecordVideo as Theirs

    kwargs = dict(SCENARIOS[scenario])
    steps = kwargs.pop("steps")
    oracle = FakeClipRecorder()
    oracle.install(monkeypatch)
    gym_frame_env = make_frame_env_class(gymnasium.Env, gymnasium.spaces)
    theirs_envs = gymnasium.vector.SyncVectorEnv(
        [partial(gym_frame_env, episode_length=n) for n in EPISODE_LENGTHS],
        autoreset_mode=gymnasium.vector.AutoresetMode(mode.value),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = Theirs(theirs_envs, str(tmp_path / "g"), **kwargs)
    run_steps(theirs, steps)
    run_steps(record(frame_envs(mode), tmp_path / "p", **kwargs), steps)
    assert videos_in(tmp_path / "p") == {name: count for name, count, _ in oracle.written}


class TestHumanRendering:
    def test_window_tiles_sub_envs_into_one_frame_size(self):
        envs = HumanRendering(frame_envs(count=3))
        envs.reset(seed=0)
        assert envs.window.get_size() == (FRAME_SHAPE[1], FRAME_SHAPE[0])
        assert (envs.num_rows, envs.num_cols, envs.scaled_subenv_size) == (2, 2, (16, 12))
        envs.close()

    def test_screen_size_sets_the_window(self):
        envs = HumanRendering(frame_envs(count=2), screen_size=(128, 48))
        envs.reset(seed=0)
        assert envs.window.get_size() == (128, 48)
        assert (envs.num_rows, envs.num_cols) == (1, 2)
        envs.close()

    def test_window_shows_each_sub_env(self):
        envs = HumanRendering(frame_envs(count=2), screen_size=(64, 24))
        envs.reset(seed=0)
        envs.step(np.zeros(2, dtype=np.int64))
        assert tuple(envs.window.get_at((0, 0)))[:3] == (20, 20, 20)
        assert tuple(envs.window.get_at((40, 0)))[:3] == (20, 20, 20)
        envs.close()

    def test_render_mode_is_human(self):
        envs = HumanRendering(frame_envs(count=1))
        assert (envs.render_mode, "human" in envs.metadata["render_modes"]) == ("human", True)

    def test_close_closes_the_window(self):
        envs = HumanRendering(frame_envs(count=1))
        envs.reset(seed=0)
        envs.close()
        assert envs.window is None

    def test_non_image_render_mode_is_rejected(self):
        with pytest.raises(ValueError, match=r"Expected env\.render_mode to be one of"):
            HumanRendering(SyncVectorEnv([partial(FrameEnv, render_mode=None)]))


@pytest.mark.parametrize("library", ["gymnasium", "palaestra"])
def test_human_rendering_of_a_native_cartpole_in_rgb_array_list_mode(library):
    # Gymnasium's CartPoleVectorEnv draws one frame per sub-env in either rgb mode.
    lib = pytest.importorskip(library)
    envs = lib.make_vec(
        "CartPole-v1", 2, vectorization_mode="vector_entry_point", render_mode="rgb_array_list"
    )
    shown = lib.wrappers.vector.HumanRendering(envs)
    shown.reset(seed=0)
    shown.step(np.array([0, 1]))
    assert [frame.shape for frame in envs.render()] == [(400, 600, 3)] * 2
    shown.close()


@pytest.mark.parametrize("library", ["gymnasium", "palaestra"])
def test_human_rendering_of_sub_envs_collecting_frames_fails_as_in_gymnasium(library):
    lib = pytest.importorskip(library)
    envs = lib.make_vec("CartPole-v1", 2, vectorization_mode="sync", render_mode="rgb_array_list")
    shown = lib.wrappers.vector.HumanRendering(envs)
    with pytest.raises(AssertionError, match=r"Expected `env.render\(\)` to return a numpy array"):
        shown.reset(seed=0)
    shown.close()


@pytest.mark.parametrize("library", ["gymnasium", "palaestra"])
def test_a_native_cartpole_in_human_mode_draws_its_frames_and_initialises_the_display(library):
    # Gymnasium's CartPoleVectorEnv takes render_mode="human": a batch opens no window, its
    # render gives one frame per sub-env, and pygame's display is initialised for showing them.
    lib = pytest.importorskip(library)
    pygame = pytest.importorskip("pygame")
    pygame.display.quit()
    envs = lib.make_vec(
        "CartPole-v1", 2, vectorization_mode="vector_entry_point", render_mode="human"
    )
    envs.reset(seed=0)
    frames = envs.render()
    assert [frame.shape for frame in frames] == [(400, 600, 3)] * 2
    assert pygame.display.get_init()
    envs.close()


def test_a_native_cartpole_draws_the_same_frames_in_human_and_rgb_array_modes():
    pytest.importorskip("pygame")
    human = gym.make_vec("CartPole-v1", 2, render_mode="human")
    rgb = gym.make_vec("CartPole-v1", 2, render_mode="rgb_array")
    for envs in (human, rgb):
        envs.reset(seed=3)
        envs.step(np.array([0, 1]))
    for shown, drawn in zip(human.render(), rgb.render(), strict=True):
        assert np.array_equal(shown, drawn)
    human.close()
    rgb.close()
