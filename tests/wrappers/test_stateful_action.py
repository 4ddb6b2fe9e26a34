"""StickyAction and RepeatAction: identical to Gymnasium 1.4 side by side."""

from __future__ import annotations

import pytest

import palaestra
from palaestra.wrappers import RepeatAction, StickyAction
from tests.wrappers.test_transform_observation import build_base, wrapped_pair
from tests.wrappers.vector.differential import (
    assert_same,
    assert_same_error,
    gymnasium_module,
    rollout,
    sample_actions,
)

DIFFERENTIAL_CASES = [
    ("CartPole-v1", "StickyAction", {"repeat_action_probability": 0.5}),
    (
        "CartPole-v1",
        "StickyAction",
        {"repeat_action_probability": 0.3, "repeat_action_duration": 3},
    ),
    (
        "Pendulum-v1",
        "StickyAction",
        {"repeat_action_probability": 0.6, "repeat_action_duration": (1, 4)},
    ),
    ("CartPole-v1", "StickyAction", {"repeat_action_probability": 0.0}),
    ("CartPole-v1", "RepeatAction", {"num_repeats": 3}),
    ("Pendulum-v1", "RepeatAction", {"num_repeats": 1}),
]


@pytest.mark.parametrize(("base", "wrapper_name", "kwargs"), DIFFERENTIAL_CASES)
def test_wrapper_matches_gymnasium_step_for_step(base, wrapper_name, kwargs):
    ours, theirs = wrapped_pair(base, wrapper_name, **kwargs)
    actions = sample_actions(ours.action_space, 80)
    assert_same(rollout(ours, actions), rollout(theirs, actions))


BAD_ARGUMENTS = [
    ("StickyAction", {"repeat_action_probability": 1.0}),
    ("StickyAction", {"repeat_action_probability": -0.1}),
    ("StickyAction", {"repeat_action_probability": 0.5, "repeat_action_duration": [1, 2]}),
    ("StickyAction", {"repeat_action_probability": 0.5, "repeat_action_duration": (1, 2, 3)}),
    ("StickyAction", {"repeat_action_probability": 0.5, "repeat_action_duration": (3, 2)}),
    ("StickyAction", {"repeat_action_probability": 0.5, "repeat_action_duration": 0}),
    ("RepeatAction", {"num_repeats": 0}),
    ("RepeatAction", {"num_repeats": 2.0}),
]


@pytest.mark.parametrize(("wrapper_name", "kwargs"), BAD_ARGUMENTS)
def test_invalid_arguments_raise_the_same_error_as_gymnasium(wrapper_name, kwargs):
    gym = gymnasium_module()
    assert_same_error(
        lambda: getattr(palaestra.wrappers, wrapper_name)(
            build_base(palaestra, "CartPole-v1"), **kwargs
        ),
        lambda: getattr(gym.wrappers, wrapper_name)(build_base(gym, "CartPole-v1"), **kwargs),
    )


def test_sticky_action_never_repeats_the_first_action_of_an_episode():
    env = StickyAction(palaestra.make("CartPole-v1"), repeat_action_probability=0.99)
    env.reset(seed=0)
    assert env.action(1) == 1


def test_repeat_action_sums_rewards_and_stops_at_the_end_of_an_episode():
    env = RepeatAction(palaestra.make("CartPole-v1"), num_repeats=500)
    env.reset(seed=0)
    _, reward, terminated, truncated, _ = env.step(1)
    assert terminated or truncated
    assert 1.0 < reward < 500.0
