"""AtariPreprocessing behaves as Gymnasium's on a synthetic ALE-like game, option by option."""

import itertools

import gymnasium
import numpy as np
import pytest
from gymnasium.wrappers import AtariPreprocessing as ReferenceAtariPreprocessing

import palaestra
from palaestra.wrappers import AtariPreprocessing


class FakeALE:
    """The slice of ale-py's interface the wrapper uses, drawing screens from the game state."""

    def __init__(self, game):
        self.game = game

    def lives(self):
        return self.game.lives_left

    def getScreenRGB(self, out):
        out[...] = self.game.screen

    def getScreenGrayscale(self, out):
        out[...] = self.game.screen.mean(axis=-1).astype(np.uint8)


def arcade_class(framework):
    """The same little game written against ``framework``'s Env and spaces."""

    class Arcade(framework.Env):
        observation_space = framework.spaces.Box(0, 255, (210, 160, 3), np.uint8)
        action_space = framework.spaces.Discrete(4)
        _frameskip = 1

        def __init__(self, frames_per_life=23, meanings=("NOOP", "FIRE", "LEFT", "RIGHT")):
            self.ale = FakeALE(self)
            self.frames_per_life = frames_per_life
            self.meanings = list(meanings)

        def get_action_meanings(self):
            return self.meanings

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            self.frame, self.lives_left = 0, 3
            self.screen = self.np_random.integers(0, 256, (210, 160, 3), dtype=np.uint8)
            return self.screen.copy(), {"frame": 0}

        def step(self, action):
            self.frame += 1
            noise = self.np_random.integers(0, 40, (210, 160, 3), dtype=np.uint8)
            self.screen = (self.screen // 2 + noise + 50 * int(action)).astype(np.uint8)
            if self.frame % self.frames_per_life == 0:
                self.lives_left -= 1
            terminated = self.lives_left == 0
            truncated = self.frame >= 200
            return self.screen.copy(), float(action) - 1.0, terminated, truncated, {"frame": 1}

    return Arcade


OURS, REFERENCE = arcade_class(palaestra), arcade_class(gymnasium)

OPTIONS = [
    {},
    {"noop_max": 0},
    {"frame_skip": 1},
    {"frame_skip": 3, "screen_size": (64, 48)},
    {"terminal_on_life_loss": True},
    {"grayscale_obs": False},
    {"grayscale_newaxis": True},
    {"scale_obs": True},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "defaults")
def test_trajectory_equals_gymnasiums(options):
    ours = AtariPreprocessing(OURS(), **options)
    reference = ReferenceAtariPreprocessing(REFERENCE(), **options)
    assert ours.observation_space.shape == reference.observation_space.shape
    assert ours.observation_space.dtype == reference.observation_space.dtype
    actions = np.random.default_rng(1).integers(0, 4, 120)
    for seed in (0, 1):
        obs, info = ours.reset(seed=seed)
        expected_obs, expected_info = reference.reset(seed=seed)
        np.testing.assert_array_equal(obs, expected_obs)
        assert info == expected_info
        for action in actions:
            step = ours.step(int(action))
            expected = reference.step(int(action))
            np.testing.assert_array_equal(step[0], expected[0])
            assert step[1:] == expected[1:]
            assert ours.lives == reference.lives and ours.game_over == reference.game_over
            if step[2] or step[3]:
                break


BAD_ARGUMENTS = [
    ({"frame_skip": 0}, "Expect the `frame_skip` to be positive"),
    ({"screen_size": -1}, "Expect the `screen_size` to be positive"),
    ({"screen_size": (84, 0)}, "Expect the `screen_size` to be positive"),
    ({"noop_max": -1}, "Expect the `noop_max` to be non-negative"),
]


@pytest.mark.parametrize("kwargs, message", BAD_ARGUMENTS)
def test_bad_arguments_raise_gymnasiums_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ReferenceAtariPreprocessing(REFERENCE(), **kwargs)
    with pytest.raises(ValueError, match=message):
        AtariPreprocessing(OURS(), **kwargs)


def test_a_base_env_that_skips_frames_is_refused_as_in_gymnasium():
    ours_env, reference_env = OURS(), REFERENCE()
    ours_env._frameskip = reference_env._frameskip = 4
    message = "Disable frame-skipping in the original env"
    with pytest.raises(ValueError, match=message):
        ReferenceAtariPreprocessing(reference_env)
    with pytest.raises(ValueError, match=message):
        AtariPreprocessing(ours_env)


def test_noops_need_action_zero_to_mean_noop():
    message = "the first action meaning must be 'NOOP'"
    with pytest.raises(ValueError, match=message):
        ReferenceAtariPreprocessing(REFERENCE(meanings=("FIRE", "NOOP")))
    with pytest.raises(ValueError, match=message):
        AtariPreprocessing(OURS(meanings=("FIRE", "NOOP")))


def test_numpy_resize_matches_opencv_on_atari_screens(monkeypatch):
    # Without OpenCV the area-averaging resizer takes over; Atari's 210x160 -> 84x84 screens
    # come out within one grey level of OpenCV's INTER_AREA.
    from palaestra.wrappers import atari_preprocessing

    with_cv2 = AtariPreprocessing(OURS(), noop_max=0)
    monkeypatch.setattr(atari_preprocessing, "_opencv_resizer", lambda shape: None)
    without_cv2 = AtariPreprocessing(OURS(), noop_max=0)
    for seed, action in itertools.product(range(3), range(4)):
        with_cv2.reset(seed=seed)
        without_cv2.reset(seed=seed)
        expected, got = with_cv2.step(action)[0], without_cv2.step(action)[0]
        assert np.abs(expected.astype(int) - got.astype(int)).max() <= 1
