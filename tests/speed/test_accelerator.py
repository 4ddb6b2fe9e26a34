"""The numba accelerator gives the numpy path's results; choosing it is explicit."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra as gym
from palaestra.envs.classic_control.vector import (
    AcrobotVectorEnv,
    CartPoleVectorEnv,
    PendulumVectorEnv,
)
from palaestra.vector.native.accelerator import resolve_accelerator
from palaestra.vector.native.generators import GeneratorBatch
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


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"book_or_nips": "nips"}, {"torque_noise_max": 0.3}],
    ids=["book", "nips", "noise"],
)
@pytest.mark.parametrize("num_envs", [8, 600])
def test_numba_acrobot_matches_the_numpy_path(num_envs, kwargs):
    actions = random_actions("Acrobot-v1", num_envs, 120)
    trajectories = [
        record(AcrobotVectorEnv(num_envs, accelerator=accelerator, **kwargs), actions)
        for accelerator in ("numpy", "numba")
    ]
    assert_same_trajectory(*trajectories)


@pytest.mark.parametrize("kwargs", [{}, {"g": 9.81}], ids=["default", "g"])
@pytest.mark.parametrize("num_envs", [8, 600])
def test_numba_pendulum_matches_the_numpy_path(num_envs, kwargs):
    actions = random_actions("Pendulum-v1", num_envs, 120)
    trajectories = [
        record(PendulumVectorEnv(num_envs, accelerator=accelerator, **kwargs), actions)
        for accelerator in ("numpy", "numba")
    ]
    assert_same_trajectory(*trajectories)


@pytest.mark.parametrize("kwargs", [{}, {"goal_velocity": 0.01}], ids=["default", "goal"])
@pytest.mark.parametrize("env_id", ["MountainCar-v0", "MountainCarContinuous-v0"])
@pytest.mark.parametrize("num_envs", [8, 600])
def test_numba_mountain_cars_match_the_numpy_path(env_id, num_envs, kwargs):
    actions = random_actions(env_id, num_envs, 250)
    trajectories = [
        record(
            gym.make_vec(env_id, num_envs, max_episode_steps=60, accelerator=name, **kwargs),
            actions,
        )
        for name in ("numpy", "numba")
    ]
    assert_same_trajectory(*trajectories)


def test_numba_continuous_mountain_car_rounds_like_the_single_env_at_the_walls():
    """Throttles at and beyond the limits, cars at the left wall and at the goal."""
    from palaestra.envs.classic_control.dynamics.mountain_car import (
        ContinuousMountainCarParams,
        continuous_mountain_car_step,
    )
    from palaestra.envs.classic_control.vector._compiled import compile_continuous_mountain_car

    params = ContinuousMountainCarParams()
    rng = np.random.default_rng(0)
    count = 4000
    states = np.column_stack(
        [rng.uniform(-1.25, 0.65, count), rng.uniform(-0.08, 0.08, count)]
    ).astype(np.float32)
    states[::7, 0] = np.float32(params.min_position)
    actions = rng.choice([-3.0, -1.0, -0.3, 0.0, 0.7, 1.0, 2.5], size=(count, 1)).astype(np.float32)
    fresh = rng.random(count) < 0.3
    batch = np.asfortranarray(states.astype(np.float64))
    advance = compile_continuous_mountain_car(params)
    next_states, _, _ = advance(batch, batch.astype(np.float32), actions, fresh)
    for i in range(count):
        row = batch[i] if fresh[i] else states[i]
        expected = continuous_mountain_car_step(row, actions[i], params)
        assert next_states[i].tolist() == expected.tolist(), i


def test_numba_pendulum_keeps_the_last_torque_for_rendering():
    envs = PendulumVectorEnv(2, accelerator="numba")
    envs.reset(seed=0)
    envs.step(np.array([[3.0], [-0.5]], dtype=np.float32))
    assert envs.last_u.tolist() == [2.0, -0.5]


@pytest.mark.parametrize("env_id", ["Acrobot-v1", "CartPole-v1", "Pendulum-v1"])
def test_numba_native_matches_sync_over_long_runs(env_id):
    actions = random_actions(env_id, 16, 600, seed=11)
    expected = record(gym.make_vec(env_id, 16, vectorization_mode="sync"), actions, seed=21)
    native = gym.make_vec(env_id, 16, vectorization_mode="vector_entry_point", accelerator="numba")
    assert_same_trajectory(expected, record(native, actions, seed=21))


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
    with pytest.raises(ValueError, match=r"'cuda'.*\('auto', 'numpy', 'numba'\)"):
        resolve_accelerator("cuda")


@pytest.mark.parametrize("num_envs", [2, 64])
def test_compiled_cartpole_rejects_actions_outside_the_space(num_envs):
    envs = CartPoleVectorEnv(num_envs, accelerator="numba")
    envs.reset(seed=0)
    actions = np.zeros(num_envs, dtype=np.int64)
    actions[-1] = 2
    with pytest.raises(AssertionError, match="invalid: each action must be 0 \\(push left\\)"):
        envs.step(actions)


def test_compiled_close_step_follows_the_numpy_rules():
    from palaestra.vector.native.bookkeeping import close_step
    from palaestra.vector.native.compiled import compiled_close_step

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


@pytest.fixture(scope="module")
def compiled_power():
    from palaestra.vector.native.compiled import njit

    @njit
    def power(values, exponent):
        out = np.empty_like(values)
        for i in range(values.size):
            out[i] = values[i] ** exponent
        return out

    return power


@pytest.fixture(scope="module")
def awkward_values():
    """Many magnitudes, plus the values whose squares round apart from their products."""
    rng = np.random.default_rng(0)
    values = rng.normal(size=200_000) * rng.choice([1e-150, 1e-3, 1.0, 10.0, 1e150], 200_000)
    return np.concatenate([[0.0, -0.0, np.inf, -np.inf, 5e-324], values])


def test_compiled_float64_squares_are_the_c_library_pow(compiled_power, awkward_values):
    expected = np.array([value**2 for value in awkward_values.tolist()])
    assert (awkward_values * awkward_values != expected).sum() > 100  # products would not do
    np.testing.assert_array_equal(compiled_power(awkward_values, 2), expected)


def test_compiled_float64_cubes_are_the_c_library_pow(compiled_power, awkward_values):
    values = awkward_values[np.abs(awkward_values) < 1e100]
    expected = np.array([value**3 for value in values.tolist()])
    np.testing.assert_array_equal(compiled_power(values, 3), expected)


def test_compiled_float32_squares_are_numpy_scalar_squares(compiled_power, awkward_values):
    with np.errstate(over="ignore"):
        values = awkward_values[:50_000].astype(np.float32)
    expected = np.array([value**2 for value in values], dtype=np.float32)
    np.testing.assert_array_equal(compiled_power(values, 2), expected)


def test_compiled_pendulum_rounds_float32_torques_as_numpy_scalars_do():
    from palaestra.envs.classic_control.dynamics.pendulum import (
        PendulumParams,
        pendulum_reward,
        pendulum_step,
    )
    from palaestra.envs.classic_control.vector._compiled import compile_pendulum

    params = PendulumParams()
    rng = np.random.default_rng(0)
    states = np.asfortranarray(rng.uniform(-8.0, 8.0, size=(5000, 2)))
    torques = rng.uniform(-2.0, 2.0, size=5000).astype(np.float32)
    next_states, rewards = compile_pendulum(params)(states, torques)
    singles = [(row.copy(), torque) for row, torque in zip(states, torques, strict=True)]
    expected_rewards = [pendulum_reward(row, torque, params) for row, torque in singles]
    expected_states = [pendulum_step(row, torque, params) for row, torque in singles]
    np.testing.assert_array_equal(rewards, expected_rewards)
    np.testing.assert_array_equal(next_states, expected_states)
