"""The single MuJoCo environments: checker, errors, pickling, the base class for users."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import palaestra
from palaestra import spaces
from palaestra.envs.mujoco.mujoco_env import MujocoEnv
from palaestra.utils.env_checker import check_env
from tests.envs.mujoco.conftest import IDS


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_passes(env_id):
    check_env(palaestra.make(env_id).unwrapped, skip_render_check=True)


def test_missing_model_file_raises_oserror_naming_it():
    with pytest.raises(OSError, match=r"File \./no/such/ant\.xml does not exist"):
        palaestra.make("Ant-v5", xml_file="./no/such/ant.xml")


def test_unknown_model_name_raises_oserror_as_a_missing_asset():
    with pytest.raises(OSError, match=r"assets/point\.xml does not exist"):
        palaestra.make("Ant-v5", xml_file="point.xml")


def test_action_of_the_wrong_shape_names_both_shapes():
    env = palaestra.make("Hopper-v5")
    env.reset(seed=0)
    with pytest.raises(
        ValueError, match=r"Action dimension mismatch. Expected \(3,\), found \(2,\)"
    ):
        env.step(np.zeros(2, dtype=np.float32))


def test_pickled_env_is_rebuilt_with_its_arguments():
    env = palaestra.make("Ant-v5", ctrl_cost_weight=0.25).unwrapped
    copy = pickle.loads(pickle.dumps(env))
    assert copy._ctrl_cost_weight == 0.25
    assert copy.observation_space.shape == env.observation_space.shape


def test_reset_info_and_step_info_keys_of_ant():
    env = palaestra.make("Ant-v5")
    _, info = env.reset(seed=0)
    assert list(info) == ["x_position", "y_position", "distance_from_origin"]
    _, _, _, _, info = env.step(env.action_space.sample())
    assert list(info) == [
        "x_position",
        "y_position",
        "distance_from_origin",
        "x_velocity",
        "y_velocity",
        "reward_forward",
        "reward_ctrl",
        "reward_contact",
        "reward_survive",
    ]


def test_fixed_frame_rate_of_v4_and_derived_frame_rate_of_v5():
    assert palaestra.make("Hopper-v4").metadata["render_fps"] == 125
    assert palaestra.make("Hopper-v5", frame_skip=5).metadata["render_fps"] == 100


class _UserSlider(MujocoEnv):
    """A user's env written against Gymnasium's MujocoEnv, on a built-in model."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 25}

    def __init__(self, **kwargs):
        space = spaces.Box(-np.inf, np.inf, (4,), np.float64)
        MujocoEnv.__init__(self, "inverted_pendulum.xml", 2, space, **kwargs)

    def reset_model(self):
        noise = self.np_random.uniform(-0.01, 0.01, self.model.nq)
        self.set_state(self.init_qpos + noise, self.init_qvel)
        return self.state_vector()

    def step(self, action):
        self.do_simulation(action, self.frame_skip)
        return self.state_vector(), 1.0, False, False, {}


def test_users_env_on_the_base_class_runs_as_on_gymnasiums(gymnasium):
    from gymnasium.envs.mujoco.mujoco_env import MujocoEnv as GymnasiumMujocoEnv

    class Theirs(GymnasiumMujocoEnv):
        metadata = _UserSlider.metadata
        __init__ = _UserSlider.__init__
        reset_model = _UserSlider.reset_model
        step = _UserSlider.step

    ours = _UserSlider()
    theirs = Theirs.__new__(Theirs)
    space = gymnasium.spaces.Box(-np.inf, np.inf, (4,), np.float64)
    GymnasiumMujocoEnv.__init__(theirs, "inverted_pendulum.xml", 2, space)
    np.testing.assert_array_equal(ours.reset(seed=4)[0], theirs.reset(seed=4)[0])
    action = np.array([0.5], dtype=np.float32)
    for _ in range(20):
        np.testing.assert_array_equal(ours.step(action)[0], theirs.step(action)[0])
    assert ours.dt == theirs.dt == 0.04


def test_render_fps_that_disagrees_with_dt_is_refused():
    class Wrong(_UserSlider):
        metadata = {"render_modes": [], "render_fps": 10}

    with pytest.raises(AssertionError, match="Expected value: 25, Actual value: 10"):
        Wrong()


def test_set_state_of_the_wrong_shape_is_refused():
    env = _UserSlider()
    with pytest.raises(AssertionError, match=r"qpos of shape \(2,\)"):
        env.set_state(np.zeros(3), np.zeros(2))
