"""HumanoidStandup-v5: make a humanoid lying on its back stand up.

The reward is the torso's height over the physics step size minus control and (clipped)
impact costs, plus one; the episode never terminates.

Example:
    >>> env = HumanoidStandupEnv()
    >>> env.observation_space.shape, env.action_space.shape
    ((348,), (17,))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco._humanoid import HumanoidBaseEnv
from palaestra.envs.mujoco._task import clip, col, square_sum
from palaestra.utils.ezpickle import EzPickle

__all__ = ["HumanoidStandupEnv"]

DEFAULT_CAMERA_CONFIG = {
    "trackbodyid": 1,
    "distance": 4.0,
    "lookat": np.array((0.0, 0.0, 0.8925)),
    "elevation": -20.0,
}


class HumanoidStandupEnv(HumanoidBaseEnv):
    """The HumanoidStandup, version 5 (Gymnasium's arguments and defaults).

    Args:
        xml_file: the model (a built-in name or a path to an MJCF file).
        frame_skip: physics steps per step (0.003 s each).
        default_camera_config: the free camera's attributes.
        uph_cost_weight: weight of the torso height term.
        ctrl_cost_weight: weight of the squared controls.
        impact_cost_weight: weight of the squared contact forces.
        impact_cost_range: the range the impact cost is clipped to.
        reset_noise_scale: scale of the initial-state noise.
        exclude_current_positions_from_observation: leave x and y out of observations.
        include_cinert_in_observation: include the bodies' inertias.
        include_cvel_in_observation: include the bodies' velocities.
        include_qfrc_actuator_in_observation: include the actuator forces.
        include_cfrc_ext_in_observation: include the contact forces.
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = HumanoidStandupEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True

    Raises:
        OSError: if ``xml_file`` does not exist.
    """

    sub_env_parameters = (
        "uph_cost_weight",
        "ctrl_cost_weight",
        "impact_cost_weight",
        "reset_noise_scale",
    )

    def __init__(
        self,
        xml_file: str = "humanoidstandup.xml",
        frame_skip: int = 5,
        default_camera_config: dict[str, float | np.ndarray] = DEFAULT_CAMERA_CONFIG,
        uph_cost_weight: float = 1,
        ctrl_cost_weight: float = 0.1,
        impact_cost_weight: float = 0.5e-6,
        impact_cost_range: tuple[float, float] = (-np.inf, 10.0),
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
            uph_cost_weight,
            ctrl_cost_weight,
            impact_cost_weight,
            impact_cost_range,
            reset_noise_scale,
            exclude_current_positions_from_observation,
            include_cinert_in_observation,
            include_cvel_in_observation,
            include_qfrc_actuator_in_observation,
            include_cfrc_ext_in_observation,
            **kwargs,
        )
        self._uph_cost_weight = uph_cost_weight
        self._ctrl_cost_weight = ctrl_cost_weight
        self._impact_cost_weight = impact_cost_weight
        self._impact_cost_range = impact_cost_range
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

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        uph_cost = (col(data.qpos, 2) - 0) / self.model.opt.timestep
        quad_ctrl_cost = self._ctrl_cost_weight * square_sum(data.ctrl)
        quad_impact_cost = self._impact_cost_weight * square_sum(data.cfrc_ext, axes=2)
        quad_impact_cost = self._clip_impact_cost(quad_impact_cost)
        reward = uph_cost - quad_ctrl_cost - quad_impact_cost + 1
        info = {
            **self._reset_info(data),
            "reward_linup": uph_cost,
            "reward_quadctrl": -quad_ctrl_cost,
            "reward_impact": -quad_impact_cost,
        }
        return reward, False, info

    def _clip_impact_cost(self, cost: Any) -> Any:
        low, high = self._impact_cost_range
        return clip(cost, low, high)

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {
            "x_position": col(data.qpos, 0),
            "y_position": col(data.qpos, 1),
            "z_distance_from_origin": col(data.qpos, 2) - self.init_qpos[2],
            **self._tendons(data),
        }
