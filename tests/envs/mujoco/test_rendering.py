"""Rendering: offscreen frames (EGL or OSMesa, no display needed), cameras, options, video.

``conftest.py`` sets ``MUJOCO_GL=egl`` unless the environment names a backend already. Each
OpenGL context costs a second or two to make, so only a few frames are drawn in the default
suite; the rest are ``@pytest.mark.slow``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import palaestra
from palaestra.envs.mujoco.mujoco_rendering import MujocoRenderer, WindowViewer

mujoco = pytest.importorskip("mujoco")


def _offscreen_available() -> bool:
    try:
        env = palaestra.make("InvertedPendulum-v5", render_mode="rgb_array", width=8, height=8)
        env.reset(seed=0)
        env.render()
        env.close()
    except Exception:  # no EGL or OSMesa here
        return False
    return True


needs_gl = pytest.mark.skipif(
    not _offscreen_available(),
    reason="no offscreen OpenGL (install libegl1 libgl1-mesa-dri or libosmesa6; see README)",
)


def _frame(env_id: str, **kwargs) -> np.ndarray:
    env = palaestra.make(env_id, **kwargs)
    env.reset(seed=0)
    frame = env.render()
    env.close()
    return frame


@needs_gl
@pytest.mark.parametrize(
    "env_id",
    [
        "Ant-v5",
        pytest.param("Humanoid-v5", marks=pytest.mark.slow),
        pytest.param("Reacher-v5", marks=pytest.mark.slow),
        pytest.param("Pusher-v5", marks=pytest.mark.slow),
    ],
)
def test_rgb_array_frame_is_a_480_square_picture(env_id):
    frame = _frame(env_id, render_mode="rgb_array")
    assert frame.shape == (480, 480, 3) and frame.dtype == np.uint8
    # A picture, not a blank buffer: many distinct colours.
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 50


@needs_gl
@pytest.mark.slow
def test_width_and_height_set_the_frame_size():
    assert _frame("Hopper-v5", render_mode="rgb_array", width=64, height=32).shape == (32, 64, 3)


@needs_gl
def test_depth_array_is_a_float_image_between_near_and_far():
    depth = _frame("HalfCheetah-v5", render_mode="depth_array", width=48, height=40)
    assert depth.shape == (40, 48) and depth.dtype == np.float32
    assert 0.0 <= depth.min() < depth.max() <= 1.0


@needs_gl
@pytest.mark.slow
def test_rgbd_tuple_holds_both_frames():
    rgb, depth = _frame("Swimmer-v5", render_mode="rgbd_tuple", width=40, height=30)
    assert rgb.shape == (30, 40, 3) and depth.shape == (30, 40)


@needs_gl
@pytest.mark.slow
def test_named_camera_differs_from_the_free_camera():
    free = _frame("Walker2d-v5", render_mode="rgb_array", width=64, height=64)
    tracking = _frame(
        "Walker2d-v5", render_mode="rgb_array", width=64, height=64, camera_name="track"
    )
    assert not np.array_equal(free, tracking)


@needs_gl
@pytest.mark.slow
def test_camera_id_selects_the_same_camera_as_its_name():
    by_name = _frame("Ant-v5", render_mode="rgb_array", width=32, height=32, camera_name="track")
    by_id = _frame("Ant-v5", render_mode="rgb_array", width=32, height=32, camera_id=0)
    np.testing.assert_array_equal(by_name, by_id)


@needs_gl
@pytest.mark.slow
def test_visual_options_change_the_frame():
    plain = _frame("Ant-v5", render_mode="rgb_array", width=64, height=64)
    with_frames = _frame(
        "Ant-v5",
        render_mode="rgb_array",
        width=64,
        height=64,
        visual_options={mujoco.mjtVisFlag.mjVIS_TRANSPARENT: True},
    )
    assert not np.array_equal(plain, with_frames)


@needs_gl
@pytest.mark.slow
def test_max_geom_limits_the_scene():
    env = palaestra.make("Humanoid-v5", render_mode="rgb_array", width=16, height=16, max_geom=5)
    env.reset(seed=0)
    env.render()
    assert env.unwrapped.mujoco_renderer.viewer.scn.maxgeom == 5
    env.close()


@needs_gl
def test_record_video_writes_an_mp4(tmp_path):
    pytest.importorskip("imageio_ffmpeg")
    env = palaestra.make("InvertedPendulum-v5", render_mode="rgb_array", width=64, height=64)
    env = palaestra.wrappers.RecordVideo(env, str(tmp_path), episode_trigger=lambda e: True)
    env.reset(seed=0)
    for _ in range(5):
        env.step(env.action_space.sample())
    env.close()
    videos = sorted(p.name for p in tmp_path.iterdir())
    assert videos == ["rl-video-episode-0.mp4"]


@needs_gl
@pytest.mark.slow
def test_vector_env_renders_one_frame_per_sub_env():
    envs = palaestra.make_vec("Reacher-v5", 2, render_mode="rgb_array", width=32, height=32)
    envs.reset(seed=[0, 1])
    frames = envs.render()
    envs.close()
    assert len(frames) == 2 and frames[0].shape == (32, 32, 3)
    assert not np.array_equal(frames[0], frames[1])


def test_camera_id_and_camera_name_together_are_refused():
    with pytest.raises(ValueError, match="Both `camera_id` and `camera_name` cannot be"):
        palaestra.make("Ant-v5", camera_id=0, camera_name="track")


def test_unknown_render_mode_is_refused_with_the_modes():
    model = palaestra.make("Reacher-v5").unwrapped.model
    renderer = MujocoRenderer(model, mujoco.MjData(model), width=8, height=8)
    with pytest.raises(AttributeError, match="Unexpected mode: ansi, expected modes: human"):
        renderer.render("ansi")


def test_human_mode_without_a_display_raises_instead_of_aborting(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    model = palaestra.make("Reacher-v5").unwrapped.model
    with pytest.raises(RuntimeError, match=r"needs a display.*xvfb-run.*MUJOCO_GL=egl"):
        WindowViewer(model, mujoco.MjData(model), 64, 64)


def test_human_render_without_a_display_raises_from_the_env(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    env = palaestra.make("Swimmer-v5", render_mode="human")
    with pytest.raises(RuntimeError, match="render_mode='human' opens a window"):
        env.reset(seed=0)


def test_unknown_mujoco_gl_backend_is_refused(monkeypatch):
    monkeypatch.setenv("MUJOCO_GL", "vulkan")
    env = palaestra.make("Swimmer-v5", render_mode="rgb_array", width=8, height=8)
    env.reset(seed=0)
    with pytest.raises(RuntimeError, match=r"MUJOCO_GL must be one of .*got 'vulkan'"):
        env.render()


def test_offscreen_backend_follows_mujoco_gl():
    assert os.environ["MUJOCO_GL"] in ("egl", "osmesa", "glfw")
