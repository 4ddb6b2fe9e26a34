"""Stateless action wrappers: identical to Gymnasium 1.4 side by side."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from palaestra import spaces
from palaestra.error import InvalidBound
from palaestra.wrappers import ClipAction, DiscretizeAction, RescaleAction, TransformAction
from tests.wrappers.test_transform_observation import build_base, dict_env, wrapped_pair
from tests.wrappers.vector.differential import (
    assert_same,
    assert_same_error,
    assert_same_space,
    gymnasium_module,
    rollout,
    sample_actions,
)

DIFFERENTIAL_CASES = [
    ("Pendulum-v1", "ClipAction", {}, spaces.Box(-4.0, 4.0, (1,))),
    ("MountainCarContinuous-v0", "ClipAction", {}, spaces.Box(-3.0, 3.0, (1,))),
    ("Pendulum-v1", "RescaleAction", {"min_action": -1.0, "max_action": 1.0}, None),
    ("Pendulum-v1", "RescaleAction", {"min_action": 0, "max_action": 5}, None),
    (
        "MountainCarContinuous-v0",
        "RescaleAction",
        {"min_action": np.array([0.0], np.float32), "max_action": np.array([0.5], np.float32)},
        None,
    ),
    ("Pendulum-v1", "DiscretizeAction", {"bins": 5}, None),
    ("Pendulum-v1", "DiscretizeAction", {"bins": (4,), "multidiscrete": True}, None),
    ("MountainCarContinuous-v0", "DiscretizeAction", {"bins": 3}, None),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("base", "wrapper_name", "kwargs", "action_space"), DIFFERENTIAL_CASES)
def test_wrapper_matches_gymnasium_step_for_step(base, wrapper_name, kwargs, action_space):
    ours, theirs = wrapped_pair(base, wrapper_name, **kwargs)
    assert_same_space(ours.action_space, theirs.action_space)
    actions = sample_actions(action_space or ours.action_space, 40)
    assert_same(rollout(ours, actions), rollout(theirs, actions))


def test_transform_action_matches_gymnasium_with_a_new_space():
    gym = gymnasium_module()
    ours = TransformAction(palaestra.make("CartPole-v1"), lambda a: 1 - a, spaces.Discrete(2))
    theirs = gym.wrappers.TransformAction(
        gym.make("CartPole-v1"), lambda a: 1 - a, gym.spaces.Discrete(2)
    )
    actions = sample_actions(ours.action_space, 30)
    assert_same(rollout(ours, actions), rollout(theirs, actions))


def test_clip_action_accepts_any_real_action():
    env = ClipAction(palaestra.make("Pendulum-v1"))
    assert env.action_space == spaces.Box(-np.inf, np.inf, (1,), np.float32)
    assert env.action(np.array([-9.0])).tolist() == [-2.0]


def test_rescale_action_maps_the_new_bounds_onto_the_old_ones():
    env = RescaleAction(palaestra.make("Pendulum-v1"), min_action=0.0, max_action=1.0)
    low, high = np.array([0.0], np.float32), np.array([1.0], np.float32)
    assert env.action(low).tolist() == [-2.0]
    assert env.action(high).tolist() == [2.0]


def test_discretize_action_reverts_a_bin_centre_to_its_index():
    env = DiscretizeAction(palaestra.make("Pendulum-v1"), bins=5)
    for index in range(5):
        assert env.revert_action(env.action(index)) == index


BAD_ARGUMENTS = [
    ("CartPole-v1", "ClipAction", {}),
    ("CartPole-v1", "RescaleAction", {"min_action": 0.0, "max_action": 1.0}),
    ("Pendulum-v1", "RescaleAction", {"min_action": "low", "max_action": 1.0}),
    ("Pendulum-v1", "RescaleAction", {"min_action": np.zeros(2), "max_action": 1.0}),
    ("Pendulum-v1", "RescaleAction", {"min_action": 1.0, "max_action": 0.0}),
    ("Pendulum-v1", "RescaleAction", {"min_action": 1.0, "max_action": 1.0}),
    ("CartPole-v1", "DiscretizeAction", {"bins": 3}),
    ("Pendulum-v1", "DiscretizeAction", {"bins": (3, 3)}),
    (dict_env, "DiscretizeAction", {"bins": 3}),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("base", "wrapper_name", "kwargs"), BAD_ARGUMENTS)
def test_invalid_arguments_raise_the_same_error_as_gymnasium(base, wrapper_name, kwargs):
    gym = gymnasium_module()
    assert_same_error(
        lambda: getattr(palaestra.wrappers, wrapper_name)(build_base(palaestra, base), **kwargs),
        lambda: getattr(gym.wrappers, wrapper_name)(build_base(gym, base), **kwargs),
    )


def test_rescale_onto_a_single_point_is_an_invalid_bound():
    with pytest.raises(InvalidBound, match="strictly smaller"):
        RescaleAction(palaestra.make("Pendulum-v1"), min_action=1.0, max_action=1.0)
