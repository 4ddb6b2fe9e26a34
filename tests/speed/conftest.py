"""Shared helpers of the speed tests: trajectories recorded from any vector env."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import palaestra as gym
from palaestra.vector.native import numba_available

CLASSIC_IDS = [
    "CartPole-v1",
    "MountainCar-v0",
    "MountainCarContinuous-v0",
    "Pendulum-v1",
    "Acrobot-v1",
]
AUTORESET_MODES = ["NextStep", "SameStep", "Disabled"]


def random_actions(env_id: str, num_envs: int, steps: int, seed: int = 5) -> list[Any]:
    """``steps`` batches of random actions for ``num_envs`` copies of ``env_id``."""
    space = gym.make_vec(env_id, num_envs, vectorization_mode="sync").action_space
    space.seed(seed)
    return [space.sample() for _ in range(steps)]


def record(envs: Any, actions: list[Any], seed: int = 3) -> list[tuple]:
    """Reset with ``seed`` and play ``actions``; a disabled-autoreset env is reset by mask."""
    disabled = envs.metadata["autoreset_mode"].value == "Disabled"
    trajectory: list[tuple] = [envs.reset(seed=seed)]
    for action in actions:
        result = envs.step(action)
        trajectory.append(result)
        ended = result[2] | result[3]
        if disabled and ended.any():
            trajectory.append(envs.reset(options={"reset_mask": ended}))
    envs.close()
    return trajectory


def assert_same_trajectory(expected: list[tuple], actual: list[tuple]) -> None:
    """Every array equal in value and dtype, every info equal key by key."""
    assert len(expected) == len(actual)
    for t, (want, got) in enumerate(zip(expected, actual, strict=True)):
        for want_item, got_item in zip(want[:-1], got[:-1], strict=True):
            assert got_item.dtype == want_item.dtype, f"step {t}"
            np.testing.assert_array_equal(got_item, want_item, err_msg=f"step {t}")
        assert_same_info(want[-1], got[-1], t)


def assert_same_info(want: dict, got: dict, t: int) -> None:
    """Infos with the same keys, masks and (object-array) final observations."""
    assert sorted(got) == sorted(want), f"step {t}"
    for key, value in want.items():
        if key == "final_obs":
            for want_obs, got_obs in zip(value, got[key], strict=True):
                np.testing.assert_array_equal(got_obs, want_obs, err_msg=f"step {t}")
        elif isinstance(value, dict):
            assert_same_info(value, got[key], t)
        else:
            np.testing.assert_array_equal(got[key], value, err_msg=f"step {t} {key}")


@pytest.fixture(params=CLASSIC_IDS)
def env_id(request: pytest.FixtureRequest) -> str:
    """Each classic-control id."""
    return request.param


@pytest.fixture(params=AUTORESET_MODES)
def autoreset_mode(request: pytest.FixtureRequest) -> str:
    """Each autoreset mode."""
    return request.param


@pytest.fixture(
    params=[
        "numpy",
        pytest.param(
            "numba", marks=pytest.mark.skipif(not numba_available(), reason="needs numba")
        ),
    ]
)
def accelerator(request: pytest.FixtureRequest) -> str:
    """Each accelerator of the native envs (numba where installed)."""
    return request.param
