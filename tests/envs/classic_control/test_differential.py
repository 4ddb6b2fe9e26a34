"""Seeded trajectories equal Gymnasium 1.4's, bit for bit.

For every environment, several seeds and kwargs variants: 1,000 steps of a seeded random
action sequence, resetting at the end of each episode, give identical observations (values
and dtype), rewards (values and Python/numpy type) and termination/truncation flags.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import palaestra
from palaestra.vector.contract import assert_same, rollout
from tests.envs.classic_control.conftest import ENV_IDS, random_actions

STEPS = 1000
SEEDS = [0, 1, 123]


def assert_same_trajectory(ours, theirs, seed: int, overshoot: float = 1.0, options=None):
    """Seeded rollouts of both envs, resetting after each episode, are identical."""
    actions = random_actions(theirs.action_space, seed, STEPS, overshoot)
    assert_same(rollout(ours, actions, seed, options), rollout(theirs, actions, seed, options))


@pytest.fixture(autouse=True)
def _silence_deprecation():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_seeded_random_rollout_matches_gymnasium(gymnasium, env_id, seed):
    assert_same_trajectory(palaestra.make(env_id), gymnasium.make(env_id), seed)


@pytest.mark.parametrize("env_id", ["MountainCarContinuous-v0", "Pendulum-v1"])
def test_out_of_bound_continuous_actions_are_clipped_as_in_gymnasium(gymnasium, env_id):
    assert_same_trajectory(palaestra.make(env_id), gymnasium.make(env_id), 5, overshoot=1.6)


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("CartPole-v1", {"sutton_barto_reward": True}),
        ("MountainCar-v0", {"goal_velocity": 0.02}),
        ("MountainCarContinuous-v0", {"goal_velocity": 0.01}),
        ("Pendulum-v1", {"g": 9.81}),
    ],
)
def test_constructor_kwargs_match_gymnasium(gymnasium, env_id, kwargs):
    ours, theirs = palaestra.make(env_id, **kwargs), gymnasium.make(env_id, **kwargs)
    assert_same_trajectory(ours, theirs, 7)


@pytest.mark.parametrize(
    ("env_id", "attribute", "value"),
    [
        ("CartPole-v1", "kinematics_integrator", "semi-implicit euler"),
        ("Acrobot-v1", "book_or_nips", "nips"),
        ("Acrobot-v1", "torque_noise_max", 0.2),
    ],
)
def test_attribute_variants_match_gymnasium(gymnasium, env_id, attribute, value):
    ours, theirs = palaestra.make(env_id), gymnasium.make(env_id)
    setattr(ours.unwrapped, attribute, value)
    setattr(theirs.unwrapped, attribute, value)
    assert_same_trajectory(ours, theirs, 11)


@pytest.mark.parametrize(
    ("env_id", "options"),
    [
        ("CartPole-v1", {"low": -0.2, "high": 0.1}),
        ("MountainCar-v0", {"low": -1.0, "high": 0.0}),
        ("MountainCarContinuous-v0", {"high": -0.2}),
        ("Pendulum-v1", {"x_init": 0.5, "y_init": 2.0}),
        ("Acrobot-v1", {"low": -0.5, "high": 0.5}),
    ],
)
def test_reset_options_match_gymnasium(gymnasium, env_id, options):
    ours, theirs = palaestra.make(env_id), gymnasium.make(env_id)
    for seed in SEEDS:
        observation, _ = ours.reset(seed=seed, options=options)
        np.testing.assert_array_equal(observation, theirs.reset(seed=seed, options=options)[0])


def pump_energy(env_id: str, observation: np.ndarray):
    """Push along the velocity: a policy that reaches the goal states random actions miss."""
    if env_id == "MountainCar-v0":
        return 2 if observation[1] >= 0 else 0
    if env_id == "MountainCarContinuous-v0":
        return np.array([1.0 if observation[1] >= 0 else -1.0], dtype=np.float32)
    return 2 if observation[5] >= 0 else 0


@pytest.mark.parametrize("env_id", ["MountainCar-v0", "MountainCarContinuous-v0", "Acrobot-v1"])
def test_goal_reaching_episodes_match_gymnasium(gymnasium, env_id):
    ours, theirs = palaestra.make(env_id), gymnasium.make(env_id)
    observation, _ = ours.reset(seed=3)
    theirs.reset(seed=3)
    terminations = 0
    for _ in range(1500):
        action = pump_energy(env_id, observation)
        observation, reward, terminated, truncated, _ = ours.step(action)
        expected = theirs.step(action)
        np.testing.assert_array_equal(observation, expected[0])
        assert (reward, terminated, truncated) == expected[1:4]
        if terminated or truncated:
            terminations += terminated
            observation, _ = ours.reset()
            theirs.reset()
    assert terminations > 3
