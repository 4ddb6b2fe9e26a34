"""TransformReward and ClipReward: identical to Gymnasium 1.4 side by side."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from palaestra.error import InvalidBound
from palaestra.wrappers import ClipReward, TransformReward
from tests.wrappers.test_transform_observation import wrapped_pair
from tests.wrappers.vector.differential import (
    assert_same,
    assert_same_error,
    gymnasium_module,
    rollout,
    sample_actions,
)

DIFFERENTIAL_CASES = [
    ("CartPole-v1", "TransformReward", {"func": lambda reward: reward * 3 - 1}),
    ("Pendulum-v1", "ClipReward", {"min_reward": -2.0}),
    ("Pendulum-v1", "ClipReward", {"max_reward": -1.0}),
    ("Pendulum-v1", "ClipReward", {"min_reward": -3.0, "max_reward": -0.5}),
    ("CartPole-v1", "ClipReward", {"min_reward": 0.2, "max_reward": 0.8}),
]


@pytest.mark.parametrize(("base", "wrapper_name", "kwargs"), DIFFERENTIAL_CASES)
def test_wrapper_matches_gymnasium_step_for_step(base, wrapper_name, kwargs):
    ours, theirs = wrapped_pair(base, wrapper_name, **kwargs)
    actions = sample_actions(ours.action_space, 40)
    assert_same(rollout(ours, actions), rollout(theirs, actions))


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"min_reward": 1.0, "max_reward": 0.0},
        {"min_reward": np.ones(2), "max_reward": np.zeros(2)},
    ],
)
def test_invalid_bounds_raise_the_same_error_as_gymnasium(kwargs):
    gym = gymnasium_module()
    assert_same_error(
        lambda: ClipReward(palaestra.make("CartPole-v1"), **kwargs),
        lambda: gym.wrappers.ClipReward(gym.make("CartPole-v1"), **kwargs),
    )


def test_clip_reward_without_bounds_is_an_invalid_bound():
    with pytest.raises(InvalidBound, match="cannot be None"):
        ClipReward(palaestra.make("CartPole-v1"))


def test_transform_reward_applies_its_function():
    env = TransformReward(palaestra.make("CartPole-v1"), lambda reward: -reward)
    env.reset(seed=0)
    assert env.step(0)[1] == -1.0
