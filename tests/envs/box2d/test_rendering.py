"""Rendering of the Box2D environments, headless (SDL_VIDEODRIVER=dummy), beside Gymnasium.

Frames are compared with Gymnasium's pixel for pixel: the scenes are drawn by our code with
the same pygame primitives on the same coordinates, so no residual is expected (and none is
measured: CarRacing's observations and renderings match exactly in every case tested).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

import palaestra
from palaestra.wrappers import RecordVideo
from tests.envs.box2d.conftest import BOX2D_IDS, driving_policy, random_policy, run_side_by_side

pygame = pytest.importorskip("pygame")

REPO = Path(__file__).resolve().parents[3]
FRAME_SHAPES = {
    "LunarLander-v3": (400, 600, 3),
    "LunarLanderContinuous-v3": (400, 600, 3),
    "BipedalWalker-v3": (400, 600, 3),
    "BipedalWalkerHardcore-v3": (400, 600, 3),
    "CarRacing-v3": (400, 600, 3),
}


def compare_frames(every: int):
    """An ``on_step`` check: both libraries render, every ``every`` steps, the same frame."""

    def check(ours, theirs, t):
        if t % every == 0:
            np.testing.assert_array_equal(ours.render(), theirs.render(), err_msg=f"frame {t}")

    return check


@pytest.mark.parametrize("env_id", BOX2D_IDS)
def test_rgb_array_frame_has_the_expected_shape(env_id):
    env = palaestra.make(env_id, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == FRAME_SHAPES[env_id]
    assert frame.dtype == np.uint8
    env.close()


@pytest.mark.parametrize(
    ("env_id", "steps"),
    [
        ("LunarLander-v3", 200),
        ("LunarLanderContinuous-v3", 200),
        ("BipedalWalker-v3", 200),
        ("BipedalWalkerHardcore-v3", 200),
        ("CarRacing-v3", 40),
    ],
)
def test_rgb_array_frames_are_gymnasiums_pixel_for_pixel(gymnasium, env_id, steps):
    policy = driving_policy() if env_id == "CarRacing-v3" else random_policy()
    kwargs = {"render_mode": "rgb_array"}
    run_side_by_side(gymnasium, env_id, 6, steps, policy, kwargs, on_step=compare_frames(10))


def test_car_racing_skid_marks_are_drawn_as_gymnasium_draws_them(gymnasium):
    # Hard braking at speed locks the wheels: skid marks appear in the full-size frames.
    def brake_hard(env, observation, rng):
        return np.array(
            [0.0, 1.0, 0.0]
            if len(env.unwrapped.car.particles) == 0 and env.unwrapped.t < 1.0
            else [0.6, 0.0, 1.0],
            dtype=np.float32,
        )

    kwargs = {"render_mode": "rgb_array"}
    run_side_by_side(
        gymnasium, "CarRacing-v3", 8, 60, brake_hard, kwargs, on_step=compare_frames(6)
    )
    env = palaestra.make("CarRacing-v3", render_mode="rgb_array")
    env.reset(seed=8)
    for _ in range(60):
        env.step(brake_hard(env, None, None))
    assert len(env.unwrapped.car.particles) > 0


@pytest.mark.parametrize("domain_randomize", [False, True])
def test_car_racing_state_pixels_render_is_the_observation(domain_randomize):
    env = palaestra.make(
        "CarRacing-v3", render_mode="state_pixels", domain_randomize=domain_randomize
    )
    observation, _ = env.reset(seed=2)
    np.testing.assert_array_equal(env.render(), observation)
    observation, *_ = env.step(np.array([0.2, 0.5, 0.0], np.float32))
    np.testing.assert_array_equal(env.render(), observation)


@pytest.mark.parametrize("env_id", ["LunarLander-v3", "BipedalWalker-v3", "CarRacing-v3"])
def test_human_mode_draws_to_a_window_and_close_releases_it(env_id):
    env = palaestra.make(env_id, render_mode="human")
    env.reset(seed=0)
    env.step(env.action_space.sample())
    assert env.render() is None
    assert pygame.display.get_surface() is not None
    env.close()
    assert not pygame.display.get_init()


@pytest.mark.parametrize("env_id", ["LunarLander-v3", "BipedalWalker-v3", "CarRacing-v3"])
def test_render_without_a_mode_warns_and_returns_none(env_id):
    env = palaestra.make(env_id)
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert env.unwrapped.render() is None


@pytest.mark.parametrize("env_class", ["LunarLander", "BipedalWalker", "CarRacing"])
def test_render_before_reset_returns_none(env_class):
    import palaestra.envs.box2d as box2d

    assert getattr(box2d, env_class)(render_mode="rgb_array").render() is None


def test_car_racing_renders_again_after_close():
    env = palaestra.make("CarRacing-v3", render_mode="rgb_array")
    env.reset(seed=0)
    first = env.render()
    env.close()
    np.testing.assert_array_equal(env.render(), first)


@pytest.mark.skipif(
    importlib.util.find_spec("imageio_ffmpeg") is None, reason="needs imageio[ffmpeg]"
)
@pytest.mark.parametrize("env_id", ["LunarLander-v3", "BipedalWalker-v3", "CarRacing-v3"])
def test_record_video_films_an_episode(tmp_path, env_id):
    folder = tmp_path / "videos"
    env = RecordVideo(
        palaestra.make(env_id, render_mode="rgb_array", max_episode_steps=12), str(folder)
    )
    env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        done = terminated or truncated
    env.close()
    assert os.listdir(folder) == ["rl-video-episode-0.mp4"]
    assert (folder / "rl-video-episode-0.mp4").stat().st_size > 1000


@pytest.mark.parametrize("env_id", ["LunarLander-v3", "BipedalWalker-v3", "CarRacing-v3"])
def test_the_families_guide_shows_the_gallery_picture_of_each_env(env_id):
    gallery_page = (REPO / "docs" / "guide" / "families.md").read_text()
    assert f"![{env_id}](../images/{env_id}.png)" in gallery_page
    assert (REPO / "docs" / "images" / f"{env_id}.png").is_file()
