"""make builds the common wrapper stack, and the spec records it so make(env.spec) rebuilds it."""

import pytest

import palaestra
from palaestra.envs.registration import EnvSpec
from palaestra.wrappers import Autoreset, RecordEpisodeStatistics
from tests.fixtures.counting_env import counting_env_class


@pytest.fixture
def counting_spec():
    return EnvSpec(
        id="Counting-v0", entry_point=counting_env_class(palaestra), max_episode_steps=10
    )


def test_make_stacks_time_limit_order_enforcing_and_the_checker(counting_spec):
    env = palaestra.make(counting_spec)
    assert repr(env) == "<TimeLimit<OrderEnforcing<PassiveEnvChecker<CountingEnv<Counting-v0>>>>>"


def test_the_checker_can_be_left_out(counting_spec):
    env = palaestra.make(counting_spec, disable_env_checker=True)
    assert repr(env) == "<TimeLimit<OrderEnforcing<CountingEnv<Counting-v0>>>>"


def test_extra_wrappers_are_recorded_with_their_arguments(counting_spec):
    env = RecordEpisodeStatistics(Autoreset(palaestra.make(counting_spec)), buffer_length=3)
    recorded = [(w.name, w.kwargs) for w in env.spec.additional_wrappers]
    assert recorded == [
        ("Autoreset", {}),
        ("RecordEpisodeStatistics", {"buffer_length": 3, "stats_key": "episode"}),
    ]


def test_make_of_the_spec_rebuilds_the_extra_wrappers(counting_spec):
    env = RecordEpisodeStatistics(Autoreset(palaestra.make(counting_spec)), buffer_length=3)
    rebuilt = palaestra.make(env.spec)
    assert repr(rebuilt) == repr(env)
    assert rebuilt.return_queue.maxlen == 3


def test_cartpole_stack_repr_matches_gymnasium():
    assert repr(palaestra.make("CartPole-v1")) == (
        "<TimeLimit<OrderEnforcing<PassiveEnvChecker<CartPoleEnv<CartPole-v1>>>>>"
    )


def test_cartpole_truncates_at_its_time_limit():
    env = palaestra.make("CartPole-v1", max_episode_steps=5)
    env.reset(seed=0)
    flags = [env.step(i % 2)[2:4] for i in range(5)]
    assert flags == [(False, False)] * 4 + [(False, True)]
