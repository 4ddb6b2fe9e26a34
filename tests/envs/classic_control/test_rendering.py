"""Rendering of the classic-control environments, headless (SDL_VIDEODRIVER=dummy).

Every render mode of every environment is exercised, and a frame of each environment's
gallery scene is compared with the reference PNG in ``tests/data/classic_control`` (made by
``scripts/render_gallery.py --reference``), so that a drawing regression is caught.
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

import palaestra
from palaestra.envs.classic_control import CartPoleEnv, PendulumEnv
from palaestra.envs.classic_control.pendulum import TORQUE_COLOR
from palaestra.envs.classic_control.rendering import Canvas, import_pygame, rotate
from palaestra.error import DependencyNotInstalled
from tests.envs.classic_control.conftest import FRAME_SHAPES, RENDERED_IDS
from tests.fixtures.scripts import load_script

pygame = pytest.importorskip("pygame")

REPO = Path(__file__).resolve().parents[3]
# Anti-aliasing may differ slightly between pygame builds; a broken drawing differs a lot.
MAX_CHANGED_PIXEL_FRACTION = 0.005
CHANGED_PIXEL_LEVEL = 48


@pytest.fixture(scope="module")
def gallery():
    """The gallery script, the single definition of each reference scene."""
    module = load_script("scripts/render_gallery.py")
    return module


@pytest.mark.parametrize("env_id", RENDERED_IDS)
def test_rgb_array_frame_has_the_expected_shape(env_id):
    env = palaestra.make(env_id, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == FRAME_SHAPES[env_id]
    assert frame.dtype == np.uint8
    env.close()


@pytest.mark.parametrize("env_id", RENDERED_IDS)
def test_rgb_array_frame_matches_the_reference_image(env_id, gallery):
    frame = gallery.render_scene(env_id)
    reference = gallery.load_png(REPO / "tests" / "data" / "classic_control" / f"{env_id}.png")
    assert frame.shape == reference.shape
    difference = np.abs(frame.astype(np.int16) - reference.astype(np.int16)).max(axis=-1)
    changed = float(np.mean(difference > CHANGED_PIXEL_LEVEL))
    assert changed <= MAX_CHANGED_PIXEL_FRACTION, f"{changed:.2%} of the pixels changed"


@pytest.mark.parametrize("env_id", RENDERED_IDS)
def test_frames_follow_the_state(env_id):
    env = palaestra.make(env_id, render_mode="rgb_array")
    env.reset(seed=0)
    first = env.render()
    for _ in range(30):
        if env.step(env.action_space.sample())[2]:
            break
    assert not np.array_equal(first, env.render())


@pytest.mark.parametrize("env_id", RENDERED_IDS)
def test_human_mode_draws_to_a_window_and_close_releases_it(env_id):
    env = palaestra.make(env_id, render_mode="human")
    env.reset(seed=0)
    env.step(env.action_space.sample())
    assert env.render() is None
    canvas = env.unwrapped._canvas
    assert canvas.window is not None
    assert pygame.display.get_surface().get_size() == FRAME_SHAPES[env_id][1::-1]
    env.close()
    assert env.unwrapped._canvas is None
    assert not pygame.display.get_init()


def test_human_mode_is_paced_by_render_fps():
    env = CartPoleEnv(render_mode="human")
    env.reset(seed=0)
    env.metadata = {**env.metadata, "render_fps": 20}
    env._canvas.fps = 20
    start = pygame.time.get_ticks()
    for _ in range(4):
        env.step(0)
    assert pygame.time.get_ticks() - start >= 3 * 1000 / 20 - 10
    env.close()


@pytest.mark.parametrize("env_id", RENDERED_IDS)
def test_rgb_array_list_collects_one_frame_per_reset_and_step(env_id):
    env = palaestra.make(env_id, render_mode="rgb_array_list")
    env.reset(seed=0)
    for _ in range(3):
        env.step(env.action_space.sample())
    frames = env.render()
    assert len(frames) == 4
    assert all(frame.shape == FRAME_SHAPES[env_id] for frame in frames)


def test_render_without_a_mode_warns_and_returns_none():
    env = palaestra.make("CartPole-v1")
    env.reset(seed=0)
    with pytest.warns(UserWarning, match='render_mode="rgb_array"'):
        assert env.render() is None


def test_render_before_reset_returns_none():
    assert CartPoleEnv(render_mode="rgb_array").render() is None


def test_pendulum_frame_shows_the_torque_arrow_only_under_torque():
    env = PendulumEnv(render_mode="rgb_array")
    env.reset(seed=0)
    env.step(np.array([0.0], np.float32))
    assert not np.all(env.render() == TORQUE_COLOR, axis=-1).any()
    env.step(np.array([2.0], np.float32))
    assert np.all(env.render() == TORQUE_COLOR, axis=-1).sum() > 50


def test_missing_pygame_raises_dependency_not_installed_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)
    with pytest.raises(DependencyNotInstalled, match=r"palaestra\[classic-control\]"):
        import_pygame()
    env = CartPoleEnv(render_mode="rgb_array")
    env.reset(seed=0)
    with pytest.raises(
        DependencyNotInstalled, match=r"pip install \"palaestra\[classic-control\]\""
    ):
        env.render()


def test_an_env_built_without_make_in_rgb_array_list_mode_draws_off_screen():
    # Gymnasium's envs draw on a surface in every mode but "human"; make() adds the collector.
    env = CartPoleEnv(render_mode="rgb_array_list")
    env.reset(seed=0)
    assert env.render().shape == (400, 600, 3)
    assert not pygame.display.get_init()


def test_canvas_draws_with_the_y_axis_up():
    canvas = Canvas(10, 10, render_mode="rgb_array", fps=30)
    canvas.clear()
    canvas.polygon([(0, 0), (9, 0), (9, 2), (0, 2)], (255, 0, 0))
    frame = canvas.finish()
    assert frame[9, 5].tolist() == [255, 0, 0]
    assert frame[0, 5].tolist() == [255, 255, 255]


def test_rotate_turns_counter_clockwise_about_the_origin():
    ((x, y),) = rotate([(2.0, 0.0)], np.pi / 2, origin=(1.0, 1.0))
    assert (round(x, 9), round(y, 9)) == (1.0, 3.0)


@pytest.mark.parametrize("env_id", RENDERED_IDS)
def test_a_rendering_env_pickles_and_its_copy_renders_the_same_frame(env_id):
    env = palaestra.make(env_id, render_mode="rgb_array").unwrapped
    env.reset(seed=0)
    frame = env.render()
    copy = pickle.loads(pickle.dumps(env))
    np.testing.assert_array_equal(copy.state, env.state)
    np.testing.assert_array_equal(copy.render(), frame)
