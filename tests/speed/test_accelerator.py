"""The numba accelerator gives the numpy path's results; choosing it is explicit."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra as gym
from palaestra.envs.classic_control.vector import CartPoleVectorEnv
from palaestra.envs.classic_control.vector._accelerator import resolve_accelerator
from palaestra.envs.classic_control.vector._generators import GeneratorBatch
from tests.speed.conftest import assert_same_trajectory, random_actions, record

pytest.importorskip("numba")


@pytest.mark.parametrize("num_envs", [8, 600])
def test_numba_cartpole_matches_the_numpy_path(num_envs):
    actions = random_actions("CartPole-v1", num_envs, 60)
    trajectories = [
        record(CartPoleVectorEnv(num_envs, accelerator=accelerator), actions)
        for accelerator in ("numpy", "numba")
    ]
    assert_same_trajectory(*trajectories)


def test_numba_draws_equal_numpy_draws():
    draws = []
    for compiled in (False, True):
        batch = GeneratorBatch(5, compiled=compiled)
        batch.seed(np.arange(5), [3, 1, 4, 1, 5])
        draws.append(batch.rows(np.array([4, 0, 2])).uniform(-1.0, 2.0, size=(3, 6)))
    np.testing.assert_array_equal(draws[1], draws[0])


def test_accelerator_comes_from_the_environment_variable(monkeypatch):
    monkeypatch.setenv("PALAESTRA_ACCELERATOR", "numba")
    envs = gym.make_vec("MountainCar-v0", 2, vectorization_mode="vector_entry_point")
    assert envs.accelerator == "numba"


def test_unknown_accelerator_names_the_choices():
    with pytest.raises(ValueError, match=r"'cuda'.*\('numpy', 'numba'\)"):
        resolve_accelerator("cuda")


@pytest.mark.parametrize("num_envs", [2, 64])
def test_compiled_cartpole_rejects_actions_outside_the_space(num_envs):
    envs = CartPoleVectorEnv(num_envs, accelerator="numba")
    envs.reset(seed=0)
    actions = np.zeros(num_envs, dtype=np.int64)
    actions[-1] = 2
    with pytest.raises(ValueError, match="must be 0 \\(push left\\) or 1"):
        envs.step(actions)


def test_compiled_close_step_follows_the_numpy_rules():
    from palaestra.envs.classic_control.vector._bookkeeping import close_step
    from palaestra.envs.classic_control.vector._compiled import compiled_close_step

    rng = np.random.default_rng(0)
    rewards = rng.normal(size=50)
    terminations = rng.random(50) < 0.3
    elapsed = rng.integers(0, 10, 50)
    restarting = rng.random(50) < 0.2
    plain = [a.copy() for a in (rewards, terminations, elapsed)]
    compiled = [a.copy() for a in (rewards, terminations, elapsed)]
    expected = close_step(*plain, restarting, 8)
    actual = compiled_close_step(*compiled, restarting, 8)
    for want, got in zip((*expected, *plain), (*actual, *compiled), strict=True):
        np.testing.assert_array_equal(got, want)
