"""DictInfoToList splits batched infos by their masks, as Gymnasium 1.4 does."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from palaestra.vector import AutoresetMode
from palaestra.wrappers.vector import DictInfoToList, RecordEpisodeStatistics
from palaestra.wrappers.vector.dict_info_to_list import info_dict_to_list
from tests.wrappers.vector.differential import (
    assert_same,
    gymnasium_module,
    make_vec_pair,
    sample_actions,
    vector_rollout,
)


def test_masked_values_go_only_to_their_sub_envs():
    infos = {"x": np.array([1.0, 2.0, 3.0]), "_x": np.array([True, False, True])}
    assert info_dict_to_list(infos, 3) == [{"x": 1.0}, {}, {"x": 3.0}]


def test_unmasked_values_go_to_every_sub_env():
    assert info_dict_to_list({"y": np.array([4, 5])}, 2) == [{"y": 4}, {"y": 5}]


def test_nested_dicts_are_split_recursively():
    infos = {
        "episode": {"r": np.array([1.0, 0.0]), "l": np.array([3, 0])},
        "_episode": np.array([True, False]),
    }
    assert info_dict_to_list(infos, 2) == [{"episode": {"r": 1.0, "l": 3}}, {}]


def test_values_with_the_wrong_length_are_refused():
    with pytest.raises(AssertionError, match="num-envs"):
        info_dict_to_list({"x": np.zeros(3)}, 2)


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP"])
def test_episode_statistics_lists_match_gymnasium(mode):
    gym = gymnasium_module()
    ours_envs, theirs_envs = make_vec_pair("CartPole-v1", 3, mode, max_episode_steps=8)
    ours = DictInfoToList(RecordEpisodeStatistics(ours_envs))
    theirs = gym.wrappers.vector.DictInfoToList(
        gym.wrappers.vector.RecordEpisodeStatistics(theirs_envs)
    )
    actions = sample_actions(ours.action_space, 30)
    assert_same(
        vector_rollout(ours, actions, mode), vector_rollout(theirs, actions, mode), ignore={"t"}
    )


def test_same_step_final_observations_appear_per_sub_env():
    envs = palaestra.make_vec(
        "CartPole-v1",
        2,
        vectorization_mode="sync",
        max_episode_steps=2,
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
    )
    envs = DictInfoToList(envs)
    envs.reset(seed=0)
    envs.step(np.array([0, 0]))
    *_, infos = envs.step(np.array([0, 0]))
    assert [info["final_obs"].shape for info in infos] == [(4,), (4,)]
