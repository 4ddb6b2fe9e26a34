"""Stateless observation wrappers: identical to Gymnasium 1.4 side by side, plus our resize."""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

import palaestra
from palaestra import spaces
from palaestra.wrappers import (
    DiscretizeObservation,
    FilterObservation,
    ResizeObservation,
    TransformObservation,
)
from palaestra.wrappers.utils import AreaResizer, area_weights
from tests.wrappers.vector.differential import (
    assert_same,
    assert_same_error,
    assert_same_space,
    composite_env_class,
    gymnasium_module,
    image_env_class,
    rollout,
    sample_actions,
)


def build_base(library, base):
    """``base`` is an env id or a factory taking the library module."""
    return library.make(base) if isinstance(base, str) else base(library)()


def wrapped_pair(base, wrapper_name, **kwargs):
    gym = gymnasium_module()
    ours = getattr(palaestra.wrappers, wrapper_name)(build_base(palaestra, base), **kwargs)
    theirs = getattr(gym.wrappers, wrapper_name)(build_base(gym, base), **kwargs)
    return ours, theirs


def dict_env(gym):
    return composite_env_class(gym, "dict")


def tuple_env(gym):
    return composite_env_class(gym, "tuple")


DIFFERENTIAL_CASES = [
    ("CartPole-v1", "FlattenObservation", {}),
    (dict_env, "FlattenObservation", {}),
    (tuple_env, "FlattenObservation", {}),
    (dict_env, "FilterObservation", {"filter_keys": ["gear", "position"]}),
    (tuple_env, "FilterObservation", {"filter_keys": [2, 0]}),
    (image_env_class, "GrayscaleObservation", {}),
    (image_env_class, "GrayscaleObservation", {"keep_dim": True}),
    ("CartPole-v1", "ReshapeObservation", {"shape": (2, 2)}),
    (image_env_class, "ReshapeObservation", {"shape": (12, 48)}),
    ("Pendulum-v1", "RescaleObservation", {"min_obs": -1.0, "max_obs": 1.0}),
    (
        "MountainCar-v0",
        "RescaleObservation",
        {"min_obs": np.array([0.0, -2.0], np.float32), "max_obs": np.array([1.0, 2.0], np.float32)},
    ),
    ("CartPole-v1", "DtypeObservation", {"dtype": np.float64}),
    (image_env_class, "DtypeObservation", {"dtype": np.float32}),
    ("Acrobot-v1", "DtypeObservation", {"dtype": np.float16}),
    ("MountainCar-v0", "DiscretizeObservation", {"bins": 5}),
    ("MountainCar-v0", "DiscretizeObservation", {"bins": (3, 7), "multidiscrete": True}),
    ("Pendulum-v1", "DiscretizeObservation", {"bins": 4}),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("base", "wrapper_name", "kwargs"), DIFFERENTIAL_CASES)
def test_wrapper_matches_gymnasium_step_for_step(base, wrapper_name, kwargs):
    ours, theirs = wrapped_pair(base, wrapper_name, **kwargs)
    assert_same_space(ours.observation_space, theirs.observation_space)
    assert_same_space(ours.action_space, theirs.action_space)
    actions = sample_actions(ours.action_space, 40)
    assert_same(rollout(ours, actions), rollout(theirs, actions))


def test_transform_observation_matches_gymnasium_with_a_new_space():
    gym = gymnasium_module()
    ours = TransformObservation(
        palaestra.make("CartPole-v1"), lambda obs: obs[:2] * 2, spaces.Box(-10, 10, (2,))
    )
    theirs = gym.wrappers.TransformObservation(
        gym.make("CartPole-v1"), lambda obs: obs[:2] * 2, gym.spaces.Box(-10, 10, (2,))
    )
    assert_same_space(ours.observation_space, theirs.observation_space)
    actions = sample_actions(ours.action_space, 30)
    assert_same(rollout(ours, actions), rollout(theirs, actions))


def test_transform_observation_without_space_keeps_the_inner_space():
    env = palaestra.make("CartPole-v1")
    assert (
        TransformObservation(env, lambda obs: obs, None).observation_space == env.observation_space
    )


