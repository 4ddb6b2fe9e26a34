"""NormalizeReward: identical to Gymnasium 1.4 side by side, with keepable statistics."""

from __future__ import annotations

import pickle

import pytest

import palaestra
from palaestra.error import InvalidBound
from palaestra.wrappers import NormalizeReward
from tests.wrappers.test_transform_observation import wrapped_pair
from tests.wrappers.vector.differential import (
    assert_same,
    assert_same_error,
    gymnasium_module,
    rollout,
    sample_actions,
)


@pytest.mark.parametrize(
    ("base", "kwargs"),
    [
        ("CartPole-v1", {}),
        ("CartPole-v1", {"gamma": 0.5}),
        ("Pendulum-v1", {"gamma": 1.0, "epsilon": 1e-4}),
        ("MountainCar-v0", {"gamma": 0.0}),
    ],
)
def test_normalize_reward_matches_gymnasium_step_for_step(base, kwargs):
    ours, theirs = wrapped_pair(base, "NormalizeReward", **kwargs)
    actions = sample_actions(ours.action_space, 80)
    assert_same(rollout(ours, actions), rollout(theirs, actions))
    assert_same(ours.return_rms.var, theirs.return_rms.var)


@pytest.mark.parametrize("kwargs", [{"gamma": 1.5}, {"gamma": -0.1}, {"epsilon": 0.0}])
def test_invalid_arguments_raise_the_same_error_as_gymnasium(kwargs):
    gym = gymnasium_module()
    assert_same_error(
        lambda: NormalizeReward(palaestra.make("CartPole-v1"), **kwargs),
        lambda: gym.wrappers.NormalizeReward(gym.make("CartPole-v1"), **kwargs),
    )


def test_gamma_outside_the_unit_interval_is_an_invalid_bound():
    with pytest.raises(InvalidBound, match="gamma"):
        NormalizeReward(palaestra.make("CartPole-v1"), gamma=2.0)


@pytest.fixture
def trained():
    env = NormalizeReward(palaestra.make("CartPole-v1"))
    trace = rollout(env, sample_actions(env.action_space, 50))
    assert trace
    return env


def test_frozen_normalizer_does_not_change_its_statistics(trained):
    trained.update_running_mean = False
    before = trained.get_state()
    rollout(trained, sample_actions(trained.action_space, 10))
    assert_same(trained.get_state(), before)


def test_restored_statistics_scale_rewards_like_the_trained_wrapper(trained):
    trained.update_running_mean = False
    evaluation = NormalizeReward(palaestra.make("CartPole-v1"))
    evaluation.set_state(trained.get_state())
    evaluation.update_running_mean = False
    actions = sample_actions(trained.action_space, 10)
    assert_same(rollout(evaluation, actions), rollout(trained, actions))


def test_pickled_normalizer_keeps_its_statistics(trained):
    restored = pickle.loads(pickle.dumps(trained))
    assert_same(restored.get_state(), trained.get_state())
