"""The batched MuJoCo vector env equals a sync vector env of the single envs, exactly.

Same seeds and actions give identical observations, rewards, flags and infos (values,
dtypes, keys) in every autoreset mode, including ``reset_mask`` resets; the vector env
passes palaestra's vector-env contract. The default suite covers a representative subset;
every id is ``@pytest.mark.slow``.
"""

from __future__ import annotations

import weakref

import numpy as np
import pytest

import palaestra
from palaestra.envs.mujoco.vector import MujocoVectorEnv, default_threads
from palaestra.vector.contract import VectorEnvContract, assert_same, check_vector_env, rollout
from tests.envs.mujoco.conftest import FAST_IDS, IDS, random_actions

MODES = ("NextStep", "SameStep", "Disabled")
LIMIT = 9


def _pair(env_id: str, mode: str, num_envs: int = 3):
    batched = palaestra.make_vec(
        env_id,
        num_envs,
        vectorization_mode="vector_entry_point",
        autoreset_mode=mode,
        max_episode_steps=LIMIT,
    )
    sync = palaestra.make_vec(
        env_id,
        num_envs,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": mode},
        max_episode_steps=LIMIT,
    )
    return batched, sync


def _assert_same_rollouts(env_id: str, mode: str, steps: int) -> None:
    batched, sync = _pair(env_id, mode)
    actions = list(random_actions(batched.action_space, 7, steps))
    # Dict key order may differ where rows reset (sync orders keys by the first sub-env).
    assert_same(rollout(batched, actions), rollout(sync, actions), key_order=False)
    batched.close()
    sync.close()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id", FAST_IDS)
def test_batched_rollout_equals_sync(env_id, mode):
    _assert_same_rollouts(env_id, mode, steps=2 * LIMIT + 3)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id", IDS)
def test_every_id_batched_rollout_equals_sync(env_id, mode):
    _assert_same_rollouts(env_id, mode, steps=60)


def test_make_vec_defaults_to_the_batched_env():
    envs = palaestra.make_vec("Hopper-v5", 2)
    assert isinstance(envs.unwrapped, MujocoVectorEnv)
    assert envs.unwrapped.max_episode_steps == 1000
    envs.close()


def test_make_vec_steps_with_one_mujoco_batch_by_default():
    envs = palaestra.make_vec("Hopper-v5", 2)
    assert envs.unwrapped.stepper == "batch"
    envs.close()


@pytest.mark.parametrize("env_id", ["Ant-v5", "Humanoid-v5", "HumanoidStandup-v5"])
def test_tasks_that_read_contact_forces_step_on_threads_by_default(env_id):
    envs = palaestra.make_vec(env_id, 2)
    assert envs.unwrapped.stepper == "threads"
    envs.close()


def test_step_infos_do_not_change_when_the_batch_steps_on():
    envs = palaestra.make_vec("HalfCheetah-v5", 2)
    envs.reset(seed=0)
    actions = random_actions(envs.action_space, 0, 2)
    infos = envs.step(actions[0])[-1]
    kept = {key: value.copy() for key, value in infos.items()}
    envs.step(actions[1])
    assert_same(infos, kept)
    envs.close()


def test_threads_default_to_the_cores_this_process_may_use():
    envs = palaestra.make_vec("Swimmer-v5", 2)
    assert envs.unwrapped.num_threads == default_threads()
    envs.close()


def test_thread_count_does_not_change_results():
    one = palaestra.make_vec("Ant-v5", 4, num_threads=1)
    two = palaestra.make_vec("Ant-v5", 4, num_threads=2)
    actions = list(random_actions(one.action_space, 3, 5))
    assert_same(rollout(one, actions), rollout(two, actions))


def test_single_env_arguments_reach_the_sub_envs():
    envs = palaestra.make_vec("Ant-v5", 2, include_cfrc_ext_in_observation=False)
    assert envs.single_observation_space.shape == (27,)
    envs.close()


def test_step_before_reset_is_refused():
    envs = palaestra.make_vec("Reacher-v5", 2)
    with pytest.raises(palaestra.error.ResetNeeded, match="before `reset`"):
        envs.step(np.zeros((2, 2), np.float32))


def test_actions_of_the_wrong_shape_are_refused_with_the_expected_shape():
    envs = palaestra.make_vec("Reacher-v5", 2)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=r"expects actions of shape \(2, 2\).*got shape \(3, 2\)"):
        envs.step(np.zeros((3, 2), np.float32))


def test_zero_threads_are_refused():
    with pytest.raises(
        ValueError, match=r"num_threads must be at least 1 \(or None for one per core\), got 0"
    ):
        palaestra.make_vec("Reacher-v5", 2, num_threads=0)


def test_human_render_mode_is_refused_naming_the_alternative():
    with pytest.raises(ValueError, match="render one sub-environment made with make"):
        palaestra.make_vec("Reacher-v5", 2, render_mode="human")


class TestHalfCheetahContract(VectorEnvContract):
    """palaestra's vector-env contract, with the sync vector env as the reference."""

    def make_env(self):
        return palaestra.make_vec(
            "HalfCheetah-v5", 3, vectorization_mode="vector_entry_point", max_episode_steps=8
        )

    def make_reference(self):
        return palaestra.make_vec(
            "HalfCheetah-v5", 3, vectorization_mode="sync", max_episode_steps=8
        )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id", ["Ant-v5", "Reacher-v4"])
def test_batched_env_meets_the_contract_in_every_autoreset_mode(env_id, mode):
    # Ant steps on threads by default, Reacher-v4 in one mujoco batch.
    check_vector_env(
        lambda: palaestra.make_vec(
            env_id, 2, vectorization_mode="vector_entry_point", autoreset_mode=mode,
            max_episode_steps=LIMIT,
        ),
        lambda: palaestra.make_vec(
            env_id, 2, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode},
            max_episode_steps=LIMIT,
        ),
    )  # fmt: skip


@pytest.mark.parametrize("env_id", ["Ant-v5", "Hopper-v5", "Humanoid-v5"])
def test_both_steppers_give_the_same_rollout(env_id):
    threads = palaestra.make_vec(env_id, 3, stepper="threads", max_episode_steps=LIMIT)
    batch = palaestra.make_vec(env_id, 3, stepper="batch", max_episode_steps=LIMIT)
    actions = list(random_actions(threads.action_space, 5, LIMIT + 4))
    assert_same(rollout(threads, actions), rollout(batch, actions))


def test_unknown_stepper_is_refused_naming_the_choices():
    with pytest.raises(
        ValueError, match=r"Unknown stepper 'gpu'; choose one of \['batch', 'threads'\]"
    ):
        palaestra.make_vec("Reacher-v5", 2, stepper="gpu")


def test_closing_the_batched_env_frees_its_mujoco_batch_at_once():
    # Left to the garbage collector, the batch could be freed in a forked child, whose copy
    # of MuJoCo's thread pool has no threads to join.
    envs = palaestra.make_vec("Hopper-v5", 2)
    envs.reset(seed=0)
    batch = weakref.ref(envs.simulations.batch)
    envs.close()
    assert batch() is None
