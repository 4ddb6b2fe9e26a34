"""Humanoid-v5: make a 3D humanoid walk forward (+x) as fast as possible without falling.

The reward is forward speed of the centre of mass plus a survival bonus minus control and
(clipped) contact costs; the episode ends when the torso leaves 1 to 2 m of height.

Example:
    >>> env = HumanoidEnv()
    >>> env.observation_space.shape, env.action_space.shape
    ((348,), (17,))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco._humanoid import (
    HumanoidBaseEnv,
    humanoid_observe,
    mass_center,
    mass_center_of,
)
from palaestra.envs.mujoco._task import SurvivalBonus, clip, col, norm, square_sum
from palaestra.utils.ezpickle import EzPickle

__all__ = ["HumanoidEnv", "mass_center"]

DEFAULT_CAMERA_CONFIG = {
    "trackbodyid": 1,
    "distance": 4.0,
    "lookat": np.array((0.0, 0.0, 2.0)),
    "elevation": -20.0,
}


def humanoid_contact_cost(settings: Any, data: Any) -> Any:
    """Return the weighted sum of squared contact forces, clipped to ``contact_cost_range``."""
    cost = settings.contact_cost_weight * square_sum(data.cfrc_ext, axes=2)
    low, high = settings.contact_cost_range
    return clip(cost, low, high)


def humanoid_is_healthy(settings: Any, data: Any) -> Any:
    """Whether the torso is within ``healthy_z_range``."""
    low, high = settings.healthy_z_range
    z = col(data.qpos, 2)
    return (low < z) & (z < high)


def humanoid_outcome(settings: Any, data: Any, before: Any, action: Any) -> Any:
    """Return the step's observation, reward, termination and info values."""
    xy_velocity = (mass_center_of(settings.body_mass, data.xipos) - before) / settings.dt
    x_velocity, y_velocity = col(xy_velocity, 0), col(xy_velocity, 1)
    healthy = humanoid_is_healthy(settings, data)
    forward_reward = settings.forward_reward_weight * x_velocity
    healthy_reward = healthy * settings.healthy_reward
    rewards = forward_reward + healthy_reward
    # The controls as applied (float64), not the actions.
    ctrl_cost = settings.ctrl_cost_weight * square_sum(data.ctrl)
    contact_cost = humanoid_contact_cost(settings, data)
    reward = rewards - (ctrl_cost + contact_cost)
    info = (
        col(data.qpos, 0),
        col(data.qpos, 1),
        data.ten_length.copy(),
        data.ten_velocity.copy(),
        norm(data.qpos[..., 0:2]),
        x_velocity,
        y_velocity,
        healthy_reward,
        forward_reward,
        -ctrl_cost,
        -contact_cost,
    )
    terminated = ~healthy & settings.terminate_when_unhealthy
    return humanoid_observe(settings, data), reward, terminated, info


