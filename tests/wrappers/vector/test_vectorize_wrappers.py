"""Batched observation, action and reward wrappers: as Gymnasium 1.4 in every autoreset mode."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from palaestra import spaces
from palaestra.wrappers import vector as vector_wrappers
from tests.wrappers.vector.differential import (
    AUTORESET_MODES,
    assert_same,
    assert_same_error,
    assert_same_space,
    composite_env_class,
    gymnasium_module,
    image_env_class,
    make_vec_pair,
    sample_actions,
    vector_rollout,
)

NUM_ENVS = 3

CASES = [
    ("CartPole-v1", "FlattenObservation", {}),
    ("CartPole-v1", "ReshapeObservation", {"shape": (2, 2)}),
    ("Pendulum-v1", "RescaleObservation", {"min_obs": -1.0, "max_obs": 1.0}),
    ("CartPole-v1", "DtypeObservation", {"dtype": np.float64}),
    ("Acrobot-v1", "DtypeObservation", {"dtype": np.float32}),
    ("CartPole-v1", "NormalizeObservation", {}),
    ("Pendulum-v1", "ClipAction", {}),
    ("MountainCarContinuous-v0", "RescaleAction", {"min_action": 0.0, "max_action": 1.0}),
    ("CartPole-v1", "ClipReward", {"min_reward": 0.2, "max_reward": 0.8}),
    ("Pendulum-v1", "ClipReward", {"min_reward": -4.0}),
    ("CartPole-v1", "NormalizeReward", {}),
    ("MountainCar-v0", "NormalizeReward", {"gamma": 0.9}),
    ("CartPole-v1", "DictInfoToList", {}),
]


def build_pair(env_id, wrapper_name, kwargs, mode):
    gym = gymnasium_module()
    ours_envs, theirs_envs = make_vec_pair(env_id, NUM_ENVS, mode, max_episode_steps=20)
    theirs_wrapper = getattr(gym.wrappers.vector, wrapper_name)
    ours_wrapper = getattr(vector_wrappers, wrapper_name)
    return lambda: ours_wrapper(ours_envs, **kwargs), lambda: theirs_wrapper(theirs_envs, **kwargs)


def wide_actions(envs):
    """Seeded actions; continuous ones reach outside the bounds to exercise clipping."""
    space = envs.action_space
    if isinstance(space, spaces.Box) and np.all(np.isfinite(space.low)):
        space = spaces.Box(space.low * 2, space.high * 2, space.shape, space.dtype)
    return sample_actions(space, 70)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("mode", AUTORESET_MODES)
@pytest.mark.parametrize(("env_id", "wrapper_name", "kwargs"), CASES)
def test_vector_wrapper_matches_gymnasium_in_every_autoreset_mode(
    env_id, wrapper_name, kwargs, mode
):
    build_ours, build_theirs = build_pair(env_id, wrapper_name, kwargs, mode)
    try:
        theirs = build_theirs()
    except Exception:
        assert_same_error(build_ours, build_theirs)
        return
    ours = build_ours()
    assert repr(ours) == repr(theirs)
    assert_same_space(ours.observation_space, theirs.observation_space)
    assert_same_space(ours.single_observation_space, theirs.single_observation_space)
    assert_same_space(ours.action_space, theirs.action_space)
    assert_same_space(ours.single_action_space, theirs.single_action_space)
    actions = wide_actions(ours)
    assert_same(vector_rollout(ours, actions, mode), vector_rollout(theirs, actions, mode))


@pytest.mark.parametrize("mode", AUTORESET_MODES)
def test_transform_observation_batch_function_matches_gymnasium(mode):
    gym = gymnasium_module()
    ours_envs, theirs_envs = make_vec_pair("CartPole-v1", NUM_ENVS, mode)

    def build_ours():
        return vector_wrappers.TransformObservation(
            ours_envs, lambda obs: obs[:, :2], single_observation_space=spaces.Box(-5, 5, (2,))
        )

    def build_theirs():
        return gym.wrappers.vector.TransformObservation(
            theirs_envs,
            lambda obs: obs[:, :2],
            single_observation_space=gym.spaces.Box(-5, 5, (2,)),
        )

    if mode == "SAME_STEP":
        assert_same_error(build_ours, build_theirs)
        return
    ours, theirs = build_ours(), build_theirs()
    assert_same_space(ours.observation_space, theirs.observation_space)
    actions = sample_actions(ours.action_space, 40)
    assert_same(vector_rollout(ours, actions, mode), vector_rollout(theirs, actions, mode))


@pytest.mark.parametrize("mode", AUTORESET_MODES)
def test_transform_action_and_reward_batch_functions_match_gymnasium(mode):
    gym = gymnasium_module()
    ours_envs, theirs_envs = make_vec_pair("CartPole-v1", NUM_ENVS, mode)
    ours = vector_wrappers.TransformReward(
        vector_wrappers.TransformAction(ours_envs, lambda actions: 1 - actions), lambda r: r * 2
    )
    theirs = gym.wrappers.vector.TransformReward(
        gym.wrappers.vector.TransformAction(theirs_envs, lambda actions: 1 - actions),
        lambda r: r * 2,
    )
    actions = sample_actions(ours.action_space, 40)
    assert_same(vector_rollout(ours, actions, mode), vector_rollout(theirs, actions, mode))


def test_vectorize_transform_observation_accepts_discretize_observation():
    envs = palaestra.make_vec("MountainCar-v0", num_envs=2, vectorization_mode="sync")
    envs = vector_wrappers.VectorizeTransformObservation(
        envs, palaestra.wrappers.DiscretizeObservation, bins=4
    )
    assert envs.observation_space == spaces.MultiDiscrete([16, 16])
    observations, _ = envs.reset(seed=0)
    assert observations.shape == (2,)
    assert observations in envs.observation_space


def test_vectorize_transform_action_accepts_discretize_action():
    envs = palaestra.make_vec("Pendulum-v1", num_envs=2, vectorization_mode="sync")
    envs = vector_wrappers.VectorizeTransformAction(
        envs, palaestra.wrappers.DiscretizeAction, bins=3
    )
    envs.reset(seed=0)
    np.testing.assert_allclose(envs.actions(np.array([0, 2])), [[-4 / 3], [4 / 3]], rtol=1e-6)


def test_observation_wrappers_refuse_same_step_envs():
    # As in Gymnasium: the batched final_obs of SAME_STEP would escape the transformation.
    envs = palaestra.make_vec(
        "Pendulum-v1",
        num_envs=2,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": palaestra.vector.AutoresetMode.SAME_STEP},
    )
    with pytest.raises(ValueError, match="SAME_STEP"):
        vector_wrappers.RescaleObservation(envs, -1.0, 1.0)


def sync_pair(factory, mode, num_envs=3):
    """Sync vector envs of a custom env, built from palaestra and from Gymnasium."""
    gym = gymnasium_module()
    ours_class, theirs_class = factory(palaestra), factory(gym)
    ours = palaestra.vector.SyncVectorEnv(
        [ours_class] * num_envs, autoreset_mode=palaestra.vector.AutoresetMode[mode]
    )
    theirs = gym.vector.SyncVectorEnv(
        [theirs_class] * num_envs, autoreset_mode=gym.vector.AutoresetMode[mode]
    )
    return ours, theirs


def dict_env(library):
    return composite_env_class(library, "dict")


def tuple_env(library):
    return composite_env_class(library, "tuple")


CUSTOM_CASES = [
    (image_env_class, "GrayscaleObservation", {}),
    (image_env_class, "GrayscaleObservation", {"keep_dim": True}),
    (image_env_class, "ReshapeObservation", {"shape": (24, 24)}),
    (image_env_class, "DtypeObservation", {"dtype": np.float32}),
    (dict_env, "FilterObservation", {"filter_keys": ["flags", "gear"]}),
    (tuple_env, "FilterObservation", {"filter_keys": [1]}),
    (dict_env, "FlattenObservation", {}),
    (tuple_env, "FlattenObservation", {}),
]


@pytest.mark.parametrize("mode", ["NEXT_STEP", "DISABLED"])
@pytest.mark.parametrize(("factory", "wrapper_name", "kwargs"), CUSTOM_CASES)
def test_vector_wrapper_of_custom_envs_matches_gymnasium(factory, wrapper_name, kwargs, mode):
    gym = gymnasium_module()
    ours_envs, theirs_envs = sync_pair(factory, mode)
    ours = getattr(vector_wrappers, wrapper_name)(ours_envs, **kwargs)
    theirs = getattr(gym.wrappers.vector, wrapper_name)(theirs_envs, **kwargs)
    assert_same_space(ours.observation_space, theirs.observation_space)
    assert_same_space(ours.single_observation_space, theirs.single_observation_space)
    actions = sample_actions(ours.action_space, 20)
    assert_same(vector_rollout(ours, actions, mode), vector_rollout(theirs, actions, mode))


def test_vector_resize_matches_gymnasium_with_opencv():
    gym = gymnasium_module()
    pytest.importorskip("cv2", reason="Gymnasium's ResizeObservation needs OpenCV")
    ours_envs, theirs_envs = sync_pair(image_env_class, "NEXT_STEP")
    ours = vector_wrappers.ResizeObservation(ours_envs, shape=(6, 8))
    theirs = gym.wrappers.vector.ResizeObservation(theirs_envs, shape=(6, 8))
    actions = sample_actions(ours.action_space, 12)
    assert_same(
        vector_rollout(ours, actions, "NEXT_STEP"), vector_rollout(theirs, actions, "NEXT_STEP")
    )


def test_vector_resize_without_opencv_shrinks_every_image():
    ours_envs = palaestra.vector.SyncVectorEnv([image_env_class(palaestra)] * 2)
    envs = vector_wrappers.ResizeObservation(ours_envs, shape=(6, 8))
    observations, _ = envs.reset(seed=0)
    assert observations.shape == (2, 6, 8, 3)
    assert observations.dtype == np.uint8


@pytest.mark.parametrize(
    ("wrapper_name", "kwargs"),
    [("ClipAction", {}), ("RescaleAction", {"min_action": -1.0, "max_action": 3.0})],
)
def test_float64_actions_are_cast_like_gymnasium(wrapper_name, kwargs):
    gym = gymnasium_module()
    ours_envs, theirs_envs = make_vec_pair("Pendulum-v1", NUM_ENVS, "NEXT_STEP")
    ours = getattr(vector_wrappers, wrapper_name)(ours_envs, **kwargs)
    theirs = getattr(gym.wrappers.vector, wrapper_name)(theirs_envs, **kwargs)
    actions = np.random.default_rng(0).uniform(-5, 5, (20, NUM_ENVS, 1))
    for action in actions:
        assert_same(ours.actions(action.copy()), theirs.actions(action.copy()))


def test_batched_observation_transform_leaves_the_input_batch_untouched():
    envs = palaestra.make_vec("Pendulum-v1", 2, vectorization_mode="sync")
    envs = vector_wrappers.RescaleObservation(envs, -1.0, 1.0)
    raw = np.ones((2, 3), dtype=np.float32)
    envs.observations(raw)
    assert raw.tolist() == [[1.0] * 3] * 2