BAD_ARGUMENTS = [
    (dict_env, "FilterObservation", {"filter_keys": "gear"}),
    (dict_env, "FilterObservation", {"filter_keys": {"gear"}}),
    (dict_env, "FilterObservation", {"filter_keys": [1]}),
    (dict_env, "FilterObservation", {"filter_keys": ["missing"]}),
    (dict_env, "FilterObservation", {"filter_keys": []}),
    (tuple_env, "FilterObservation", {"filter_keys": ["a"]}),
    (tuple_env, "FilterObservation", {"filter_keys": [0, 0]}),
    (tuple_env, "FilterObservation", {"filter_keys": [5]}),
    (tuple_env, "FilterObservation", {"filter_keys": []}),
    ("CartPole-v1", "FilterObservation", {"filter_keys": [0]}),
    (dict_env, "GrayscaleObservation", {}),
    ("CartPole-v1", "GrayscaleObservation", {}),
    (dict_env, "ReshapeObservation", {"shape": (2,)}),
    ("CartPole-v1", "ReshapeObservation", {"shape": (3, 2)}),
    ("CartPole-v1", "ReshapeObservation", {"shape": [2, 2]}),
    ("CartPole-v1", "ReshapeObservation", {"shape": (2.0, 2)}),
    ("CartPole-v1", "ReshapeObservation", {"shape": (-2, -2)}),
    (dict_env, "RescaleObservation", {"min_obs": 0.0, "max_obs": 1.0}),
    ("Pendulum-v1", "RescaleObservation", {"min_obs": "0", "max_obs": 1.0}),
    ("Pendulum-v1", "RescaleObservation", {"min_obs": np.zeros(2), "max_obs": 1.0}),
    ("Pendulum-v1", "RescaleObservation", {"min_obs": 1.0, "max_obs": 0.0}),
    ("CartPole-v1", "RescaleObservation", {"min_obs": 0.0, "max_obs": 1.0}),
    (dict_env, "DtypeObservation", {"dtype": np.float32}),
    (dict_env, "DiscretizeObservation", {"bins": 3}),
    ("CartPole-v1", "DiscretizeObservation", {"bins": 3}),
    ("MountainCar-v0", "DiscretizeObservation", {"bins": (3, 3, 3)}),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("base", "wrapper_name", "kwargs"), BAD_ARGUMENTS)
def test_invalid_arguments_raise_the_same_error_as_gymnasium(base, wrapper_name, kwargs):
    gym = gymnasium_module()
    assert_same_error(
        lambda: getattr(palaestra.wrappers, wrapper_name)(build_base(palaestra, base), **kwargs),
        lambda: getattr(gym.wrappers, wrapper_name)(build_base(gym, base), **kwargs),
    )


def test_filter_observation_error_names_the_missing_keys():
    with pytest.raises(ValueError, match="Missing keys: \\['speed'\\]"):
        FilterObservation(dict_env(palaestra)(), filter_keys=["gear", "speed"])


def test_discretize_observation_reverts_to_the_cell_containing_the_value():
    env = DiscretizeObservation(palaestra.make("MountainCar-v0"), bins=(3, 7), multidiscrete=True)
    value = np.array([0.1, -0.01], dtype=np.float32)
    low, high = env.revert_observation(env.observation(value))
    assert np.all(low <= value)
    assert np.all(value < high)


def test_discretize_observation_puts_the_upper_bound_in_the_last_bin():
    env = DiscretizeObservation(palaestra.make("MountainCar-v0"), bins=4, multidiscrete=True)
    assert env.observation(env.env.observation_space.high).tolist() == [3, 3]


# ---- ResizeObservation: our own interpolation (Gymnasium needs OpenCV for it) ----


def image_env(shape, low=0, high=255, dtype=np.uint8):
    class Camera(palaestra.Env):
        observation_space = spaces.Box(low, high, shape, dtype)

    return Camera()


def test_area_weights_rows_sum_to_one_for_any_scale():
    for in_size, out_size in [(7, 3), (3, 7), (210, 84), (5, 5)]:
        np.testing.assert_allclose(area_weights(in_size, out_size).sum(axis=1), 1.0)


def test_integer_shrink_is_the_block_mean_rounded_half_up():
    image = np.array([[0, 1, 10, 20], [2, 3, 30, 40]], dtype=np.uint8)
    resized = AreaResizer((2, 4), (1, 2))(image)
    assert resized.tolist() == [[2, 25]]
    assert resized.dtype == np.uint8


def test_resize_keeps_a_constant_image_constant():
    image = np.full((10, 14, 3), 77, dtype=np.uint8)
    env = ResizeObservation(image_env((10, 14, 3)), shape=(4, 9))
    assert np.all(env.observation(image) == 77)


