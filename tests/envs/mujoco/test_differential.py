"""Seeded trajectories equal Gymnasium 1.4's (tolerance 1e-6; measured: exactly equal).

For every id, several seeds of 1,000 random steps (resetting at each episode end) give the
same observations, rewards, flags and info values as Gymnasium's environment; every v5
constructor argument is exercised at least once. The largest deviation of each run is
printed (``pytest -s``). The default suite runs a representative subset on shorter
trajectories; the full sweep is ``@pytest.mark.slow``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import palaestra
from tests.envs.mujoco.conftest import FAST_IDS, IDS, TOLERANCE, trajectory_deviation

SEEDS = (0, 1, 2)


def _assets(gymnasium) -> str:
    return os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets")


# Every v5 constructor argument at least once (rendering arguments: test_rendering.py).
OPTIONS = {
    "Ant-v5": [
        {
            "frame_skip": 4,
            "forward_reward_weight": 2.0,
            "ctrl_cost_weight": 0.1,
            "contact_cost_weight": 1e-3,
            "healthy_reward": 0.5,
            "main_body": "torso",
            "healthy_z_range": (0.3, 0.9),
            "contact_force_range": (-2.0, 2.0),
            "reset_noise_scale": 0.2,
        },
        {
            "terminate_when_unhealthy": False,
            "exclude_current_positions_from_observation": False,
            "include_cfrc_ext_in_observation": False,
        },
        {"xml_file": "ant.xml", "default_camera_config": {"distance": 5.0}},
    ],
    "HalfCheetah-v5": [
        {
            "frame_skip": 3,
            "forward_reward_weight": 0.5,
            "ctrl_cost_weight": 0.3,
            "reset_noise_scale": 0.05,
            "exclude_current_positions_from_observation": False,
        }
    ],
    "Hopper-v5": [
        {
            "frame_skip": 5,
            "forward_reward_weight": 2.0,
            "ctrl_cost_weight": 1e-2,
            "healthy_reward": 2.0,
            "healthy_state_range": (-50.0, 50.0),
            "healthy_z_range": (0.8, 2.0),
            "healthy_angle_range": (-0.3, 0.3),
            "reset_noise_scale": 1e-2,
            "exclude_current_positions_from_observation": False,
        },
        {"terminate_when_unhealthy": False},
    ],
    "Walker2d-v5": [
        {
            "frame_skip": 5,
            "forward_reward_weight": 2.0,
            "ctrl_cost_weight": 1e-2,
            "healthy_reward": 2.0,
            "healthy_z_range": (0.9, 1.9),
            "healthy_angle_range": (-0.5, 0.5),
            "reset_noise_scale": 1e-2,
            "exclude_current_positions_from_observation": False,
        },
        {"terminate_when_unhealthy": False, "xml_file": "walker2d.xml"},
    ],
    "Humanoid-v5": [
        {
            "frame_skip": 4,
            "forward_reward_weight": 2.0,
            "ctrl_cost_weight": 0.2,
            "contact_cost_weight": 1e-6,
            "contact_cost_range": (-1.0, 5.0),
            "healthy_reward": 3.0,
            "healthy_z_range": (0.9, 2.1),
            "reset_noise_scale": 0.02,
        },
        {
            "terminate_when_unhealthy": False,
            "exclude_current_positions_from_observation": False,
            "include_cinert_in_observation": False,
            "include_cvel_in_observation": False,
            "include_qfrc_actuator_in_observation": False,
            "include_cfrc_ext_in_observation": False,
        },
    ],
    "HumanoidStandup-v5": [
        {
            "frame_skip": 4,
            "uph_cost_weight": 2.0,
            "ctrl_cost_weight": 0.2,
            "impact_cost_weight": 1e-6,
            "impact_cost_range": (-1.0, 5.0),
            "reset_noise_scale": 0.02,
            "exclude_current_positions_from_observation": False,
            "include_cinert_in_observation": False,
            "include_cvel_in_observation": False,
            "include_qfrc_actuator_in_observation": False,
            "include_cfrc_ext_in_observation": False,
        }
    ],
    "Swimmer-v5": [
        {
            "frame_skip": 3,
            "forward_reward_weight": 2.0,
            "ctrl_cost_weight": 1e-3,
            "reset_noise_scale": 0.2,
            "exclude_current_positions_from_observation": False,
        }
    ],
    "Reacher-v5": [{"frame_skip": 3, "reward_dist_weight": 2.0, "reward_control_weight": 0.5}],
    "Pusher-v5": [
        {
            "frame_skip": 4,
            "reward_near_weight": 1.0,
            "reward_dist_weight": 2.0,
            "reward_control_weight": 0.2,
        }
    ],
    "InvertedPendulum-v5": [{"frame_skip": 3, "reset_noise_scale": 0.05}],
    "InvertedDoublePendulum-v5": [
        {"frame_skip": 4, "healthy_reward": 5.0, "reset_noise_scale": 0.2}
    ],
}
OPTION_CASES = [(env_id, i) for env_id, cases in OPTIONS.items() for i in range(len(cases))]


def _pair(gymnasium, env_id: str, kwargs: dict):
    ours = palaestra.make(env_id, **kwargs).unwrapped
    theirs = gymnasium.make(env_id, **kwargs).unwrapped
    return ours, theirs


def _measured(env_id: str, label: str, worst: float) -> float:
    print(f"\n{env_id} {label}: largest deviation from Gymnasium {worst:.3g}")
    return worst


@pytest.mark.parametrize("env_id", FAST_IDS)
def test_trajectory_equals_gymnasiums(env_id, gymnasium):
    ours, theirs = _pair(gymnasium, env_id, {})
    worst = trajectory_deviation(ours, theirs, seed=0, steps=200)
    assert _measured(env_id, "seed 0, 200 steps", worst) <= TOLERANCE


def test_user_model_file_is_loaded_by_path(gymnasium):
    path = os.path.join(_assets(gymnasium), "hopper.xml")
    ours, theirs = _pair(gymnasium, "Hopper-v5", {"xml_file": path})
    assert ours.fullpath == path
    assert trajectory_deviation(ours, theirs, seed=3, steps=100) <= TOLERANCE


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("env_id", IDS)
def test_thousand_step_trajectories_equal_gymnasiums(env_id, seed, gymnasium):
    ours, theirs = _pair(gymnasium, env_id, {})
    worst = trajectory_deviation(ours, theirs, seed=seed, steps=1000)
    assert _measured(env_id, f"seed {seed}, 1000 steps", worst) <= TOLERANCE


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "case"), OPTION_CASES)
def test_every_v5_option_gives_gymnasiums_trajectory(env_id, case, gymnasium):
    kwargs = OPTIONS[env_id][case]
    ours, theirs = _pair(gymnasium, env_id, kwargs)
    assert ours.observation_space.shape == theirs.observation_space.shape
    worst = trajectory_deviation(ours, theirs, seed=5, steps=1000)
    assert _measured(env_id, f"options {sorted(kwargs)}", worst) <= TOLERANCE


@pytest.mark.parametrize("env_id", IDS)
def test_spaces_equal_gymnasiums(env_id, gymnasium):
    ours, theirs = _pair(gymnasium, env_id, {})
    assert ours.observation_space.shape == theirs.observation_space.shape
    assert ours.observation_space.dtype == theirs.observation_space.dtype
    np.testing.assert_array_equal(ours.action_space.low, theirs.action_space.low)
    np.testing.assert_array_equal(ours.action_space.high, theirs.action_space.high)
    assert ours.action_space.dtype == theirs.action_space.dtype
    assert ours.metadata == theirs.metadata
    assert ours.dt == theirs.dt


@pytest.mark.parametrize("env_id", IDS)
def test_registration_equals_gymnasiums(env_id, gymnasium):
    ours, theirs = palaestra.spec(env_id), gymnasium.spec(env_id)
    assert (ours.max_episode_steps, ours.reward_threshold) == (
        theirs.max_episode_steps,
        theirs.reward_threshold,
    )


def test_pusher_v4_is_refused_on_mujoco_3_as_gymnasium_refuses_it(gymnasium):
    with pytest.raises(ImportError) as expected:
        gymnasium.make("Pusher-v4")
    with pytest.raises(ImportError) as refused:
        palaestra.make("Pusher-v4")
    assert str(refused.value) == str(expected.value)


def test_mujoco_py_ids_raise_gymnasiums_import_error(gymnasium):
    with pytest.raises(ImportError) as expected:
        gymnasium.make("Ant-v3")
    with pytest.raises(ImportError, match=str(expected.value).split(" (")[0]):
        palaestra.make("Ant-v3")
