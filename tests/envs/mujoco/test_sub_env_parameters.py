"""Per-sub-env parameters of the batched MuJoCo envs (reward weights, reset noise).

The reference is a sync vector env of single envs, each built with its own value: the
batch given the same values, at construction (``make_vec(id, n, name=[...])``) or with
``set_attr("_name", [...])``, returns the same trajectory bit for bit, in every autoreset
mode and on either accelerator.
"""

from __future__ import annotations

from typing import Any

import pytest

import palaestra as gym
from palaestra.vector.contract import assert_same, rollout
from palaestra.vector.native import numba_available
from tests.envs.mujoco.conftest import random_actions

LIMIT = 9
# Rows 0 and 2 share their value: the batch mixes shared and differing parameter sets.
CASES = [
    ("Hopper-v5", "ctrl_cost_weight", [1e-3, 0.5, 1e-3]),
    ("Ant-v5", "reset_noise_scale", [0.1, 0.3, 0.1]),
    ("HalfCheetah-v5", "forward_reward_weight", [1.0, 2, 1.0]),  # an int among floats
    ("Humanoid-v5", "healthy_reward", [5.0, 1.0, 5.0]),
    ("Reacher-v5", "reward_control_weight", [1, 0.5, 1]),
    ("InvertedDoublePendulum-v5", "healthy_reward", [10.0, 3.0, 10.0]),
]
ACCELERATORS = [
    "numpy",
    pytest.param("numba", marks=pytest.mark.skipif(not numba_available(), reason="needs numba")),
]


def _sync(env_id: str, name: str, values: list[Any], mode: str = "NextStep"):
    def build(index: int) -> Any:
        return gym.make(env_id, max_episode_steps=LIMIT, **{name: values[index]})

    return gym.vector.SyncVectorEnv(
        [lambda i=i: build(i) for i in range(len(values))], autoreset_mode=mode
    )


def _batch(env_id: str, count: int, mode: str = "NextStep", **kwargs: Any):
    return gym.make_vec(env_id, count, max_episode_steps=LIMIT, autoreset_mode=mode, **kwargs)


def _same_rollouts(batched, sync) -> None:
    actions = list(random_actions(sync.action_space, 2, 3 * LIMIT))
    try:
        assert_same(rollout(batched, actions, seed=3), rollout(sync, actions, seed=3))
    finally:
        batched.close()
        sync.close()


@pytest.mark.parametrize("accelerator", ACCELERATORS)
@pytest.mark.parametrize(("env_id", "name", "values"), CASES)
def test_make_vec_values_per_sub_env_match_single_envs_each_built_with_its_own(
    env_id, name, values, accelerator
):
    batched = _batch(env_id, len(values), accelerator=accelerator, **{name: values})
    _same_rollouts(batched, _sync(env_id, name, values))


@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
def test_set_attr_per_sub_env_matches_single_envs_in_every_mode(mode):
    values = [1e-3, 0.5, 1e-3]
    batched = _batch("Hopper-v5", 3, mode)
    batched.set_attr("_ctrl_cost_weight", values)
    _same_rollouts(batched, _sync("Hopper-v5", "ctrl_cost_weight", values, mode))


def test_set_attr_mid_run_changes_each_sub_env_as_in_sync():
    batched, sync = _batch("Walker2d-v5", 2), _sync("Walker2d-v5", "healthy_reward", [1.0, 1.0])
    actions = random_actions(sync.action_space, 4, 6)
    for envs in (batched, sync):
        envs.reset(seed=1)
        envs.step(actions[0])
        envs.set_attr("_healthy_reward", [1.0, 4.0])
    assert_same([batched.step(a) for a in actions[1:]], [sync.step(a) for a in actions[1:]])


def test_get_attr_returns_one_value_per_sub_env():
    envs = _batch("Swimmer-v5", 3, ctrl_cost_weight=[1e-4, 0.1, 0.2])
    assert envs.get_attr("_ctrl_cost_weight") == (1e-4, 0.1, 0.2)


def test_one_value_for_all_is_the_single_envs_and_steps_on_one_parameter_set():
    envs = _batch("Hopper-v5", 2, ctrl_cost_weight=[0.2, 0.2]).unwrapped
    assert envs.single_env._ctrl_cost_weight == 0.2 and envs.row_values == {}


def test_parameter_names_are_the_attributes_of_the_tasks_reward_weights_and_noise():
    assert _batch("HalfCheetah-v5", 2).unwrapped.parameter_names() == {
        "_forward_reward_weight",
        "_ctrl_cost_weight",
        "_reset_noise_scale",
    }


def test_a_value_that_is_not_a_number_is_a_value_error_naming_it():
    envs = _batch("Hopper-v5", 2)
    with pytest.raises(ValueError, match=r"got 'high' \(str\) for sub-env 1; expected a real"):
        envs.set_attr("_ctrl_cost_weight", [0.1, "high"])


def test_a_list_of_the_wrong_length_is_a_value_error():
    with pytest.raises(ValueError, match="3"):
        _batch("Hopper-v5", 3, ctrl_cost_weight=[0.1, 0.2])


def test_an_attribute_that_is_not_a_parameter_cannot_be_set_per_sub_env():
    envs = _batch("Hopper-v5", 2)
    with pytest.raises(AttributeError, match="its per-sub-env parameters are: _ctrl_cost_weight"):
        envs.set_attr("frame_skip", [4, 5])


def test_set_attr_per_sub_env_through_a_pool_of_batched_groups_matches_sync():
    values = [1e-3, 0.5, 0.2, 1e-3]
    pool = gym.make_vec(
        "Hopper-v5",
        4,
        vectorization_mode="pool",
        max_episode_steps=LIMIT,
        vector_kwargs={"num_workers": 2},
    )
    pool.set_attr("_ctrl_cost_weight", values)
    assert pool.get_attr("_ctrl_cost_weight") == tuple(values)
    _same_rollouts(pool, _sync("Hopper-v5", "ctrl_cost_weight", values))
