"""The pure dynamics functions: batches agree with row-by-row calls, and the physics rules.

A single state computes on numpy scalars, a batch on arrays. They agree exactly, except
where Gymnasium squares numpy scalars with ``** 2`` (the C library's ``pow``, which can be
one ulp off the product that arrays use): Pendulum's reward and Acrobot's derivatives, which
are compared with a relative tolerance of 1e-12.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from palaestra.envs.classic_control.dynamics import acrobot, cartpole, mountain_car, pendulum

BATCH = 64


@pytest.fixture
def rng():
    return np.random.default_rng(2024)


def rows(function, states, *per_row_args):
    """Apply ``function`` to each row (and the matching row of each argument) separately."""
    return np.array(
        [function(state, *(arg[i] for arg in per_row_args)) for i, state in enumerate(states)]
    )


def test_cartpole_batch_step_equals_row_by_row(rng):
    params = cartpole.CartPoleParams()
    states = rng.uniform(-0.3, 0.3, size=(BATCH, 4))
    actions = rng.integers(2, size=BATCH)
    batched = cartpole.cartpole_step(states, actions, params)
    expected = rows(lambda s, a: cartpole.cartpole_step(s, a, params), states, actions)
    np.testing.assert_array_equal(batched, expected)


def test_cartpole_semi_implicit_integrator_uses_the_new_velocity():
    params = cartpole.CartPoleParams(kinematics_integrator="semi-implicit euler")
    state = cartpole.cartpole_step(np.zeros(4), 1, params)
    assert state[0] == pytest.approx(params.tau * state[1])


def test_cartpole_rejects_unknown_integrator():
    with pytest.raises(ValueError, match="'rk4'"):
        cartpole.CartPoleParams(kinematics_integrator="rk4")


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ([2.4, 0, 0, 0], False),
        ([2.41, 0, 0, 0], True),
        ([-2.41, 0, 0, 0], True),
        ([0, 0, 0.2094, 0], False),
        ([0, 0, -0.2095, 0], True),
    ],
)
def test_cartpole_terminates_outside_the_thresholds(state, expected):
    terminated = cartpole.cartpole_terminated(
        np.array(state, dtype=float), cartpole.CartPoleParams()
    )
    assert bool(terminated) is expected


def test_cartpole_rewards():
    flags = np.array([False, True])
    assert cartpole.cartpole_reward(flags).tolist() == [1.0, 1.0]
    assert cartpole.cartpole_reward(flags, sutton_barto_reward=True).tolist() == [0.0, -1.0]


def test_batch_initial_states_equal_sequential_draws():
    batch = cartpole.cartpole_initial_state(np.random.default_rng(3), -0.05, 0.05, batch_size=5)
    sequential_rng = np.random.default_rng(3)
    sequential = [cartpole.cartpole_initial_state(sequential_rng, -0.05, 0.05) for _ in range(5)]
    np.testing.assert_array_equal(batch, sequential)


def test_mountain_car_batch_step_equals_row_by_row(rng):
    params = mountain_car.MountainCarParams()
    states = np.stack([rng.uniform(-1.25, 0.6, BATCH), rng.uniform(-0.07, 0.07, BATCH)], axis=1)
    actions = rng.integers(3, size=BATCH)
    batched = mountain_car.mountain_car_step(states, actions, params)
    expected = rows(lambda s, a: mountain_car.mountain_car_step(s, a, params), states, actions)
    np.testing.assert_array_equal(batched, expected)


def test_mountain_car_stops_dead_at_the_left_wall():
    params = mountain_car.MountainCarParams()
    state = mountain_car.mountain_car_step(np.array([-1.19, -0.05]), 0, params)
    assert state.tolist() == [params.min_position, 0.0]


def test_mountain_car_velocity_is_clipped_to_max_speed():
    params = mountain_car.MountainCarParams()
    state = mountain_car.mountain_car_step(np.array([-0.5, 0.07]), 2, params)
    assert state[1] == params.max_speed


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_continuous_mountain_car_batch_step_equals_row_by_row(rng, dtype):
    params = mountain_car.ContinuousMountainCarParams()
    states = np.stack([rng.uniform(-1.25, 0.6, BATCH), rng.uniform(-0.07, 0.07, BATCH)], axis=1)
    states = states.astype(dtype)
    actions = rng.uniform(-1.5, 1.5, size=(BATCH, 1)).astype(np.float32)
    step = mountain_car.continuous_mountain_car_step
    batched = step(states, actions, params)
    expected = rows(lambda s, a: step(s, a, params), states, actions)
    np.testing.assert_array_equal(batched, expected)
    assert batched.dtype == np.float32


def test_continuous_mountain_car_reward_charges_the_unclipped_throttle():
    params = mountain_car.ContinuousMountainCarParams()
    rewards = mountain_car.continuous_mountain_car_reward(
        np.array([False, True]), np.array([[2.0], [0.5]], dtype=np.float32), params
    )
    np.testing.assert_allclose(rewards, [-0.4, 99.975])


def test_mountain_car_terminates_at_the_goal_with_enough_velocity():
    params = mountain_car.MountainCarParams(goal_velocity=0.01)
    states = np.array([[0.5, 0.01], [0.5, 0.005], [0.49, 0.05]])
    assert mountain_car.mountain_car_terminated(states, params).tolist() == [True, False, False]


def test_pendulum_batch_step_equals_row_by_row(rng):
    params = pendulum.PendulumParams()
    states = rng.uniform(-8, 8, size=(BATCH, 2))
    torques = pendulum.pendulum_torque(rng.uniform(-3, 3, (BATCH, 1)).astype(np.float32), params)
    batched = pendulum.pendulum_step(states, torques, params)
    expected = rows(lambda s, u: pendulum.pendulum_step(s, u, params), states, torques)
    np.testing.assert_array_equal(batched, expected)


def test_pendulum_batch_reward_agrees_with_row_by_row(rng):
    params = pendulum.PendulumParams()
    states = rng.uniform(-8, 8, size=(BATCH, 2))
    torques = pendulum.pendulum_torque(rng.uniform(-3, 3, (BATCH, 1)).astype(np.float32), params)
    batched = pendulum.pendulum_reward(states, torques, params)
    expected = rows(lambda s, u: pendulum.pendulum_reward(s, u, params), states, torques)
    np.testing.assert_allclose(batched, expected, rtol=1e-12)


def test_pendulum_torque_is_clipped_and_keeps_the_action_dtype():
    torque = pendulum.pendulum_torque(
        np.array([[5.0], [-0.5]], dtype=np.float32), pendulum.PendulumParams()
    )
    assert torque.tolist() == [2.0, -0.5]
    assert torque.dtype == np.float32


@pytest.mark.parametrize("angle", [0.0, 1.0, math.pi, -math.pi, 3 * math.pi, -7.5])
def test_angle_normalize_wraps_into_minus_pi_to_pi(angle):
    wrapped = pendulum.angle_normalize(angle)
    assert -math.pi <= wrapped < math.pi
    assert math.isclose(math.cos(wrapped), math.cos(angle), abs_tol=1e-12)


def test_pendulum_observation_is_float32_cos_sin_velocity():
    observation = pendulum.pendulum_observation(np.array([[math.pi / 2, 3.0]]))
    np.testing.assert_allclose(observation, [[0.0, 1.0, 3.0]], atol=1e-7)
    assert observation.dtype == np.float32


@pytest.mark.parametrize("book_or_nips", ["book", "nips"])
def test_acrobot_batch_step_agrees_with_row_by_row(rng, book_or_nips):
    params = acrobot.AcrobotParams(book_or_nips=book_or_nips)
    states = rng.uniform(-3, 3, size=(BATCH, 4))
    torques = acrobot.acrobot_torque(rng.integers(3, size=BATCH), params)
    batched = acrobot.acrobot_step(states, torques, params)
    expected = rows(lambda s, u: acrobot.acrobot_step(s, u, params), states, torques)
    np.testing.assert_allclose(batched, expected, rtol=1e-12, atol=1e-12)


def test_acrobot_wraps_angles_and_clips_velocities():
    params = acrobot.AcrobotParams()
    state = acrobot.acrobot_step(np.array([3.1, -3.1, 20.0, -40.0]), 0.0, params)
    assert -math.pi <= state[0] <= math.pi and -math.pi <= state[1] <= math.pi
    assert abs(state[2]) <= params.max_vel_1 and abs(state[3]) <= params.max_vel_2


def test_wrap_angle_shifts_by_whole_turns():
    wrapped = acrobot.wrap_angle(np.array([4.0, -4.0, 1.0, 13.0]))
    np.testing.assert_allclose(
        wrapped, [4.0 - 2 * math.pi, 2 * math.pi - 4.0, 1.0, 13.0 - 4 * math.pi]
    )


def test_acrobot_torque_noise_draws_from_the_generator():
    params = acrobot.AcrobotParams(torque_noise_max=0.5)
    torques = acrobot.acrobot_torque(np.array([1, 1, 1]), params, np.random.default_rng(0))
    expected = np.random.default_rng(0).uniform(-0.5, 0.5, size=3)
    np.testing.assert_array_equal(torques, expected)


def test_acrobot_rejects_unknown_dynamics():
    with pytest.raises(ValueError, match="'paper'"):
        acrobot.AcrobotParams(book_or_nips="paper")


def test_acrobot_terminates_when_the_tip_is_above_the_bar():
    states = np.array([[math.pi, 0.0, 0, 0], [0.0, 0.0, 0, 0], [math.pi / 2, 0.0, 0, 0]])
    assert acrobot.acrobot_terminated(states, acrobot.AcrobotParams()).tolist() == [
        True,
        False,
        False,
    ]


def test_acrobot_rewards():
    assert acrobot.acrobot_reward(np.array([False, True])).tolist() == [-1.0, 0.0]


def test_acrobot_initial_states_are_float32_in_bounds():
    states = acrobot.acrobot_initial_state(np.random.default_rng(1), -0.1, 0.1, batch_size=10)
    assert states.shape == (10, 4) and states.dtype == np.float32
    assert np.all(np.abs(states) <= 0.1)


finite = st.floats(-3.0, 3.0, allow_subnormal=False)


@settings(max_examples=30, deadline=None)
@given(states=arrays(np.float64, st.tuples(st.integers(1, 8), st.just(4)), elements=finite))
def test_property_cartpole_batches_equal_rows_for_any_state(states):
    params = cartpole.CartPoleParams()
    actions = np.arange(len(states)) % 2
    batched = cartpole.cartpole_step(states, actions, params)
    expected = rows(lambda s, a: cartpole.cartpole_step(s, a, params), states, actions)
    np.testing.assert_array_equal(batched, expected)
    flags = cartpole.cartpole_terminated(states, params)
    assert flags.tolist() == [bool(cartpole.cartpole_terminated(s, params)) for s in states]


@settings(max_examples=30, deadline=None)
@given(
    states=arrays(
        np.float32,
        st.tuples(st.integers(1, 8), st.just(2)),
        elements=st.floats(-1.25, 0.75, width=32, allow_subnormal=False),
    ),
    throttle=st.floats(-2.0, 2.0, width=32, allow_subnormal=False),
)
def test_property_continuous_mountain_car_batches_equal_rows(states, throttle):
    params = mountain_car.ContinuousMountainCarParams()
    actions = np.full((len(states), 1), throttle, dtype=np.float32)
    step = mountain_car.continuous_mountain_car_step
    batched = step(states, actions, params)
    np.testing.assert_array_equal(batched, rows(lambda s, a: step(s, a, params), states, actions))
    assert np.all(
        (batched[:, 0] >= params.min_position) & (np.abs(batched[:, 1]) <= params.max_speed)
    )
