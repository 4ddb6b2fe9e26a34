"""Every toy-text render mode works headless, with frames drawn by palaestra's own code."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import palaestra
from palaestra.envs.toy_text._drawing import GLYPHS, ToyCanvas, text_width
from tests.envs.toy_text.conftest import FRAMES
from tests.fixtures.scripts import load_script


@pytest.mark.parametrize("env_id", list(FRAMES))
def test_render_modes_metadata_lists_gymnasiums(gymnasium, env_id):
    assert palaestra.make(env_id).metadata["render_modes"] == FRAMES[env_id][1]
    assert gymnasium.make(env_id).metadata["render_modes"] == FRAMES[env_id][1]


@pytest.mark.parametrize("env_id", list(FRAMES))
def test_rgb_array_frame_has_gymnasiums_shape_and_changes_with_the_state(env_id):
    env = palaestra.make(env_id, render_mode="rgb_array")
    env.reset(seed=4)
    first = env.render()
    assert first.shape == FRAMES[env_id][0] and first.dtype == np.uint8
    frames = [first]
    for action in [1, 2, 1, 2, 0]:
        _, _, terminated, _, _ = env.step(action)
        frames.append(env.render())
        if terminated:
            break
    moved = any(not np.array_equal(frame, first) for frame in frames[1:])
    same_seed = palaestra.make(env_id, render_mode="rgb_array")
    same_seed.reset(seed=4)
    assert np.array_equal(same_seed.render(), first)
    assert moved or env_id == "Blackjack-v1"
    env.close()


@pytest.mark.parametrize("env_id", list(FRAMES))
def test_human_mode_renders_to_a_window_on_reset_and_step_and_returns_none(env_id):
    env = palaestra.make(env_id, render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    env.step(1)
    import pygame

    assert pygame.display.get_surface().get_size() == FRAMES[env_id][0][1::-1]
    env.close()


def test_frozen_lake_ansi_highlights_the_walker_and_names_the_last_action():
    env = palaestra.make("FrozenLake-v1", render_mode="ansi", is_slippery=False)
    env.reset(seed=0)
    assert env.render() == "\n\x1b[41mS\x1b[0mFFF\nFHFH\nFFFH\nHFFG\n"
    env.step(2)
    assert env.render() == "  (Right)\nS\x1b[41mF\x1b[0mFF\nFHFH\nFFFH\nHFFG\n"


def test_cliff_walking_ansi_marks_the_walker_goal_and_cliff():
    env = palaestra.make("CliffWalking-v1", render_mode="ansi")
    env.reset(seed=0)
    rows = env.render().splitlines()
    assert rows[3] == "x  C  C  C  C  C  C  C  C  C  C  T"
    assert rows[0] == "o  o  o  o  o  o  o  o  o  o  o  o"


def test_render_without_a_mode_warns_with_gymnasiums_message():
    env = palaestra.make("FrozenLake-v1")
    env.reset(seed=0)
    with pytest.warns(
        UserWarning, match="You are calling render method without specifying any render mode"
    ):
        assert env.render() is None


def test_an_env_that_rendered_can_be_pickled_and_renders_again():
    env = palaestra.make("Taxi-v4", render_mode="rgb_array").unwrapped
    env.reset(seed=1)
    frame = env.render()
    copy = pickle.loads(pickle.dumps(env))
    assert np.array_equal(copy.render(), frame)


def test_pixel_font_covers_every_label_the_scenes_draw():
    for label in ["DEALER", "PLAYER", "USABLE ACE", "TAXI", "RGYB", "SG", "AJQK0123456789"]:
        assert all(char in GLYPHS for char in label)
    assert all(len(rows) == 7 and all(len(row) == 5 for row in rows) for rows in GLYPHS.values())


def test_canvas_text_draws_exactly_the_glyph_pixels():
    canvas = ToyCanvas(text_width("1", 1), 7, "rgb_array", fps=4)
    canvas.clear((0, 0, 0))
    canvas.text("1", (0, 0), 1, (255, 255, 255))
    lit = canvas.finish()[:, :, 0] == 255
    assert lit.tolist() == [[bit == "#" for bit in row] for row in GLYPHS["1"]]


GALLERY = ["FrozenLake8x8-v1", "Taxi-v4", "CliffWalking-v1", "Blackjack-v1"]
REPO = __import__("pathlib").Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def gallery():
    module = load_script("scripts/render_gallery.py")
    return module


@pytest.mark.parametrize("env_id", GALLERY)
def test_the_families_guide_shows_the_gallery_picture_of_each_toy_text_env(env_id, gallery):
    gallery_page = (REPO / "docs" / "guide" / "families.md").read_text()
    assert f"![{env_id}](../images/{env_id}.png)" in gallery_page
    picture = gallery.load_png(REPO / "docs" / "images" / f"{env_id}.png")
    assert np.array_equal(picture, gallery.render_scene(env_id))