class HumanoidEnv(SurvivalBonus, HumanoidBaseEnv):
    """The Humanoid, version 5 (Gymnasium's arguments and defaults).

    Args:
        xml_file: the model (a built-in name or a path to an MJCF file).
        frame_skip: physics steps per step (0.003 s each).
        default_camera_config: the free camera's attributes.
        forward_reward_weight: weight of the centre of mass's forward speed.
        ctrl_cost_weight: weight of the squared controls.
        contact_cost_weight: weight of the squared contact forces.
        contact_cost_range: the range the contact cost is clipped to.
        healthy_reward: reward per step while healthy.
        terminate_when_unhealthy: end the episode when unhealthy.
        healthy_z_range: torso heights counted healthy.
        reset_noise_scale: scale of the initial-state noise.
        exclude_current_positions_from_observation: leave x and y out of observations.
        include_cinert_in_observation: include the bodies' inertias.
        include_cvel_in_observation: include the bodies' velocities.
        include_qfrc_actuator_in_observation: include the actuator forces.
        include_cfrc_ext_in_observation: include the contact forces.
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = HumanoidEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True

    Raises:
        OSError: if ``xml_file`` does not exist.
    """

    step_outcome = staticmethod(humanoid_outcome)
    outcome_helpers = (humanoid_observe, humanoid_contact_cost, humanoid_is_healthy)
    info_keys = (
        "x_position",
        "y_position",
        "tendon_length",
        "tendon_velocity",
        "distance_from_origin",
        "x_velocity",
        "y_velocity",
        "reward_survive",
        "reward_forward",
        "reward_ctrl",
        "reward_contact",
    )
    settings_names = (
        *HumanoidBaseEnv.settings_names,
        "dt",
        "_body_mass",
        "_forward_reward_weight",
        "_ctrl_cost_weight",
        "_contact_cost_weight",
        "_contact_cost_range",
        "_healthy_reward",
        "_terminate_when_unhealthy",
        "_healthy_z_range",
    )
    sub_env_parameters = (
        "forward_reward_weight",
        "ctrl_cost_weight",
        "contact_cost_weight",
        "healthy_reward",
        "reset_noise_scale",
    )

    def __init__(
        self,
        xml_file: str = "humanoid.xml",
        frame_skip: int = 5,
        default_camera_config: dict[str, float | np.ndarray] = DEFAULT_CAMERA_CONFIG,
        forward_reward_weight: float = 1.25,
        ctrl_cost_weight: float = 0.1,
        contact_cost_weight: float = 5e-7,
        contact_cost_range: tuple[float, float] = (-np.inf, 10.0),
        healthy_reward: float = 5.0,
        terminate_when_unhealthy: bool = True,
        healthy_z_range: tuple[float, float] = (1.0, 2.0),
        reset_noise_scale: float = 1e-2,
        exclude_current_positions_from_observation: bool = True,
        include_cinert_in_observation: bool = True,
        include_cvel_in_observation: bool = True,
        include_qfrc_actuator_in_observation: bool = True,
        include_cfrc_ext_in_observation: bool = True,
        **kwargs: Any,
    ):
        EzPickle.__init__(
            self,
            xml_file,
            frame_skip,
            default_camera_config,
            forward_reward_weight,
            ctrl_cost_weight,
            contact_cost_weight,
            contact_cost_range,
            healthy_reward,
            terminate_when_unhealthy,
            healthy_z_range,
            reset_noise_scale,
            exclude_current_positions_from_observation,
            include_cinert_in_observation,
            include_cvel_in_observation,
            include_qfrc_actuator_in_observation,
            include_cfrc_ext_in_observation,
            **kwargs,
        )
        self._forward_reward_weight = forward_reward_weight
        self._ctrl_cost_weight = ctrl_cost_weight
        self._contact_cost_weight = contact_cost_weight
        self._contact_cost_range = contact_cost_range
        self._healthy_reward = healthy_reward
        self._terminate_when_unhealthy = terminate_when_unhealthy
        self._healthy_z_range = healthy_z_range
        self._reset_noise_scale = reset_noise_scale
        self._setup_observation(
            exclude_current_positions_from_observation,
            include_cinert_in_observation,
            include_cvel_in_observation,
            include_qfrc_actuator_in_observation,
            include_cfrc_ext_in_observation,
        )
        self._start(xml_file, frame_skip, default_camera_config, kwargs)
        self._finish_observation()

    def control_cost(self, action: Any) -> Any:
        """``ctrl_cost_weight`` times the sum of squared controls (as applied, float64)."""
        return self._ctrl_cost_weight * square_sum(self.data.ctrl)

    @property
    def contact_cost(self) -> Any:
        """The clipped, weighted sum of squared contact forces."""
        return self._contact_cost(self.data)

    @property
    def is_healthy(self) -> bool:
        """Whether the torso is within ``healthy_z_range``."""
        return bool(self._is_healthy(self.data))

    def _contact_cost(self, data: Any) -> Any:
        return humanoid_contact_cost(self.settings(), data)

    def _is_healthy(self, data: Any) -> Any:
        return humanoid_is_healthy(self.settings(), data)

    def _progress(self, data: Any) -> np.ndarray:
        return self._mass_center(data)

    def compiled_supports(self, settings: Any) -> bool:
        """Not a contact cost bound of zero: numpy's clip may order its signed-zero ties."""
        low, high = settings.contact_cost_range
        return low != 0 and high != 0

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {
            "x_position": col(data.qpos, 0),
            "y_position": col(data.qpos, 1),
            **self._tendons(data),
            "distance_from_origin": norm(data.qpos[..., 0:2]),
        }
