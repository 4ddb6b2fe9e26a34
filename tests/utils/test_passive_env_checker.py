"""The passive checks warn or raise on exactly the inputs Gymnasium's passive checks do."""

from copy import deepcopy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra import spaces
from palaestra.utils.passive_env_checker import (
    check_action_space,
    check_obs,
    check_observation_space,
    check_space_limit,
    data_shares_objects,
    env_action_space_check,
    env_observation_space_check,
    env_render_passive_checker,
    env_reset_passive_checker,
    env_step_passive_checker,
)
from tests.fixtures.outcomes import run_and_record


def warnings_of(function, *args, **kwargs):
    outcome = run_and_record(function, *args, **kwargs)
    assert outcome.error is None, outcome.error
    return outcome.warnings


def test_the_issue_tracker_names_are_the_same_checks():
    assert env_observation_space_check is check_observation_space
    assert env_action_space_check is check_action_space


def test_a_non_space_is_a_type_error():
    with pytest.raises(TypeError) as caught:
        check_observation_space([0, 1])
    assert str(caught.value) == (
        "observation space does not inherit from `palaestra.spaces.Space`, "
        "actual type: <class 'list'>"
    )


def test_box_with_equal_bounds_warns_once_per_space_type():
    space = spaces.Box(np.float32(0), np.float32(0), (2,))
    assert warnings_of(check_observation_space, space) == [
        "A Box observation space maximum and minimum values are equal."
    ]
    assert warnings_of(check_action_space, space) == [
        "A Box action space maximum and minimum values are equal."
    ]


def test_composite_spaces_are_checked_recursively():
    inner = spaces.Box(np.float32(1), np.float32(1), (1,))
    space = spaces.Dict(a=spaces.Tuple((spaces.Discrete(2), inner)))
    assert warnings_of(check_action_space, space) == [
        "A Box action space maximum and minimum values are equal."
    ]


def test_an_empty_tuple_space_is_an_assertion_error():
    with pytest.raises(AssertionError, match=r"An empty Tuple observation space is not allowed\."):
        check_observation_space(spaces.Tuple(()))


@pytest.mark.parametrize(
    ("space", "space_type", "expected"),
    [
        (spaces.Box(-np.inf, 1.0, (2,)), "observation", ["minimum value is -infinity"]),
        (spaces.Box(-1.0, np.inf, (2,)), "observation", ["maximum value is infinity"]),
        (spaces.Box(-1.0, 1.0, (2,)), "action", []),
        (spaces.Box(0.0, 1.0, (2,)), "action", []),
        (spaces.Box(-2.0, 2.0, (2,)), "action", ["we recommend using a symmetric"]),
        (spaces.Box(-1.0, 0.5, (2,)), "action", ["we recommend using a symmetric"]),
        (spaces.Box(-2.0, 2.0, (2, 2)), "action", []),
        (spaces.Tuple((spaces.Box(-np.inf, 1.0, ()),)), "action", ["minimum value"]),
    ],
)
def test_check_space_limit(space, space_type, expected):
    found = warnings_of(check_space_limit, space, space_type)
    assert len(found) == len(expected)
    for text, fragment in zip(found, expected):
        assert fragment in text


@pytest.mark.parametrize(
    ("obs", "space", "expected"),
    [
        (1, spaces.Discrete(3), []),
        (np.int64(1), spaces.Discrete(3), []),
        (1.0, spaces.Discrete(3), ["int or np.int64, actual type: <class 'float'>", "not within"]),
        ([0.0, 0.0], spaces.Box(-1, 1, (2,)), ["was expecting a numpy array", "Casting input"]),
        (np.zeros(2), spaces.Box(-1, 1, (2,)), ["dtype to be float32", "not within"]),
        (np.full(2, 3, np.float32), spaces.Box(-1, 1, (2,)), ["is not within the observation"]),
        ([0, 1], spaces.MultiBinary(2), ["was expecting a numpy array"]),
        ([1, 0], spaces.Tuple((spaces.Discrete(2), spaces.Discrete(2))), ["expecting a tuple"]),
    ],
)
def test_check_obs_warnings(obs, space, expected):
    found = warnings_of(check_obs, obs, space, "step")
    assert len(found) == len(expected), found
    for text, fragment in zip(found, expected):
        assert fragment in text


def test_check_obs_raises_on_dict_observations_with_wrong_keys():
    space = spaces.Dict(a=spaces.Discrete(2))
    with pytest.raises(AssertionError, match="observation keys is not same"):
        check_obs({"b": 0}, space, "reset")


def test_check_obs_raises_on_tuples_of_the_wrong_length():
    space = spaces.Tuple((spaces.Discrete(2),))
    with pytest.raises(AssertionError, match="obs length: 2, space length: 1"):
        check_obs((0, 1), space, "reset")


