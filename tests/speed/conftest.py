"""Shared helpers of the speed tests: trajectories recorded from any vector env."""

from __future__ import annotations

from typing import Any

import pytest

import palaestra as gym
from palaestra.vector.contract import assert_same, rollout
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
    """Reset with ``seed`` and play ``actions`` (see :func:`palaestra.vector.contract.rollout`)."""
    try:
        return rollout(envs, actions, seed)
    finally:
        envs.close()


def assert_same_trajectory(expected: list[tuple], actual: list[tuple]) -> None:
    """Every value equal in value, dtype and type (the suite's one comparator)."""
    assert_same(actual, expected, "trajectory")


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
