"""Lists (and tuples) as actions, which Gymnasium's continuous-control envs step as arrays.

Gymnasium is the oracle: the same seed and the same list action give the same step, and a
list of the wrong length raises before the simulation advances.
"""

from __future__ import annotations

import gymnasium
import pytest

import palaestra
from palaestra.vector import AsyncVectorEnv
from tests.vector.helpers import assert_same

CASES = [
    ("HalfCheetah-v5", [0.1] * 6),
    ("Ant-v5", [0.1] * 8),
    ("Reacher-v5", [0.1, -0.2]),
    ("Pendulum-v1", [0.1]),
    ("MountainCarContinuous-v0", [0.3]),
]


def _pair(env_id: str):
    ours, theirs = palaestra.make(env_id), gymnasium.make(env_id)
    assert_same(ours.reset(seed=0), theirs.reset(seed=0))
    return ours, theirs


@pytest.mark.parametrize("env_id, action", CASES, ids=[case[0] for case in CASES])
@pytest.mark.parametrize("container", [list, tuple])
def test_a_list_or_tuple_action_steps_as_gymnasium_steps_it(env_id, action, container):
    ours, theirs = _pair(env_id)
    for _ in range(3):
        assert_same(ours.step(container(action)), theirs.step(container(action)))
    ours.close()
    theirs.close()


def test_a_list_action_of_the_wrong_length_raises_gymnasiums_error_before_the_simulation_moves():
    ours, theirs = _pair("HalfCheetah-v5")
    with pytest.raises(ValueError) as expected:
        theirs.step([0.1] * 5)
    with pytest.raises(ValueError) as caught:
        ours.step([0.1] * 5)
    assert str(expected.value) in str(caught.value)
    assert ours.unwrapped.data.time == theirs.unwrapped.data.time == 0.0
    assert_same(ours.step([0.1] * 6), theirs.step([0.1] * 6))
    ours.close()
    theirs.close()


def test_async_vector_env_steps_list_actions_as_gymnasium_and_its_workers_keep_running():
    def pendulum():
        return palaestra.make("Pendulum-v1")

    ours = AsyncVectorEnv([pendulum] * 2, context="fork")
    theirs = gymnasium.make_vec("Pendulum-v1", 2, vectorization_mode="sync")
    assert_same(ours.reset(seed=0), theirs.reset(seed=0))
    for action in ([[0.1], [-0.2]], [[0.3], [0.4]]):
        assert_same(ours.step(action), theirs.step(action))
    assert all(process.is_alive() for process in ours.processes)
    ours.close()
    theirs.close()
