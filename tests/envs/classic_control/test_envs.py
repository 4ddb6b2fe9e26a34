"""The environment classes: API surface, kwargs, reset options, warnings and errors."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import palaestra
from palaestra.envs.classic_control import (
    AcrobotEnv,
    CartPoleEnv,
    Continuous_MountainCarEnv,
    MountainCarEnv,
    PendulumEnv,
)
from palaestra.utils.env_checker import check_env
from tests.envs.classic_control.conftest import ENV_IDS, RENDERED_IDS

SPEC_LIMITS = {
    "CartPole-v0": (200, 195.0),
    "CartPole-v1": (500, 475.0),
    "MountainCar-v0": (200, -110.0),
    "MountainCarContinuous-v0": (999, 90.0),
    "Pendulum-v1": (200, None),
    "Acrobot-v1": (500, -100.0),
}


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_time_limit_and_reward_threshold(env_id):
    spec = palaestra.spec(env_id)
    assert (spec.max_episode_steps, spec.reward_threshold) == SPEC_LIMITS[env_id]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_spaces_and_metadata_equal_gymnasium(gymnasium, env_id):
    ours, theirs = palaestra.make(env_id).unwrapped, gymnasium.make(env_id).unwrapped
    for name in ("observation_space", "action_space"):
        mine, reference = getattr(ours, name), getattr(theirs, name)
        assert repr(mine) == repr(reference)
        if hasattr(reference, "low"):
            np.testing.assert_array_equal(mine.low, reference.low)
            np.testing.assert_array_equal(mine.high, reference.high)
    assert ours.metadata == theirs.metadata


@pytest.mark.filterwarnings("ignore:.*(infinity|symmetric and normalized)")
@pytest.mark.parametrize("env_id", RENDERED_IDS)
def test_check_env_passes(env_id):
    env = palaestra.make(env_id, render_mode="rgb_array").unwrapped
    check_env(env)
    env.close()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_episode_is_truncated_at_the_time_limit(env_id):
    env = palaestra.make(env_id)
    env.reset(seed=0)
    if env_id.startswith("CartPole"):
        env.unwrapped.x_threshold = env.unwrapped.theta_threshold_radians = np.inf
    # The mountain cars cannot reach the goal by coasting, nor the acrobot without torque.
    idle = {"MountainCar-v0": 1, "Acrobot-v1": 1}.get(env_id)
    limit = env.spec.max_episode_steps
    for step in range(1, limit + 1):
        action = idle if idle is not None else env.action_space.sample() * 0
        _, _, terminated, truncated, _ = env.step(action)
        assert not terminated
        assert truncated is (step == limit)


def test_cartpole_warns_once_when_stepped_after_termination():
    env = CartPoleEnv()
    env.reset(seed=0, options={"low": 0.25, "high": 0.3})
    _, reward, terminated, _, _ = env.step(1)
    assert terminated and reward == 1.0
    with pytest.warns(UserWarning, match="already returned terminated = True"):
        _, reward, terminated, _, _ = env.step(1)
    assert terminated and reward == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.step(1)


def test_cartpole_sutton_barto_reward_after_termination():
    env = CartPoleEnv(sutton_barto_reward=True)
    env.reset(seed=0)
    assert env.step(1)[1] == 0.0
    env.reset(seed=0, options={"low": 0.25, "high": 0.3})
    assert env.step(1)[1] == -1.0
    with pytest.warns(UserWarning):
        assert env.step(1)[1] == -1.0


def test_cartpole_kinematics_integrator_is_chosen_by_attribute():
    env = CartPoleEnv()
    assert env.kinematics_integrator == "euler"
    env.kinematics_integrator = "semi-implicit euler"
    assert env.params.kinematics_integrator == "semi-implicit euler"
    with pytest.raises(ValueError, match="kinematics_integrator"):
        env.kinematics_integrator = "verlet"


def test_cartpole_physical_attributes_follow_gymnasium_names():
    env = CartPoleEnv()
    assert (env.gravity, env.masscart, env.masspole, env.length, env.force_mag, env.tau) == (
        9.8,
        1.0,
        0.1,
        0.5,
        10.0,
        0.02,
    )
    env.masspole = 0.2
    assert env.total_mass == pytest.approx(1.2)
    assert env.polemass_length == pytest.approx(0.1)


@pytest.mark.parametrize(
    ("env_id", "kwargs", "attribute", "value"),
    [
        ("CartPole-v1", {"sutton_barto_reward": True}, "_sutton_barto_reward", True),
        ("MountainCar-v0", {"goal_velocity": 0.1}, "goal_velocity", 0.1),
        ("MountainCarContinuous-v0", {"goal_velocity": 0.1}, "goal_velocity", 0.1),
        ("Pendulum-v1", {"g": 9.81}, "g", 9.81),
        ("Acrobot-v1", {"book_or_nips": "nips"}, "book_or_nips", "nips"),
        ("Acrobot-v1", {"torque_noise_max": 0.1}, "torque_noise_max", 0.1),
    ],
)
def test_make_passes_constructor_kwargs(env_id, kwargs, attribute, value):
    env = palaestra.make(env_id, **kwargs)
    assert getattr(env.unwrapped, attribute) == value
    assert env.spec.kwargs == kwargs


def test_acrobot_class_constants_are_readable_on_the_class():
    assert AcrobotEnv.dt == 0.2
    assert pytest.approx(4 * np.pi) == AcrobotEnv.MAX_VEL_1
    assert AcrobotEnv.AVAIL_TORQUE == (-1.0, 0.0, 1)
    assert AcrobotEnv.book_or_nips == "book"


@pytest.mark.parametrize("env_class", [CartPoleEnv, MountainCarEnv, AcrobotEnv])
def test_invalid_discrete_action_is_rejected(env_class):
    env = env_class()
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="invalid"):
        env.step(5)


@pytest.mark.parametrize(
    ("env_class", "action"),
    [
        (CartPoleEnv, 0),
        (MountainCarEnv, 0),
        (Continuous_MountainCarEnv, np.zeros(1, np.float32)),
        (PendulumEnv, np.zeros(1, np.float32)),
        (AcrobotEnv, 0),
    ],
)
def test_step_before_reset_is_an_error(env_class, action):
    with pytest.raises(AssertionError, match="reset"):
        env_class().step(action)


@pytest.mark.parametrize("env_class", [CartPoleEnv, MountainCarEnv, AcrobotEnv])
def test_reset_bounds_options_set_the_initial_range(env_class):
    env = env_class()
    for seed in range(20):
        env.reset(seed=seed, options={"low": 0.2, "high": 0.25})
        assert np.all((env.state >= 0.2) & (env.state <= 0.25) | (env.state == 0))


@pytest.mark.parametrize(
    ("options", "message"),
    [({"low": 0.3, "high": 0.1}, "Lower bound"), ({"low": "left"}, "could not be converted")],
)
def test_bad_reset_bounds_are_rejected(options, message):
    with pytest.raises(ValueError, match=message):
        CartPoleEnv().reset(seed=0, options=options)


def test_pendulum_reset_options_bound_angle_and_velocity():
    env = PendulumEnv()
    for seed in range(20):
        env.reset(seed=seed, options={"x_init": 0.1, "y_init": 0.2})
        assert abs(env.state[0]) <= 0.1 and abs(env.state[1]) <= 0.2
    with pytest.raises(ValueError, match="could not be converted"):
        env.reset(options={"x_init": "up"})


def test_pendulum_reward_is_a_numpy_float_and_never_terminates():
    env = PendulumEnv()
    env.reset(seed=0)
    _, reward, terminated, truncated, _ = env.step(np.array([0.5], np.float32))
    assert type(reward) is np.float64
    assert not terminated and not truncated


@pytest.mark.parametrize("env_class", [CartPoleEnv, MountainCarEnv, AcrobotEnv])
def test_rewards_are_python_floats(env_class):
    env = env_class()
    env.reset(seed=0)
    assert type(env.step(1)[1]) is float


def test_continuous_mountain_car_rewards_reaching_the_goal():
    env = Continuous_MountainCarEnv()
    env.reset(seed=0)
    env.state = np.array([0.449, 0.06], dtype=np.float32)
    _, reward, terminated, _, _ = env.step(np.array([1.0], np.float32))
    assert terminated
    assert reward == pytest.approx(99.9)


def test_mountain_car_keyboard_controls():
    assert MountainCarEnv().get_keys_to_action() == {(): 1, (276,): 0, (275,): 2, (275, 276): 1}


def test_making_and_stepping_does_not_import_pygame():
    code = (
        "import sys, palaestra\n"
        "for env_id in ['CartPole-v1', 'MountainCar-v0', 'MountainCarContinuous-v0',"
        " 'Pendulum-v1', 'Acrobot-v1']:\n"
        "    env = palaestra.make(env_id)\n"
        "    env.reset(seed=0)\n"
        "    env.step(env.action_space.sample())\n"
        "assert 'pygame' not in sys.modules, 'pygame was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=palaestra.__path__[0] + "/..")
