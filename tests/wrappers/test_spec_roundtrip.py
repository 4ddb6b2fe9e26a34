"""``make(wrapped_env.spec)`` rebuilds the same wrapper stack, for every recording wrapper."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from palaestra import spaces
from tests.wrappers.vector.differential import assert_same, rollout, sample_actions


def double(value):
    return value * 2


def flip(action):
    return 1 - action


WRAPPERS = [
    ("CartPole-v1", "TransformObservation", {"func": double, "observation_space": None}),
    ("CartPole-v1", "FlattenObservation", {}),
    ("CartPole-v1", "ReshapeObservation", {"shape": (2, 2)}),
    ("Pendulum-v1", "RescaleObservation", {"min_obs": -1.0, "max_obs": 1.0}),
    ("CartPole-v1", "DtypeObservation", {"dtype": np.float64}),
    ("MountainCar-v0", "DiscretizeObservation", {"bins": (3, 4), "multidiscrete": True}),
    ("CartPole-v1", "NormalizeObservation", {"epsilon": 1e-6}),
    ("CartPole-v1", "TimeAwareObservation", {"flatten": False, "normalize_time": True}),
    ("CartPole-v1", "FrameStackObservation", {"stack_size": 3, "padding_type": "zero"}),
    ("CartPole-v1", "DelayObservation", {"delay": 2}),
    ("CartPole-v1", "MaxAndSkipObservation", {"skip": 3}),
    ("CartPole-v1", "TransformAction", {"func": flip, "action_space": spaces.Discrete(2)}),
    ("Pendulum-v1", "ClipAction", {}),
    ("Pendulum-v1", "RescaleAction", {"min_action": 0.0, "max_action": 1.0}),
    ("Pendulum-v1", "DiscretizeAction", {"bins": 5}),
    (
        "CartPole-v1",
        "StickyAction",
        {"repeat_action_probability": 0.4, "repeat_action_duration": (1, 3)},
    ),
    ("CartPole-v1", "RepeatAction", {"num_repeats": 2}),
    ("CartPole-v1", "TransformReward", {"func": double}),
    ("CartPole-v1", "ClipReward", {"min_reward": 0.1, "max_reward": 0.5}),
    ("CartPole-v1", "NormalizeReward", {"gamma": 0.9}),
    ("CartPole-v1", "ArrayConversion", {"env_xp": np, "target_xp": np}),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(
    ("env_id", "wrapper_name", "kwargs"), WRAPPERS, ids=[w[1] for w in WRAPPERS]
)
def test_spec_records_the_wrapper_and_its_arguments(env_id, wrapper_name, kwargs):
    env = getattr(palaestra.wrappers, wrapper_name)(palaestra.make(env_id), **kwargs)
    (recorded,) = env.spec.additional_wrappers
    assert recorded.name == wrapper_name
    for name, value in kwargs.items():
        assert recorded.kwargs[name] is value or recorded.kwargs[name] == value


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(
    ("env_id", "wrapper_name", "kwargs"), WRAPPERS, ids=[w[1] for w in WRAPPERS]
)
def test_make_from_the_spec_rebuilds_an_identical_env(env_id, wrapper_name, kwargs):
    env = getattr(palaestra.wrappers, wrapper_name)(palaestra.make(env_id), **kwargs)
    rebuilt = palaestra.make(env.spec)
    assert str(rebuilt) == str(env)
    assert rebuilt.observation_space == env.observation_space
    assert rebuilt.action_space == env.action_space
    actions = sample_actions(env.action_space, 25)
    assert_same(rollout(rebuilt, actions), rollout(env, actions))


def test_a_stack_of_wrappers_is_rebuilt_in_order():
    env = palaestra.wrappers.ClipReward(
        palaestra.wrappers.TimeAwareObservation(palaestra.make("CartPole-v1")), max_reward=0.5
    )
    rebuilt = palaestra.make(env.spec)
    assert str(rebuilt) == str(env)
    assert [spec.name for spec in rebuilt.spec.additional_wrappers] == [
        "TimeAwareObservation",
        "ClipReward",
    ]


def test_numpy_to_torch_is_rebuilt_from_its_spec():
    pytest.importorskip("torch", reason="NumpyToTorch needs the torch extra")
    env = palaestra.wrappers.NumpyToTorch(palaestra.make("CartPole-v1"), device="cpu")
    rebuilt = palaestra.make(env.spec)
    assert str(rebuilt) == str(env)
    assert rebuilt.device == "cpu"
