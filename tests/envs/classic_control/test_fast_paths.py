"""The shortcuts that keep one environment's step cheap give the general paths' results."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from palaestra.envs.classic_control.dynamics import acrobot
from palaestra.envs.classic_control.dynamics._arrays import any_true, components, rounded_like
from palaestra.spaces import Discrete

CANDIDATES = [
    True,
    np.True_,
    0,
    2,
    3,
    -1,
    127,
    128,
    2**63 - 1,
    2**63,
    2**70,
    np.int64(1),
    np.int64(5),
    np.int32(1),
    np.int8(-128),
    np.int8(127),
    np.uint64(1),
    np.array(1),
    np.array([1]),
    1.0,
]
SPACES = [
    {"n": 3},
    {"n": 3, "start": -2},
    {"n": 100, "start": 50, "dtype": np.int8},
    {"n": np.int64(2**62), "start": 2**62},
]


@pytest.mark.parametrize("space_kwargs", SPACES)
def test_discrete_contains_agrees_with_gymnasium_for_every_kind_of_value(gymnasium, space_kwargs):
    ours, theirs = Discrete(**space_kwargs), gymnasium.spaces.Discrete(**space_kwargs)
    verdicts = [ours.contains(x) for x in CANDIDATES]
    assert verdicts == [theirs.contains(x) for x in CANDIDATES]
    assert {type(verdict) for verdict in verdicts} == {bool}


def test_discrete_contains_follows_a_replaced_n():
    space = Discrete(3)
    assert not space.contains(4)
    space.n = np.int64(5)
    assert space.contains(4)


def test_discrete_contains_follows_a_replaced_start():
    space = Discrete(3)
    assert space.contains(np.int64(0))
    space.start = np.int64(1)
    assert not space.contains(np.int64(0))


def test_components_of_one_float64_state_are_python_floats():
    assert components(np.array([0.5, -1.0])) == [0.5, -1.0]
    assert {type(value) for value in components(np.array([0.5, -1.0]))} == {float}


def test_components_of_one_float32_state_keep_their_dtype():
    values = components(np.array([0.5, -1.0], dtype=np.float32))
    assert [type(value) for value in values] == [np.float32, np.float32]


def test_components_of_a_batch_are_its_columns():
    batch = np.arange(6.0).reshape(3, 2)
    first, second = components(batch)
    assert first.tolist() == [0.0, 2.0, 4.0]
    assert second.tolist() == [1.0, 3.0, 5.0]


def step_both(ours, theirs, actions, seed: int = 0) -> None:
    """Step both environments through ``actions``; every result must be identical."""
    ours.reset(seed=seed)
    theirs.reset(seed=seed)
    for step, action in enumerate(actions):
        result, expected = ours.step(action), theirs.step(action)
        context = f"step {step}, action {action!r}"
        np.testing.assert_array_equal(result[0], expected[0], err_msg=context)
        assert result[0].dtype == expected[0].dtype, context
        assert result[1] == expected[1] and type(result[1]) is type(expected[1]), context
        assert result[2:] == expected[2:], context
        if result[2] or result[3]:
            ours.reset()
            theirs.reset()


@pytest.mark.parametrize("env_id", ["CartPole-v1", "MountainCar-v0", "Acrobot-v1"])
def test_sampled_numpy_integer_actions_give_gymnasiums_steps(gymnasium, env_id):
    theirs = gymnasium.make(env_id)
    theirs.action_space.seed(4)
    actions = [theirs.action_space.sample() for _ in range(300)]
    assert type(actions[0]) is np.int64
    step_both(palaestra.make(env_id), theirs, actions)


def test_float64_throttles_cost_what_gymnasiums_math_pow_charges(gymnasium):
    # x * x and pow(x, 2) differ by an ulp for about one float64 in a thousand. (With float64
    # throttles Gymnasium also steps the velocity in float64, which the shared batch-capable
    # dynamics do not; observations may differ by a float32 ulp, so only rewards are compared.)
    env_id = "MountainCarContinuous-v0"
    ours, theirs = palaestra.make(env_id), gymnasium.make(env_id)
    ours.reset(seed=0)
    theirs.reset(seed=0)
    for action in np.random.default_rng(0).uniform(-1.0, 1.0, size=(2000, 1)):
        assert ours.step(action)[1] == theirs.step(action)[1], action


def test_wrap_angle_wraps_a_python_float():
    assert acrobot.wrap_angle(4.0) == 4.0 - 2 * np.pi


def test_torque_of_one_action_is_a_python_float():
    assert acrobot.acrobot_torque(np.int64(2), acrobot.AcrobotParams()) == 1.0
    assert type(acrobot.acrobot_torque(np.int64(2), acrobot.AcrobotParams())) is float


@pytest.mark.parametrize(
    ("condition", "expected"),
    [(False, False), (np.True_, True), (np.array([False, True]), True), (np.zeros(3, bool), False)],
)
def test_any_true_reads_scalars_and_arrays(condition, expected):
    assert any_true(condition) is expected


def test_rounded_like_rounds_a_scalar_where_it_meets_a_float32():
    value, half = np.float64(0.1), np.float32(0.5)
    difference = half - rounded_like(value, half)
    assert difference == half - np.float32(value)
    assert type(difference) is np.float32


def test_rounded_like_casts_an_array_to_the_other_dtype():
    cast = rounded_like(np.array([0.1, 0.2]), np.zeros(2, dtype=np.float32))
    assert cast.dtype == np.float32
