"""RenderCollection, HumanRendering and AddRenderObservation."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import palaestra as gym
from palaestra import spaces
from palaestra.error import DependencyNotInstalled
from palaestra.wrappers import AddRenderObservation, HumanRendering, RenderCollection
from tests.wrappers.test_rendering_support import FRAME_SHAPE, FrameEnv, frame_brightness


def steps_shown(frames) -> list[int]:
    return frame_brightness(np.asarray(frames))


@pytest.fixture
def collection():
    return RenderCollection(FrameEnv())


class TestRenderCollection:
    def test_render_mode_gets_list_suffix(self, collection):
        assert collection.render_mode == "rgb_array_list"

    def test_metadata_lists_the_list_mode(self, collection):
        assert collection.metadata["render_modes"] == ["rgb_array", "rgb_array_list"]

    def test_inner_metadata_is_left_alone(self, collection):
        assert collection.env.metadata["render_modes"] == ["rgb_array"]

    def test_render_returns_frames_of_reset_and_steps(self, collection):
        collection.reset(seed=0)
        collection.step(0)
        collection.step(0)
        assert steps_shown(collection.render()) == [0, 1, 2]

    def test_render_pops_frames_by_default(self, collection):
        collection.reset(seed=0)
        collection.render()
        assert collection.render() == []

    def test_frames_are_kept_without_pop_frames(self):
        env = RenderCollection(FrameEnv(), pop_frames=False)
        env.reset(seed=0)
        env.step(0)
        assert len(env.render()) == len(env.render()) == 2

    def test_reset_clears_frames_by_default(self, collection):
        collection.reset(seed=0)
        collection.step(0)
        collection.reset(seed=0)
        assert steps_shown(collection.render()) == [0]

    def test_frames_survive_reset_without_reset_clean(self):
        env = RenderCollection(FrameEnv(), reset_clean=False)
        env.reset(seed=0)
        env.step(0)
        env.reset(seed=0)
        assert steps_shown(env.render()) == [0, 1, 0]

    def test_no_render_mode_is_rejected(self):
        with pytest.raises(ValueError, match=r"Expected env\.render_mode to be not None"):
            RenderCollection(FrameEnv(render_mode=None))

    def test_list_render_mode_is_rejected(self):
        with pytest.raises(ValueError, match="to not end with '_list', got 'rgb_array_list'"):
            RenderCollection(RenderCollection(FrameEnv()))

    def test_arguments_are_recorded(self):
        env = RenderCollection(FrameEnv(), pop_frames=False, reset_clean=True)
        assert env._saved_kwargs == {"pop_frames": False, "reset_clean": True}

    def test_make_with_rgb_array_list_matches_gymnasium_frame_count(self):
        gymnasium = pytest.importorskip("gymnasium")
        frames = []
        for module in (gym, gymnasium):
            env = module.make("CartPole-v1", render_mode="rgb_array_list")
            env.reset(seed=3)
            env.step(1)
            frames.append(env.render())
        assert len(frames[0]) == len(frames[1]) == 2
        np.testing.assert_array_equal(frames[0][0].shape, frames[1][0].shape)


class TestHumanRendering:
    def test_render_mode_is_human(self):
        assert HumanRendering(FrameEnv()).render_mode == "human"

    def test_metadata_gains_human(self):
        assert HumanRendering(FrameEnv()).metadata["render_modes"] == ["rgb_array", "human"]

    def test_reset_opens_a_window_the_size_of_the_frame(self):
        env = HumanRendering(FrameEnv())
        env.reset(seed=0)
        assert env.window.get_size() == (FRAME_SHAPE[1], FRAME_SHAPE[0])
        env.close()

    def test_window_shows_the_latest_frame(self):
        env = HumanRendering(FrameEnv())
        env.reset(seed=0)
        env.step(0)
        env.step(0)
        assert tuple(env.window.get_at((0, 0)))[:3] == (40, 40, 40)
        env.close()

    def test_render_returns_none(self):
        env = HumanRendering(FrameEnv())
        env.reset(seed=0)
        assert env.render() is None
        env.close()

    def test_close_closes_the_window(self):
        env = HumanRendering(FrameEnv())
        env.reset(seed=0)
        env.close()
        assert env.window is None

    def test_list_mode_shows_last_frame(self):
        env = HumanRendering(RenderCollection(FrameEnv()))
        env.reset(seed=0)
        env.step(0)
        assert tuple(env.window.get_at((0, 0)))[:3] == (20, 20, 20)
        env.close()

    @pytest.mark.parametrize("render_mode", [None, "human", "ansi"])
    def test_non_image_render_mode_is_rejected(self, render_mode):
        with pytest.raises(ValueError, match=r"Expected env\.render_mode to be one of"):
            HumanRendering(FrameEnv(render_mode=render_mode))

    def test_missing_render_fps_is_rejected(self):
        env = FrameEnv()
        env.metadata = {"render_modes": ["rgb_array"]}
        with pytest.raises(ValueError, match="must specify 'render_fps'"):
            HumanRendering(env)


class TestAddRenderObservation:
    def test_render_only_observation_is_the_frame(self):
        env = AddRenderObservation(FrameEnv())
        env.reset(seed=0)
        obs, *_ = env.step(0)
        np.testing.assert_array_equal(obs, np.full(FRAME_SHAPE, 20, dtype=np.uint8))

    def test_render_only_space_is_a_uint8_box(self):
        env = AddRenderObservation(FrameEnv())
        assert env.observation_space == spaces.Box(0, 255, FRAME_SHAPE, np.uint8)

    def test_plain_observation_goes_under_obs_key(self):
        env = AddRenderObservation(FrameEnv(), render_only=False, render_key="px", obs_key="s")
        obs, _ = env.reset(seed=0)
        assert sorted(obs) == ["px", "s"]
        assert obs["s"] in env.env.observation_space

    def test_plain_observation_space_is_a_dict(self):
        env = AddRenderObservation(FrameEnv(), render_only=False)
        assert env.observation_space == spaces.Dict(
            {
                "state": FrameEnv().observation_space,
                "pixels": spaces.Box(0, 255, FRAME_SHAPE, np.uint8),
            }
        )

    def test_dict_observation_gains_render_key(self):
        inner = AddRenderObservation(FrameEnv(), render_only=False)
        env = AddRenderObservation(inner, render_only=False, render_key="again")
        obs, _ = env.reset(seed=0)
        assert sorted(obs) == ["again", "pixels", "state"]

    def test_existing_render_key_is_rejected(self):
        inner = AddRenderObservation(FrameEnv(), render_only=False)
        with pytest.raises(ValueError, match="render_key 'pixels' already exists"):
            AddRenderObservation(inner, render_only=False)

    @pytest.mark.parametrize("render_mode", [None, "human"])
    def test_render_mode_none_or_human_is_rejected(self, render_mode):
        with pytest.raises(ValueError, match="requires render_mode to be not None and not 'human'"):
            AddRenderObservation(FrameEnv(render_mode=render_mode))

    def test_non_array_rendering_is_rejected(self):
        env = FrameEnv(render_mode="ansi")
        env.render = lambda: "text"
        with pytest.raises(TypeError, match=r"expects env\.render\(\) to return a numpy array"):
            AddRenderObservation(env)

    def test_arguments_are_recorded(self):
        env = AddRenderObservation(FrameEnv(), render_only=False, render_key="a", obs_key="b")
        assert env._saved_kwargs == {"render_only": False, "render_key": "a", "obs_key": "b"}

    def test_cartpole_observations_match_gymnasium(self):
        gymnasium = pytest.importorskip("gymnasium")
        from gymnasium.wrappers import AddRenderObservation as Theirs

        ours = AddRenderObservation(gym.make("CartPole-v1", render_mode="rgb_array"), False)
        theirs = Theirs(gymnasium.make("CartPole-v1", render_mode="rgb_array"), False)
        assert str(ours.observation_space) == str(theirs.observation_space)
        for env in (ours, theirs):
            env.action_space.seed(5)
        results = []
        for env in (ours, theirs):
            obs, _ = env.reset(seed=5)
            for _ in range(3):
                obs, *_ = env.step(env.action_space.sample())
            results.append(obs)
        np.testing.assert_array_equal(results[0]["state"], results[1]["state"])
        assert results[0]["pixels"].shape == results[1]["pixels"].shape


SPEC_CASES = {
    "AddWhiteNoise": dict(probability_of_noise_per_pixel=0.2, is_noise_grayscale=True),
    "ObstructView": dict(obstructed_pixels_ratio=0.3, obstruction_width=4),
    "AddRenderObservation": dict(render_only=False, render_key="image"),
    "RenderCollection": dict(pop_frames=False),
    "HumanRendering": {},
}


@pytest.mark.parametrize("name", SPEC_CASES)
def test_make_from_spec_rebuilds_the_wrapper(name):
    from palaestra import wrappers

    env = getattr(wrappers, name)(
        gym.make("CartPole-v1", render_mode="rgb_array"), **SPEC_CASES[name]
    )
    rebuilt = gym.make(env.spec)
    assert type(rebuilt) is type(env)
    assert rebuilt.spec.additional_wrappers == env.spec.additional_wrappers
    rebuilt.close()


def test_human_rendering_without_pygame_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)
    env = HumanRendering(FrameEnv())
    with pytest.raises(DependencyNotInstalled, match=r"palaestra\[classic-control\]"):
        env.reset(seed=0)