def test_area_resizer_enlarging_repeats_pixels():
    image = np.array([[10, 20]], dtype=np.uint8)
    assert AreaResizer((1, 2), (2, 4))(image).tolist() == [[10, 10, 20, 20], [10, 10, 20, 20]]


def test_area_resizer_non_integer_shrink_weights_partial_pixels():
    image = np.array([[0, 30, 90]], dtype=np.uint8)
    # Each output pixel covers 1.5 input pixels: (0 + 15) / 1.5 = 10 and (15 + 90) / 1.5 = 70.
    assert AreaResizer((1, 3), (1, 2))(image).tolist() == [[10, 70]]


def test_resize_uses_numpy_when_opencv_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "cv2", None)
    env = ResizeObservation(image_env((8, 8)), shape=(4, 4))
    assert env.backend == "numpy"
    assert env.observation(np.full((8, 8), 9, np.uint8)).tolist() == [[9] * 4] * 4


@pytest.mark.parametrize(
    ("inner", "shape", "expected"), [((8, 8, 3), (4, 2), (4, 2, 3)), ((8, 6), (3, 5), (3, 5))]
)
def test_resize_space_and_observation_shapes(inner, shape, expected):
    env = ResizeObservation(image_env(inner), shape=shape)
    assert env.observation_space == spaces.Box(0, 255, expected, np.uint8)
    assert env.observation(np.zeros(inner, np.uint8)).shape == expected


@pytest.mark.parametrize(
    ("inner", "shape", "error", "message"),
    [
        ((8, 8, 3), [4, 4], TypeError, "shape to be a tuple, got <class 'list'>"),
        ((8, 8, 3), (4,), ValueError, "shape tuple of length 2, got (4,)"),
        ((8, 8, 3), (4.0, 4), TypeError, "shape elements to be integers, got (4.0, 4)"),
        ((8, 8, 3), (0, 4), ValueError, "shape elements to be greater than 0, got (0, 4)"),
        ((8,), (4, 4), ValueError, "a 2D or 3D image, got shape (8,)"),
    ],
)
def test_resize_rejects_bad_shapes(inner, shape, error, message):
    with pytest.raises(error, match=re.escape(message)):
        ResizeObservation(image_env(inner), shape=shape)


def test_resize_rejects_non_uint8_images():
    with pytest.raises(ValueError, match="uint8"):
        ResizeObservation(image_env((8, 8), dtype=np.float32), shape=(4, 4))


def test_resize_rejects_non_image_bounds():
    with pytest.raises(ValueError, match="0 to 255"):
        ResizeObservation(image_env((8, 8), high=1), shape=(4, 4))


@pytest.mark.parametrize("out_size", [(105, 80), (105, 40), (70, 80), (6, 4), (84, 84)])
def test_area_resizer_is_within_one_grey_level_of_opencv(out_size):
    cv2 = pytest.importorskip("cv2", reason="OpenCV is optional; compared only when installed")
    image = np.random.default_rng(0).integers(0, 256, (210, 160, 3), dtype=np.uint8)
    ours = AreaResizer((210, 160), out_size)(image).astype(int)
    expected = cv2.resize(image, out_size[::-1], interpolation=cv2.INTER_AREA).astype(int)
    # OpenCV rounds some exact halves down; halving each axis is exact on both sides.
    assert np.abs(ours - expected).max() <= (0 if out_size == (105, 80) else 1)


@pytest.mark.parametrize("keep_channel", [True, False])
def test_resize_with_opencv_matches_gymnasium(keep_channel):
    pytest.importorskip("cv2", reason="Gymnasium's ResizeObservation needs OpenCV")
    shape = (12, 16, 1) if keep_channel else (12, 16)

    def camera(library):
        class Camera(image_env_class(library)):
            def __init__(self):
                super().__init__()
                self.observation_space = library.spaces.Box(0, 255, shape, np.uint8)

            def _image(self):
                return self.np_random.integers(0, 256, shape, dtype=np.uint8)

        return Camera

    ours, theirs = wrapped_pair(camera, "ResizeObservation", shape=(5, 7))
    assert ours.backend == "opencv"
    actions = sample_actions(ours.action_space, 10)
    assert_same(rollout(ours, actions), rollout(theirs, actions))
