"""Fixtures and helpers shared by the MuJoCo tests: ids, the Gymnasium oracle, trajectories."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

# Offscreen rendering without a display; set before MuJoCo's GL modules are imported.
os.environ.setdefault("MUJOCO_GL", "egl")

NAMES = (
    "Ant",
    "HalfCheetah",
    "Hopper",
    "Walker2d",
    "Humanoid",
    "HumanoidStandup",
    "Swimmer",
    "Reacher",
    "Pusher",
    "InvertedPendulum",
    "InvertedDoublePendulum",
)
V5_IDS = [f"{name}-v5" for name in NAMES]
# Pusher-v4 is refused on MuJoCo >= 3, by Gymnasium and by us.
V4_IDS = [f"{name}-v4" for name in NAMES if name != "Pusher"]
IDS = V5_IDS + V4_IDS
# A fast, representative subset: a free-floating body with contacts (Ant), a planar runner
# (HalfCheetah), a PGS-solved humanoid with tendons (Humanoid), a site-reading balance task
# (InvertedDoublePendulum) and an arm reading body positions (Reacher-v4, reward before step).
FAST_IDS = ["Ant-v5", "HalfCheetah-v5", "Humanoid-v5", "InvertedDoublePendulum-v5", "Reacher-v4"]

TOLERANCE = 1e-6


def random_actions(action_space, seed: int, count: int) -> np.ndarray:
    """``count`` actions drawn uniformly from a Box, reproducibly, as float32."""
    rng = np.random.default_rng(seed + 1000)
    return rng.uniform(action_space.low, action_space.high, (count, *action_space.shape)).astype(
        np.float32
    )


def deviation(ours, theirs) -> float:
    """The largest absolute difference between two values (numbers, arrays)."""
    ours, theirs = np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64)
    assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
    return float(np.max(np.abs(ours - theirs), initial=0.0))


def info_deviation(ours: dict, theirs: dict) -> float:
    """The largest difference over an info dict's values, after checking equal keys."""
    assert ours.keys() == theirs.keys(), sorted(set(ours) ^ set(theirs))
    return max((deviation(ours[key], theirs[key]) for key in theirs), default=0.0)


def trajectory_deviation(ours, theirs, seed: int, steps: int) -> float:
    """Run both unwrapped envs on the same seed and actions, resetting at each episode end.

    Flags and reward types must agree exactly; returns the largest difference over
    observations, rewards and info values.
    """
    observation, info = ours.reset(seed=seed)
    expected_observation, expected_info = theirs.reset(seed=seed)
    worst = max(deviation(observation, expected_observation), info_deviation(info, expected_info))
    for step, action in enumerate(random_actions(theirs.action_space, seed, steps)):
        result, expected = ours.step(action), theirs.step(action)
        assert result[2:4] == expected[2:4], f"step {step}: flags {result[2:4]} != {expected[2:4]}"
        assert type(result[1]) is type(expected[1]), f"step {step}: reward type"
        assert result[0].dtype == expected[0].dtype
        worst = max(
            worst,
            deviation(result[0], expected[0]),
            deviation(result[1], expected[1]),
            info_deviation(result[4], expected[4]),
        )
        if result[2] or result[3]:
            observation, info = ours.reset()
            expected_observation, expected_info = theirs.reset()
            worst = max(worst, deviation(observation, expected_observation))
    return worst


@pytest.fixture
def gymnasium():
    """The reference implementation (the test extra installs gymnasium[mujoco])."""
    module = pytest.importorskip("gymnasium")
    pytest.importorskip("mujoco")
    return module


@pytest.fixture(autouse=True, scope="session")
def _mujoco_warnings_as_python_warnings():
    """MuJoCo's warnings (e.g. Gymnasium's cheetah model compiling a deprecated attribute)
    become Python warnings instead of lines appended to ./MUJOCO_LOG.TXT."""
    mujoco = pytest.importorskip("mujoco")
    previous = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(lambda message: warnings.warn(f"MuJoCo: {message}", stacklevel=1))
    yield
    mujoco.set_mju_user_warning(previous)


@pytest.fixture(autouse=True)
def _quiet_deprecations():
    """v4 ids warn that they are out of date, in Gymnasium and here alike."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        yield
