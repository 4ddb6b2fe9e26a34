"""RecordVideo: which episodes and steps are filmed, file names, frame counts, fps, close."""

from __future__ import annotations

import os
import warnings

import pytest

import palaestra as gym
from palaestra.error import DependencyNotInstalled
from palaestra.wrappers import RecordVideo, RenderCollection
from tests.wrappers.test_rendering_support import (
    EPISODE_LENGTH,
    FakeClipRecorder,
    FrameEnv,
    frame_brightness,
    make_frame_env_class,
    read_video,
    run_episodes,
    video_fps,
)

pytest.importorskip("imageio_ffmpeg")


@pytest.fixture
def folder(tmp_path):
    return tmp_path / "videos"


def record(folder, env=None, **kwargs) -> RecordVideo:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RecordVideo(env if env is not None else FrameEnv(), str(folder), **kwargs)


def videos_in(folder) -> dict[str, int]:
    """File name -> number of frames, for every video in ``folder``."""
    return {name: len(read_video(folder / name)) for name in sorted(os.listdir(folder))}


def test_whole_episode_video_has_reset_frame_plus_one_frame_per_step(folder):
    env = record(folder, episode_trigger=lambda i: i == 0)
    run_episodes(env, episodes=1)
    env.close()
    frames = read_video(folder / "rl-video-episode-0.mp4")
    assert frame_brightness(frames) == list(range(EPISODE_LENGTH + 1))


def test_video_frames_keep_the_rendered_size(folder):
    env = record(folder, episode_trigger=lambda i: i == 0)
    run_episodes(env, episodes=1)
    env.close()
    assert read_video(folder / "rl-video-episode-0.mp4").shape[1:] == (24, 32, 3)


def test_default_trigger_films_cubic_episodes(folder):
    env = record(folder)
    run_episodes(env, episodes=10)
    env.close()
    assert sorted(os.listdir(folder)) == [
        "rl-video-episode-0.mp4",
        "rl-video-episode-1.mp4",
        "rl-video-episode-8.mp4",
    ]


def test_video_ends_at_next_reset_when_length_is_zero(folder):
    env = record(folder, episode_trigger=lambda i: i == 1)
    run_episodes(env, episodes=3)
    env.close()
    assert videos_in(folder) == {"rl-video-episode-1.mp4": EPISODE_LENGTH + 1}


def test_video_length_limits_frames_to_length_plus_one_like_gymnasium(folder):
    env = record(folder, episode_trigger=lambda i: i == 0, video_length=3)
    run_episodes(env, episodes=1)
    env.close()
    assert videos_in(folder) == {"rl-video-episode-0.mp4": 4}


def test_fixed_length_video_spans_episodes(folder):
    env = record(folder, episode_trigger=lambda i: i == 0, video_length=8)
    run_episodes(env, episodes=2)
    env.close()
    frames = read_video(folder / "rl-video-episode-0.mp4")
    assert frame_brightness(frames) == [0, 1, 2, 3, 4, 5, 0, 1, 2]


def test_step_trigger_names_videos_by_global_step(folder):
    env = record(folder, step_trigger=lambda s: s in (2, 7), video_length=2)
    run_episodes(env, episodes=2)
    env.close()
    assert videos_in(folder) == {"rl-video-step-2.mp4": 3, "rl-video-step-7.mp4": 3}


def test_step_video_starts_with_the_triggering_steps_frame(folder):
    env = record(folder, step_trigger=lambda s: s == 2, video_length=1)
    run_episodes(env, episodes=1)
    env.close()
    assert frame_brightness(read_video(folder / "rl-video-step-2.mp4")) == [3, 4]


def test_name_prefix_starts_file_names(folder):
    env = record(folder, episode_trigger=lambda i: True, name_prefix="cart")
    run_episodes(env, episodes=1)
    env.close()
    assert os.listdir(folder) == ["cart-episode-0.mp4"]


def test_fps_defaults_to_render_fps(folder):
    env = record(folder, episode_trigger=lambda i: True)
    run_episodes(env, episodes=1)
    env.close()
    assert video_fps(folder / "rl-video-episode-0.mp4") == FrameEnv.metadata["render_fps"]


def test_fps_argument_is_stored_in_the_file(folder):
    env = record(folder, episode_trigger=lambda i: True, fps=25)
    run_episodes(env, episodes=1)
    env.close()
    assert video_fps(folder / "rl-video-episode-0.mp4") == 25