def test_check_obs_matches_gymnasium_on_a_range_of_inputs():
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.utils.passive_env_checker import check_obs as gymnasium_check_obs

    def twins(gym):
        box = gym.spaces.Box(-1, 1, (2,))
        return [
            (1.0, gym.spaces.Discrete(3)),
            (np.zeros(2), box),
            ([0.0, 0.0], box),
            (np.full(2, 3, np.float32), box),
            (np.float32(0), gym.spaces.Box(-1, 1, ())),
            ([0, 1], gym.spaces.MultiDiscrete([2, 2])),
            ([1, 0], gym.spaces.Tuple((gym.spaces.Discrete(2), gym.spaces.Discrete(2)))),
            ({"a": 5}, gym.spaces.Dict(a=gym.spaces.Discrete(2))),
        ]

    for (obs, ours), (_, theirs) in zip(twins(palaestra), twins(gymnasium)):
        our_outcome = run_and_record(check_obs, obs, ours, "reset")
        their_outcome = run_and_record(gymnasium_check_obs, obs, theirs, "reset")
        assert our_outcome.warnings == their_outcome.warnings
        assert our_outcome.error_name == their_outcome.error_name


def test_data_shares_objects_sees_views_and_nested_containers():
    buffer = np.zeros(4)
    assert data_shares_objects(buffer, buffer[1:])
    assert data_shares_objects({"a": (1, buffer)}, {"a": (2, buffer)})
    info = {}
    assert data_shares_objects(info, info)
    assert not data_shares_objects(1, 1)
    assert not data_shares_objects(buffer, list(buffer))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_a_deep_copy_never_shares_objects(seed):
    space = spaces.Dict(
        a=spaces.Box(-1, 1, (3,)),
        b=spaces.Tuple((spaces.MultiDiscrete([2, 3]), spaces.Discrete(4))),
    )
    space.seed(seed)
    sample = space.sample()
    assert data_shares_objects(sample, sample)
    assert not data_shares_objects(sample, deepcopy(sample))


class Plain(palaestra.Env):
    observation_space = spaces.Discrete(2)
    action_space = spaces.Discrete(2)
    metadata = {"render_modes": ["rgb_array", "ansi", "rgb_array_list"], "render_fps": 10}

    def __init__(self, render_mode=None, frame=None, result=None):
        self.render_mode = render_mode
        self.frame = frame
        self.result = result

    def reset(self, *, seed=None, options=None):
        return self.result

    def step(self, action):
        return self.result

    def render(self):
        return self.frame


def test_reset_result_that_is_not_a_pair_warns():
    assert warnings_of(env_reset_passive_checker, Plain(result=(0, {}, 1))) == [
        "The result returned by `env.reset()` should be `(obs, info)` by default, , where `obs` "
        "is a observation and `info` is a dictionary containing additional information."
    ]


def test_a_reset_with_a_default_seed_warns():
    class Seeded(Plain):
        def reset(self, *, seed=3, options=None):
            return 0, {}

    found = warnings_of(env_reset_passive_checker, Seeded())
    assert found[0].startswith("The default seed argument in `Env.reset` should be `None`")


def test_a_reset_without_seed_or_options_gives_deprecation_warnings():
    class Old(Plain):
        def reset(self):
            return 0, {}

    with pytest.warns(DeprecationWarning) as caught:
        env_reset_passive_checker(Old())
    assert len(caught) == 2


def test_step_result_that_is_not_a_tuple_is_an_assertion_error():
    with pytest.raises(AssertionError, match="Expects step result to be a tuple"):
        env_step_passive_checker(Plain(result=[0, 0.0, False, False, {}]), 0)


@pytest.mark.parametrize("reward", [np.inf, -np.inf])
def test_an_infinite_reward_warns(reward):
    env = Plain(result=(0, reward, False, False, {}))
    assert warnings_of(env_step_passive_checker, env, 0) == ["The reward is an inf value."]


@pytest.mark.parametrize(
    ("render_mode", "frame", "expected"),
    [
        ("rgb_array", np.zeros((2, 2, 3), np.uint8), []),
        ("rgb_array", np.zeros((2, 2, 4), np.uint8), ["last axis has three dimensions, got 4"]),
        ("rgb_array", [1], ["should return a numpy array, got <class 'list'>"]),
        ("ansi", "text", []),
        ("ansi", b"bytes", ["should produce a string, got <class 'bytes'>"]),
        ("rgb_array_list", [np.zeros((2, 2, 3), np.uint8)], []),
        ("rgb_array_list", [np.zeros((2, 2), np.uint8)], ["three axes, got 2"]),
        ("rgb_array_list", np.zeros((2, 2, 3)), ["should produce a list"]),
    ],
)
def test_render_results_are_checked_against_the_render_mode(render_mode, frame, expected):
    found = warnings_of(env_render_passive_checker, Plain(render_mode, frame))
    assert len(found) == len(expected), found
    for text, fragment in zip(found, expected):
        assert fragment in text


def test_a_render_fps_of_zero_is_an_assertion_error():
    env = Plain("ansi", "x")
    env.metadata = {"render_modes": ["ansi"], "render_fps": 0}
    with pytest.raises(AssertionError, match="to be greater than zero, actual value: 0"):
        env_render_passive_checker(env)


def test_a_render_mode_without_declared_modes_is_an_assertion_error():
    env = Plain("ansi", "x")
    env.metadata = {"render_modes": []}
    with pytest.raises(AssertionError, match="With no render_modes"):
        env_render_passive_checker(env)


def test_missing_render_modes_warn_and_still_render():
    env = Plain(None, "x")
    env.metadata = {}
    assert warnings_of(env_render_passive_checker, env) == [
        "No render modes was declared in the environment (env.metadata['render_modes'] is None "
        "or not defined), you may have trouble when calling `.render()`."
    ]
