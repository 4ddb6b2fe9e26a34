"""TimeLimit truncates on exactly the max_episode_steps-th step and records it in the spec."""

import pytest

import palaestra
from palaestra.envs.registration import EnvSpec
from palaestra.wrappers import TimeLimit
from tests.fixtures.counting_env import counting_env_class, make_counting_env


def flags_of_episode(env, steps):
    env.reset(seed=0)
    return [env.step(1)[2:4] for _ in range(steps)]


def test_truncates_on_exactly_the_last_allowed_step():
    env = TimeLimit(make_counting_env(palaestra, terminate_at=100), max_episode_steps=3)
    assert flags_of_episode(env, 3) == [(False, False), (False, False), (False, True)]


def test_keeps_truncating_if_stepped_past_the_limit():
    env = TimeLimit(make_counting_env(palaestra, terminate_at=100), max_episode_steps=2)
    assert flags_of_episode(env, 3)[-1] == (False, True)


def test_passes_termination_through_unchanged():
    env = TimeLimit(make_counting_env(palaestra, terminate_at=2), max_episode_steps=2)
    assert flags_of_episode(env, 2) == [(False, False), (True, True)]


def test_reset_restarts_the_step_count():
    env = TimeLimit(make_counting_env(palaestra, terminate_at=100), max_episode_steps=2)
    flags_of_episode(env, 2)
    assert flags_of_episode(env, 2) == [(False, False), (False, True)]


@pytest.mark.parametrize("steps", [2.0, "3", None])
def test_rejects_a_non_integer_limit(steps):
    with pytest.raises(TypeError) as caught:
        TimeLimit(make_counting_env(palaestra), max_episode_steps=steps)
    assert str(caught.value) == (
        f"Expect the `max_episode_steps` to be an integer, actually: {type(steps)}"
    )


@pytest.mark.parametrize("steps", [0, -4])
def test_rejects_a_non_positive_limit(steps):
    with pytest.raises(ValueError) as caught:
        TimeLimit(make_counting_env(palaestra), max_episode_steps=steps)
    assert str(caught.value) == f"Expect the `max_episode_steps` to be positive, actually: {steps}"


def test_repr_names_the_wrapper_around_the_env():
    env = TimeLimit(make_counting_env(palaestra), max_episode_steps=2)
    assert repr(env) == "<TimeLimit<CountingEnv instance>>"


def test_records_its_constructor_arguments():
    env = TimeLimit(make_counting_env(palaestra), max_episode_steps=7)
    assert env._saved_kwargs == {"max_episode_steps": 7}


def test_spec_carries_the_limit():
    env = make_counting_env(palaestra)
    env.spec = EnvSpec(id="Counting-v0", entry_point=counting_env_class(palaestra))
    assert TimeLimit(env, max_episode_steps=9).spec.max_episode_steps == 9
    assert env.spec.max_episode_steps is None


def test_make_with_max_episode_steps_round_trips_through_the_spec():
    spec = EnvSpec(id="Counting-v0", entry_point=counting_env_class(palaestra))
    env = palaestra.make(spec, max_episode_steps=4, terminate_at=100)
    rebuilt = palaestra.make(env.spec)
    assert flags_of_episode(rebuilt, 4)[-1] == (False, True)
    assert rebuilt.spec.max_episode_steps == 4


def test_matches_gymnasium_step_for_step():
    gymnasium = pytest.importorskip("gymnasium")
    ours = TimeLimit(make_counting_env(palaestra, terminate_at=4), max_episode_steps=6)
    theirs = gymnasium.wrappers.TimeLimit(
        make_counting_env(gymnasium, terminate_at=4), max_episode_steps=6
    )
    assert flags_of_episode(ours, 8) == flags_of_episode(theirs, 8)
