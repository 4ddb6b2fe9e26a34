"""AddWhiteNoise and ObstructView, and their pure noise and mask helpers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.error import InvalidProbability
from palaestra.wrappers import AddWhiteNoise, ObstructView
from palaestra.wrappers.rendering import patch_mask, pixel_noise
from tests.wrappers.test_rendering_support import FRAME_SHAPE, FrameEnv, make_frame_env_class


class TestPatchMask:
    def test_square_is_centred_at_half_width(self):
        mask = patch_mask((5, 5), (np.array([2]), np.array([2])), 3)
        assert mask.astype(int).tolist() == [
            [0, 0, 0, 0, 0],
            [0, 1, 1, 1, 0],
            [0, 1, 1, 1, 0],
            [0, 1, 1, 1, 0],
            [0, 0, 0, 0, 0],
        ]

    def test_no_centers_give_an_empty_mask(self):
        assert not patch_mask((4, 4), (np.array([], int), np.array([], int)), 2).any()

    def test_squares_are_clipped_at_the_edges(self):
        mask = patch_mask((3, 4), (np.array([0, 2]), np.array([0, 3])), 3)
        assert mask.astype(int).tolist() == [[1, 1, 0, 0], [1, 1, 1, 1], [0, 0, 1, 1]]

    @settings(max_examples=40, deadline=None)
    @given(
        height=st.integers(1, 12),
        width=st.integers(1, 12),
        side=st.integers(1, 6),
        seed=st.integers(0, 2**32 - 1),
        count=st.integers(0, 6),
    )
    def test_covers_every_centre_and_at_most_count_squares(self, height, width, side, seed, count):
        rng = np.random.default_rng(seed)
        centers = np.unravel_index(rng.integers(0, height * width, count), (height, width))
        mask = patch_mask((height, width), centers, side)
        assert mask[centers].all()
        assert mask.sum() <= count * side**2


class TestPixelNoise:
    def test_colour_noise_stays_below_255(self):
        noise = pixel_noise(np.random.default_rng(0), (50, 50, 3), grayscale=False)
        assert (noise.dtype, int(noise.max()) <= 254) == (np.uint8, True)

    def test_gray_noise_has_equal_channels(self):
        noise = pixel_noise(np.random.default_rng(0), (8, 8, 3), grayscale=True)
        assert (noise == noise[..., :1]).all()

    def test_gray_noise_fits_in_uint8(self):
        noise = pixel_noise(np.random.default_rng(0), (64, 64, 3), grayscale=True)
        assert noise.dtype == np.uint8 and int(noise.max()) <= 252


class TestAddWhiteNoise:
    @pytest.mark.parametrize("probability", [-0.1, 1.0, 1.5])
    def test_probability_outside_unit_interval_is_rejected(self, probability):
        with pytest.raises(InvalidProbability, match=f"Received {probability}"):
            AddWhiteNoise(FrameEnv(), probability_of_noise_per_pixel=probability)

    def test_zero_probability_leaves_the_frame(self):
        env = AddWhiteNoise(FrameEnv(), probability_of_noise_per_pixel=0.0)
        env.reset(seed=0)
        env.step(0)
        np.testing.assert_array_equal(env.render(), np.full(FRAME_SHAPE, 20, np.uint8))

    def test_noise_covers_about_the_given_share(self):
        env = AddWhiteNoise(FrameEnv(), probability_of_noise_per_pixel=0.5)
        env.reset(seed=0)
        changed = (env.render() != 0).any(axis=-1).mean()
        assert 0.4 < changed < 0.6

    def test_rendering_stays_uint8(self):
        env = AddWhiteNoise(FrameEnv(), 0.3, is_noise_grayscale=True)
        env.reset(seed=0)
        assert env.render().dtype == np.uint8

    def test_arguments_are_recorded(self):
        env = AddWhiteNoise(FrameEnv(), 0.25, True)
        assert env._saved_kwargs == {
            "probability_of_noise_per_pixel": 0.25,
            "is_noise_grayscale": True,
        }


class TestObstructView:
    @pytest.mark.parametrize("ratio", [-0.5, 1.0])
    def test_ratio_outside_unit_interval_is_rejected(self, ratio):
        with pytest.raises(ValueError, match="obstructed_pixels_ratio should be in the interval"):
            ObstructView(FrameEnv(), obstructed_pixels_ratio=ratio, obstruction_width=2)

    def test_width_below_one_is_rejected(self):
        with pytest.raises(ValueError, match="obstruction_width should be larger or equal than 1"):
            ObstructView(FrameEnv(), obstructed_pixels_ratio=0.5, obstruction_width=0)

    def test_zero_ratio_leaves_the_frame(self):
        env = ObstructView(FrameEnv(), obstructed_pixels_ratio=0.0, obstruction_width=3)
        env.reset(seed=0)
        np.testing.assert_array_equal(env.render(), np.zeros(FRAME_SHAPE, np.uint8))

    def test_arguments_are_recorded(self):
        env = ObstructView(FrameEnv(), 0.5, 4, True)
        assert env._saved_kwargs == {
            "obstructed_pixels_ratio": 0.5,
            "obstruction_width": 4,
            "is_noise_grayscale": True,
        }


NOISE_WRAPPERS = {
    "white noise": ("AddWhiteNoise", dict(probability_of_noise_per_pixel=0.3)),
    "gray white noise": (
        "AddWhiteNoise",
        dict(probability_of_noise_per_pixel=0.6, is_noise_grayscale=True),
    ),
    "obstruction": ("ObstructView", dict(obstructed_pixels_ratio=0.4, obstruction_width=5)),
    "gray obstruction": (
        "ObstructView",
        dict(obstructed_pixels_ratio=0.7, obstruction_width=4, is_noise_grayscale=True),
    ),
}


@pytest.mark.parametrize("seed", [0, 123])
@pytest.mark.parametrize("case", NOISE_WRAPPERS)
def test_noisy_frames_and_random_stream_match_gymnasium(case, seed):
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium import wrappers as gymnasium_wrappers

    from palaestra import wrappers

    name, kwargs = NOISE_WRAPPERS[case]
    ours = getattr(wrappers, name)(FrameEnv(), **kwargs)
    gym_env = make_frame_env_class(gymnasium.Env, gymnasium.spaces)()
    theirs = getattr(gymnasium_wrappers, name)(gym_env, **kwargs)
    for env in (ours, theirs):
        env.reset(seed=seed)
    for _ in range(3):
        np.testing.assert_array_equal(ours.render(), theirs.render())
        ours.step(0), theirs.step(0)
    assert ours.np_random.random() == theirs.np_random.random()
