"""Autoreset resets on the step after an episode ends, as Gymnasium's next-step autoreset."""

import numpy as np
import pytest

import palaestra
from palaestra.wrappers import Autoreset
from tests.fixtures.counting_env import make_counting_env


def autoreset_counting_env(gym, terminate_at=2):
    return gym.wrappers.Autoreset(make_counting_env(gym, terminate_at=terminate_at))


def rollout(env, steps):
    env.reset(seed=0)
    return [env.step(1) for _ in range(steps)]


def test_the_ending_step_is_returned_unchanged():
    obs, reward, terminated, truncated, info = rollout(autoreset_counting_env(palaestra), 2)[-1]
    assert (obs.tolist(), reward, terminated, truncated, info) == (
        [2],
        1.5,
        True,
        False,
        {"count": 2},
    )


def test_the_step_after_the_end_resets_and_ignores_the_action():
    env = autoreset_counting_env(palaestra)
    obs, reward, terminated, truncated, info = rollout(env, 3)[-1]
    assert (obs.tolist(), reward, terminated, truncated, info) == (
        [0],
        0.0,
        False,
        False,
        {"reset": True},
    )
    assert env.unwrapped.resets == 2


def test_stepping_continues_into_the_new_episode():
    observations = [step[0].item() for step in rollout(autoreset_counting_env(palaestra), 5)]
    assert observations == [1, 2, 0, 1, 2]


def test_an_explicit_reset_cancels_a_pending_autoreset():
    env = autoreset_counting_env(palaestra)
    rollout(env, 2)
    assert env.autoreset is True
    env.reset()
    assert env.autoreset is False
    assert env.step(1)[0].tolist() == [1]


def test_records_no_constructor_arguments():
    assert Autoreset(make_counting_env(palaestra))._saved_kwargs == {}


def test_matches_gymnasium_step_for_step():
    gymnasium = pytest.importorskip("gymnasium")
    ours = rollout(autoreset_counting_env(palaestra, 3), 10)
    theirs = rollout(autoreset_counting_env(gymnasium, 3), 10)
    for our_step, their_step in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(our_step[0], their_step[0])
        assert our_step[1:] == their_step[1:]
