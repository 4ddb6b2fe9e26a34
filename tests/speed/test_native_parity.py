"""Natively batched classic control gives the sync vector env's results for the same seeds."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra as gym
from tests.speed.conftest import assert_same_trajectory, random_actions, record


def make_native(env_id: str, num_envs: int, autoreset_mode: str = "NextStep", **kwargs):
    return gym.make_vec(
        env_id,
        num_envs,
        vectorization_mode="vector_entry_point",
        autoreset_mode=autoreset_mode,
        **kwargs,
    )


def make_sync(env_id: str, num_envs: int, autoreset_mode: str = "NextStep", **kwargs):
    return gym.make_vec(
        env_id,
        num_envs,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": autoreset_mode},
        **kwargs,
    )


def test_native_matches_sync_in_every_autoreset_mode(env_id, autoreset_mode, accelerator):
    actions = random_actions(env_id, 4, 250)
    expected = record(make_sync(env_id, 4, autoreset_mode), actions)
    actual = record(make_native(env_id, 4, autoreset_mode, accelerator=accelerator), actions)
    assert_same_trajectory(expected, actual)


@pytest.mark.parametrize("env_id", ["Pendulum-v1", "Acrobot-v1"])
def test_squares_round_like_the_single_env_over_long_runs(env_id):
    actions = random_actions(env_id, 24, 600, seed=11)
    assert_same_trajectory(
        record(make_sync(env_id, 24), actions, seed=21),
        record(make_native(env_id, 24, accelerator="numpy"), actions, seed=21),
    )


@pytest.mark.parametrize("above", [0, 1], ids=["row-by-row", "batched"])
def test_small_numpy_batches_step_row_by_row_with_the_batched_results(above):
    from palaestra.envs.classic_control.vector import AcrobotVectorEnv

    num_envs = AcrobotVectorEnv.row_by_row_max_envs + above
    kwargs = {"torque_noise_max": 0.2}
    actions = random_actions("Acrobot-v1", num_envs, 150, seed=2)
    native = make_native("Acrobot-v1", num_envs, accelerator="numpy", **kwargs)
    assert native.row_by_row is (above == 0)
    assert_same_trajectory(
        record(make_sync("Acrobot-v1", num_envs, **kwargs), actions),
        record(native, actions),
    )


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("CartPole-v1", {"sutton_barto_reward": True}),
        ("MountainCar-v0", {"goal_velocity": 0.01}),
        ("MountainCarContinuous-v0", {"goal_velocity": 0.01}),
        ("Pendulum-v1", {"g": 9.81}),
        ("Acrobot-v1", {"book_or_nips": "nips", "torque_noise_max": 0.3}),
    ],
)
def test_env_kwargs_reach_the_batch_as_they_reach_each_sub_env(env_id, kwargs):
    actions = random_actions(env_id, 3, 200)
    assert_same_trajectory(
        record(make_sync(env_id, 3, **kwargs), actions),
        record(make_native(env_id, 3, **kwargs), actions),
    )


def test_reset_mask_resets_only_the_masked_sub_envs_like_sync(env_id):
    mask = np.array([True, False, True])
    action = random_actions(env_id, 3, 1)[0]
    results = []
    for envs in (make_sync(env_id, 3), make_native(env_id, 3)):
        envs.reset(seed=0)
        envs.step(action)
        results.append(envs.reset(seed=[None, None, 9], options={"reset_mask": mask})[0])
    np.testing.assert_array_equal(results[1], results[0])


def test_reset_options_bounds_match_sync():
    options = {"low": -0.2, "high": 0.2}
    expected = make_sync("CartPole-v1", 3).reset(seed=4, options=options)[0]
    actual = make_native("CartPole-v1", 3).reset(seed=4, options=options)[0]
    np.testing.assert_array_equal(actual, expected)


def test_seed_lists_seed_each_sub_env():
    envs = make_native("CartPole-v1", 2)
    envs.reset(seed=[7, 3])
    assert envs.np_random_seed == (7, 3)


def test_time_limit_comes_from_the_spec():
    envs = make_native("Pendulum-v1", 2)
    envs.reset(seed=0)
    for _ in range(199):
        truncations = envs.step(np.zeros((2, 1), dtype=np.float32))[3]
        assert not truncations.any()
    assert envs.step(np.zeros((2, 1), dtype=np.float32))[3].all()


def test_make_vec_picks_the_native_env_by_default():
    envs = gym.make_vec("Acrobot-v1", 2)
    assert type(envs).__name__ == "AcrobotVectorEnv"
    assert envs.spec.kwargs["vectorization_mode"] == "vector_entry_point"


def test_large_batches_with_array_stepped_streams_match_sync(accelerator):
    actions = random_actions("CartPole-v1", 300, 40)
    assert_same_trajectory(
        record(make_sync("CartPole-v1", 300), actions),
        record(make_native("CartPole-v1", 300, accelerator=accelerator), actions),
    )
