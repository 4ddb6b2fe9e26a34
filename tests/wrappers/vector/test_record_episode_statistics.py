"""Vector RecordEpisodeStatistics: same returns and lengths as Gymnasium 1.4 in every mode."""

from __future__ import annotations

import re

import numpy as np
import pytest

import palaestra
from palaestra.vector import AutoresetMode
from palaestra.wrappers.vector import RecordEpisodeStatistics
from tests.wrappers.vector.differential import (
    AUTORESET_MODES,
    assert_same,
    gymnasium_module,
    make_vec_pair,
    sample_actions,
    vector_rollout,
)


@pytest.mark.parametrize("mode", AUTORESET_MODES)
def test_statistics_match_gymnasium_except_wall_time(mode):
    gym = gymnasium_module()
    ours_envs, theirs_envs = make_vec_pair("CartPole-v1", 4, mode, max_episode_steps=15)
    ours = RecordEpisodeStatistics(ours_envs, buffer_length=5)
    theirs = gym.wrappers.vector.RecordEpisodeStatistics(theirs_envs, buffer_length=5)
    actions = sample_actions(ours.action_space, 80)
    # Full resets only: on partial ones Gymnasium deliberately differs (see the last test).
    assert_same(
        vector_rollout(ours, actions, mode, reset_all=True),
        vector_rollout(theirs, actions, mode, reset_all=True),
        ignore={"t"},
    )
    assert ours.episode_count == theirs.episode_count
    assert list(ours.return_queue) == list(theirs.return_queue)
    assert list(ours.length_queue) == list(theirs.length_queue)


def run_until_episodes_end(envs, actions):
    """Step until an episode ends; return that step's info."""
    envs.reset(seed=0)
    while True:
        *_, info = envs.step(actions)
        if "episode" in info:
            return info


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_every_step_of_an_episode_counts_once(mode):
    envs = palaestra.make_vec(
        "CartPole-v1",
        2,
        vectorization_mode="sync",
        max_episode_steps=6,
        vector_kwargs={"autoreset_mode": mode},
    )
    envs = RecordEpisodeStatistics(envs)
    info = run_until_episodes_end(envs, np.array([0, 1]))
    finished = info["_episode"]
    assert info["episode"]["l"][finished].max() <= 6
    assert np.array_equal(info["episode"]["r"][finished], info["episode"]["l"][finished])


def test_second_episode_is_counted_from_its_first_step_in_next_step_mode():
    envs = palaestra.make_vec("CartPole-v1", 1, vectorization_mode="sync", max_episode_steps=4)
    envs = RecordEpisodeStatistics(envs)
    envs.reset(seed=0)
    lengths = []
    for _ in range(10):
        *_, info = envs.step(np.array([0]))
        if "episode" in info:
            lengths.append(int(info["episode"]["l"][0]))
    assert lengths == [4, 4]


def test_existing_statistics_key_is_refused():
    envs = palaestra.make_vec("CartPole-v1", 1, vectorization_mode="sync", max_episode_steps=1)
    envs = RecordEpisodeStatistics(RecordEpisodeStatistics(envs))
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="already exists"):
        envs.step(np.array([0]))


@pytest.mark.parametrize(
    ("mask", "error", "message"),
    [
        ([True, False], TypeError, "must be a numpy array, got <class 'list'>"),
        (np.array([True]), ValueError, "must have shape `(2,)`, got (1,)"),
        (np.array([1, 0]), TypeError, "must have `dtype=np.bool_`, got int64"),
        (
            np.array([False, False]),
            ValueError,
            "must contain a boolean array with at least one True value",
        ),
    ],
)
def test_bad_reset_masks_are_refused(mask, error, message):
    envs = RecordEpisodeStatistics(
        palaestra.make_vec(
            "CartPole-v1",
            2,
            vectorization_mode="sync",
            vector_kwargs={"autoreset_mode": AutoresetMode.DISABLED},
        )
    )
    envs.reset(seed=0)
    with pytest.raises(error, match=re.escape(f"`options['reset_mask']` {message}")):
        envs.reset(options={"reset_mask": mask})


def test_partial_reset_keeps_the_statistics_of_running_sub_envs():
    # Gymnasium 1.4 restarts every sub-env's statistics here, because its SyncVectorEnv pops
    # the mask out of ``options`` before the wrapper reads it; we restart only the masked ones.
    envs = RecordEpisodeStatistics(
        palaestra.make_vec(
            "CartPole-v1",
            2,
            vectorization_mode="sync",
            vector_kwargs={"autoreset_mode": AutoresetMode.DISABLED},
        )
    )
    envs.reset(seed=0)
    envs.step(np.array([0, 0]))
    envs.step(np.array([0, 0]))
    envs.reset(options={"reset_mask": np.array([True, False])})
    assert envs.episode_lengths.tolist() == [0, 2]
    assert envs.episode_returns.tolist() == [0.0, 2.0]