def test_close_saves_the_partial_video(folder):
    env = record(folder, episode_trigger=lambda i: True)
    env.reset(seed=0)
    env.step(0)
    env.step(0)
    assert os.listdir(folder) == []
    env.close()
    assert videos_in(folder) == {"rl-video-episode-0.mp4": 3}


def test_close_stops_recording(folder):
    env = record(folder, episode_trigger=lambda i: True)
    env.reset(seed=0)
    env.close()
    assert (env.recording, env.recorded_frames) == (False, [])


def test_video_with_no_frames_is_not_written(folder):
    env = record(folder, episode_trigger=lambda i: True)
    env.start_recording("empty")
    with pytest.warns(UserWarning, match="zero frames"):
        env.stop_recording()
    assert os.listdir(folder) == []


def test_stop_recording_without_a_recording_is_an_error(folder):
    env = record(folder)
    with pytest.raises(RuntimeError, match="no recording was started"):
        env.stop_recording()


@pytest.mark.parametrize("render_mode", [None, "human", "ansi"])
def test_non_image_render_mode_is_rejected(folder, render_mode):
    with pytest.raises(ValueError, match=f"Render mode is {render_mode}, which is incompatible"):
        RecordVideo(FrameEnv(render_mode=render_mode), str(folder))


def test_negative_video_length_is_rejected(folder):
    with pytest.raises(ValueError, match="video_length >= 0"):
        record(folder, video_length=-1)


def test_missing_imageio_names_the_video_extra(folder, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "imageio", None)
    with pytest.raises(DependencyNotInstalled, match=r"palaestra\[video\]"):
        RecordVideo(FrameEnv(), str(folder))


def test_existing_folder_gets_an_overwrite_warning(folder):
    folder.mkdir()
    with pytest.warns(UserWarning, match="Overwriting existing videos"):
        RecordVideo(FrameEnv(), str(folder))


def test_folder_is_created(folder):
    record(folder / "nested")
    assert (folder / "nested").is_dir()


def test_rgb_array_list_env_films_and_still_returns_frames(folder):
    env = record(folder, env=RenderCollection(FrameEnv()), episode_trigger=lambda i: True)
    env.reset(seed=0)
    env.step(0)
    assert len(env.render()) == 2
    env.close()
    assert videos_in(folder) == {"rl-video-episode-0.mp4": 2}


def test_constructor_arguments_are_recorded(folder):
    env = record(folder, video_length=7, name_prefix="p", fps=12)
    assert {k: env._saved_kwargs[k] for k in ("video_length", "name_prefix", "fps")} == {
        "video_length": 7,
        "name_prefix": "p",
        "fps": 12,
    }


def test_cartpole_video_frame_count_matches_steps(folder):
    env = record(folder, env=gym.make("CartPole-v1", render_mode="rgb_array"))
    env.reset(seed=1)
    steps = 0
    terminated = truncated = False
    while not (terminated or truncated):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        steps += 1
    env.close()
    frames = read_video(folder / "rl-video-episode-0.mp4")
    assert frames.shape == (steps + 1, 400, 600, 3)


SCENARIOS = {
    "default trigger": dict(episodes=10),
    "even episodes, short videos": dict(
        episodes=5, episode_trigger=lambda i: i % 2 == 0, video_length=3
    ),
    "every 7th step": dict(episodes=4, step_trigger=lambda s: s % 7 == 0, video_length=4),
    "long videos span episodes": dict(episodes=4, episode_trigger=lambda i: i == 1, video_length=8),
    "both triggers": dict(
        episodes=4, episode_trigger=lambda i: i == 2, step_trigger=lambda s: s == 3, video_length=0
    ),
}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_videos_match_gymnasium(folder, tmp_path, monkeypatch, scenario):
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.wrappers import RecordVideo as GymnasiumRecordVideo

    kwargs = dict(SCENARIOS[scenario])
    episodes = kwargs.pop("episodes")
    oracle = FakeClipRecorder()
    oracle.install(monkeypatch)
    theirs = GymnasiumRecordVideo(
        make_frame_env_class(gymnasium.Env, gymnasium.spaces)(), str(tmp_path / "g"), **kwargs
    )
    ours = record(folder, **kwargs)
    for env in (theirs, ours):
        run_episodes(env, episodes=episodes)
        env.close()
    expected = {name: count for name, count, _ in oracle.written}
    assert videos_in(folder) == expected
