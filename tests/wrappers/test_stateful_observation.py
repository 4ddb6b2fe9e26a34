"""Observation wrappers with state: identical to Gymnasium 1.4, and keepable statistics."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import palaestra
from palaestra.wrappers import (
    DelayObservation,
    FrameStackObservation,
    NormalizeObservation,
    TimeAwareObservation,
)
from tests.wrappers.test_transform_observation import build_base, dict_env, tuple_env, wrapped_pair
from tests.wrappers.vector.differential import (
    assert_same,
    assert_same_error,
    assert_same_space,
    gymnasium_module,
    image_env_class,
    rollout,
    sample_actions,
)


def limited(factory, steps=7):
    """A custom env under a TimeLimit, so TimeAwareObservation knows the episode length."""

    def build(library):
        return lambda: library.wrappers.TimeLimit(factory(library)(), max_episode_steps=steps)

    return build


DIFFERENTIAL_CASES = [
    ("CartPole-v1", "NormalizeObservation", {}),
    ("Pendulum-v1", "NormalizeObservation", {"epsilon": 1e-3}),
    (image_env_class, "NormalizeObservation", {}),
    ("CartPole-v1", "TimeAwareObservation", {}),
    ("CartPole-v1", "TimeAwareObservation", {"flatten": False}),
    ("CartPole-v1", "TimeAwareObservation", {"normalize_time": True}),
    ("MountainCar-v0", "TimeAwareObservation", {"flatten": False, "normalize_time": True}),
    (limited(dict_env), "TimeAwareObservation", {"flatten": False, "dict_time_key": "t"}),
    (limited(dict_env), "TimeAwareObservation", {}),
    (limited(tuple_env), "TimeAwareObservation", {"flatten": False}),
    ("CartPole-v1", "FrameStackObservation", {"stack_size": 3}),
    ("CartPole-v1", "FrameStackObservation", {"stack_size": 4, "padding_type": "zero"}),
    (
        "CartPole-v1",
        "FrameStackObservation",
        {"stack_size": 2, "padding_type": np.array([0.1, 0, 0, 0], np.float32)},
    ),
    (dict_env, "FrameStackObservation", {"stack_size": 3}),
    (image_env_class, "FrameStackObservation", {"stack_size": 2, "padding_type": "zero"}),
    ("CartPole-v1", "DelayObservation", {"delay": 0}),
    ("CartPole-v1", "DelayObservation", {"delay": 3}),
    ("MountainCar-v0", "DelayObservation", {"delay": 2}),
    (dict_env, "DelayObservation", {"delay": 1}),
    ("CartPole-v1", "MaxAndSkipObservation", {}),
    ("Pendulum-v1", "MaxAndSkipObservation", {"skip": 2}),
    (image_env_class, "MaxAndSkipObservation", {"skip": 3}),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("base", "wrapper_name", "kwargs"), DIFFERENTIAL_CASES)
def test_wrapper_matches_gymnasium_step_for_step(base, wrapper_name, kwargs):
    ours, theirs = wrapped_pair(base, wrapper_name, **kwargs)
    assert_same_space(ours.observation_space, theirs.observation_space)
    actions = sample_actions(ours.action_space, 60)
    assert_same(rollout(ours, actions), rollout(theirs, actions))


BAD_ARGUMENTS = [
    ("CartPole-v1", "NormalizeObservation", {"epsilon": 0.0}),
    ("CartPole-v1", "DelayObservation", {"delay": 1.5}),
    ("CartPole-v1", "DelayObservation", {"delay": -1}),
    ("CartPole-v1", "FrameStackObservation", {"stack_size": 0}),
    ("CartPole-v1", "FrameStackObservation", {"stack_size": 2.0}),
    ("CartPole-v1", "FrameStackObservation", {"stack_size": 2, "padding_type": "zeros"}),
    ("CartPole-v1", "FrameStackObservation", {"stack_size": 2, "padding_type": np.ones(3)}),
    ("CartPole-v1", "MaxAndSkipObservation", {"skip": 1}),
    ("CartPole-v1", "MaxAndSkipObservation", {"skip": 2.0}),
    (dict_env, "MaxAndSkipObservation", {}),
    (dict_env, "TimeAwareObservation", {}),
    (limited(dict_env), "TimeAwareObservation", {"dict_time_key": "gear"}),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("base", "wrapper_name", "kwargs"), BAD_ARGUMENTS)
def test_invalid_arguments_raise_the_same_error_as_gymnasium(base, wrapper_name, kwargs):
    gym = gymnasium_module()
    assert_same_error(
        lambda: getattr(palaestra.wrappers, wrapper_name)(build_base(palaestra, base), **kwargs),
        lambda: getattr(gym.wrappers, wrapper_name)(build_base(gym, base), **kwargs),
    )


def test_time_aware_observation_counts_steps_and_restarts_on_reset():
    env = TimeAwareObservation(palaestra.make("CartPole-v1"), flatten=False)
    assert env.reset(seed=0)[0]["time"].tolist() == [0]
    env.step(0)
    assert env.step(0)[0]["time"].tolist() == [2]
    assert env.reset()[0]["time"].tolist() == [0]


def test_delay_observation_returns_the_observation_from_delay_steps_ago():
    env = DelayObservation(palaestra.make("CartPole-v1"), delay=2)
    first, _ = env.env.reset(seed=3)
    env.reset(seed=3)
    env.step(0)
    assert np.array_equal(env.step(0)[0], first)


def test_frame_stack_returns_a_fresh_array_each_step():
    env = FrameStackObservation(palaestra.make("CartPole-v1"), stack_size=2)
    first, _ = env.reset(seed=0)
    kept = first.copy()
    env.step(1)
    assert np.array_equal(first, kept)


# ---- NormalizeObservation: statistics you can keep ----


@pytest.fixture
def trained_normalizer():
    env = NormalizeObservation(palaestra.make("CartPole-v1"))
    env.reset(seed=0)
    for action in sample_actions(env.action_space, 30):
        if any(env.step(action)[2:4]):
            env.reset()
    return env


def test_normalizer_exposes_mean_var_and_count(trained_normalizer):
    rms = trained_normalizer.obs_rms
    assert rms.mean.shape == rms.var.shape == (4,)
    assert rms.mean.dtype == rms.var.dtype == np.float32


def test_each_observation_adds_one_to_the_count():
    env = NormalizeObservation(palaestra.make("CartPole-v1"))
    env.reset(seed=0)
    env.step(0)
    env.step(1)
    assert env.obs_rms.count == pytest.approx(3 + 1e-4)


def test_frozen_normalizer_does_not_change_its_statistics(trained_normalizer):
    before = trained_normalizer.get_state()
    trained_normalizer.update_running_mean = False
    trained_normalizer.reset(seed=1)
    trained_normalizer.step(0)
    assert_same(trained_normalizer.get_state(), before)


def test_restored_statistics_normalize_like_the_trained_wrapper(trained_normalizer):
    trained_normalizer.update_running_mean = False
    evaluation = NormalizeObservation(palaestra.make("CartPole-v1"))
    evaluation.set_state(trained_normalizer.get_state())
    evaluation.update_running_mean = False
    assert_same(evaluation.reset(seed=5), trained_normalizer.reset(seed=5))
    assert_same(evaluation.step(1), trained_normalizer.step(1))


def test_pickled_normalizer_keeps_its_statistics(trained_normalizer):
    restored = pickle.loads(pickle.dumps(trained_normalizer))
    assert_same(restored.get_state(), trained_normalizer.get_state())
    assert restored.update_running_mean is True


def test_set_state_rejects_statistics_of_another_shape(trained_normalizer):
    with pytest.raises(ValueError, match="shape"):
        trained_normalizer.set_state({"mean": np.zeros(3), "var": np.ones(3), "count": 1.0})


def test_set_state_rejects_incomplete_statistics(trained_normalizer):
    with pytest.raises(KeyError, match="count"):
        trained_normalizer.set_state({"mean": np.zeros(4), "var": np.ones(4)})
