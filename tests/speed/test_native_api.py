"""The native vector envs' API: errors, spaces, metadata and rendering."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra as gym
from palaestra import error
from palaestra.envs.classic_control.vector import CartPoleVectorEnv, PendulumVectorEnv
from palaestra.vector import AutoresetMode


def test_spaces_are_the_single_env_spaces_batched(env_id):
    native = gym.make_vec(env_id, 3, vectorization_mode="vector_entry_point")
    sync = gym.make_vec(env_id, 3, vectorization_mode="sync")
    assert native.single_observation_space == sync.single_observation_space
    assert native.observation_space == sync.observation_space
    assert native.action_space == sync.action_space


def test_metadata_records_the_autoreset_mode():
    envs = CartPoleVectorEnv(2, autoreset_mode="SameStep")
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP


def test_step_before_reset_raises_reset_needed():
    with pytest.raises(error.ResetNeeded, match="before `reset`"):
        CartPoleVectorEnv(2).step(np.array([0, 1]))


def test_actions_of_the_wrong_shape_are_rejected_with_the_expected_shape():
    envs = CartPoleVectorEnv(2)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=r"shape \(2,\).*got shape \(3,\)"):
        envs.step(np.array([0, 1, 1]))


def test_discrete_actions_outside_the_space_are_rejected():
    envs = CartPoleVectorEnv(2)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=r"\[0, 2\] are outside the action space"):
        envs.step(np.array([0, 2]))


def test_disabled_autoreset_refuses_to_step_an_ended_sub_env():
    envs = CartPoleVectorEnv(1, max_episode_steps=2, autoreset_mode="Disabled")
    envs.reset(seed=0)
    envs.step(np.array([0]))
    assert envs.step(np.array([0]))[3].tolist() == [True]
    with pytest.raises(RuntimeError, match=r"Sub-environments \[0\] were stepped"):
        envs.step(np.array([0]))


def test_next_step_autoreset_gives_zero_reward_and_a_first_observation():
    envs = CartPoleVectorEnv(1, max_episode_steps=1)
    first, _ = envs.reset(seed=0)
    envs.step(np.array([1]))
    observation, reward, terminated, truncated, _ = envs.step(np.array([1]))
    assert (reward.tolist(), terminated.tolist(), truncated.tolist()) == ([0.0], [False], [False])
    assert not np.array_equal(observation, first)


def test_unsupported_render_mode_is_rejected_with_the_options():
    with pytest.raises(ValueError, match="'rgb_array'"):
        CartPoleVectorEnv(2, render_mode="human")


def test_render_draws_each_sub_env_as_the_single_env_does():
    native = gym.make_vec(
        "Pendulum-v1", 2, vectorization_mode="vector_entry_point", render_mode="rgb_array"
    )
    sync = gym.make_vec("Pendulum-v1", 2, vectorization_mode="sync", render_mode="rgb_array")
    for envs in (native, sync):
        envs.reset(seed=1)
        envs.step(np.array([[1.0], [-2.0]], dtype=np.float32))
    frames, expected = native.render(), sync.render()
    assert len(frames) == 2
    for frame, want in zip(frames, expected, strict=True):
        np.testing.assert_array_equal(frame, want)


def test_render_without_a_mode_returns_none():
    envs = PendulumVectorEnv(2)
    envs.reset(seed=0)
    assert envs.render() is None
