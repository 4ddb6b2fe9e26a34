"""The vector-wrapper example from the documentation works exactly as printed."""

from __future__ import annotations

import numpy as np

import palaestra as gym
from palaestra.wrappers import TimeAwareObservation


def test_clip_reward_over_time_aware_cartpole_example():
    envs = gym.make_vec(
        "CartPole-v1", num_envs=3, vectorization_mode="sync", wrappers=(TimeAwareObservation,)
    )
    envs = gym.wrappers.vector.ClipReward(envs, min_reward=0.2, max_reward=0.8)
    assert repr(envs) == "<ClipReward, SyncVectorEnv(CartPole-v1, num_envs=3)>"
    assert str(envs.action_space) == "MultiDiscrete([2 2 2])"
    observations, _ = envs.reset(seed=123)
    assert observations.shape == (3, 5)
    assert observations.dtype == np.float64
    _, rewards, _, _, _ = envs.step(envs.action_space.sample())
    assert rewards.tolist() == [0.8, 0.8, 0.8]
    envs.close()
