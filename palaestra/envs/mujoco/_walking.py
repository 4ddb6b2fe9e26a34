"""What Hopper and Walker2d share: a planar body rewarded for forward speed while upright.

Example:
    >>> from palaestra.envs.mujoco.hopper_v5 import HopperEnv
    >>> issubclass(HopperEnv, PlanarWalkerEnv)
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco._task import MujocoTaskEnv, SquaredControlCost, SurvivalBonus, col

__all__ = ["PlanarWalkerEnv"]


class PlanarWalkerEnv(SurvivalBonus, SquaredControlCost, MujocoTaskEnv):
    """A walker on x/z slides and a y hinge: forward speed + survival - control cost.

    Subclasses set the healthy ranges and call :meth:`_setup` from their constructor.
    """

    read_fields = ("qpos", "qvel")
    # Whether healthiness also asks all of qpos[2:] and qvel within healthy_state_range.
    _checks_state_range = False

    def _setup(
        self,
        xml_file: str,
        frame_skip: int,
        default_camera_config: Any,
        forward_reward_weight: float,
        ctrl_cost_weight: float,
        healthy_reward: float,
        terminate_when_unhealthy: bool,
        healthy_z_range: tuple[float, float],
        healthy_angle_range: tuple[float, float],
        reset_noise_scale: float,
        exclude_current_positions_from_observation: bool,
        kwargs: dict[str, Any],
    ) -> None:
        self._forward_reward_weight = forward_reward_weight
        self._ctrl_cost_weight = ctrl_cost_weight
        self._healthy_reward = healthy_reward
        self._terminate_when_unhealthy = terminate_when_unhealthy
        self._healthy_z_range = healthy_z_range
        self._healthy_angle_range = healthy_angle_range
        self._reset_noise_scale = reset_noise_scale
        self._exclude_current_positions_from_observation = (
            exclude_current_positions_from_observation
        )
        self._start(xml_file, frame_skip, default_camera_config, kwargs)
        self._set_state_observation(1 * exclude_current_positions_from_observation)

    @property
    def is_healthy(self) -> bool:
        """Whether height, angle (and, for the Hopper, the state) are in their ranges."""
        return bool(self._is_healthy(self.data))

    def _is_healthy(self, data: Any) -> Any:
        z, angle = col(data.qpos, 1), col(data.qpos, 2)
        min_z, max_z = self._healthy_z_range
        min_angle, max_angle = self._healthy_angle_range
        healthy = (min_z < z) & (z < max_z) & (min_angle < angle) & (angle < max_angle)
        if self._checks_state_range:
            low, high = self._healthy_state_range
            for part in (data.qpos[..., 2:], data.qvel):
                healthy = healthy & np.all((low < part) & (part < high), axis=-1)
        return healthy

    def _progress(self, data: Any) -> Any:
        return col(data.qpos, 0).copy()

    def _observe(self, data: Any) -> np.ndarray:
        position = (
            data.qpos[..., 1:] if self._exclude_current_positions_from_observation else data.qpos
        )
        return np.concatenate((position, np.clip(data.qvel, -10, 10)), axis=-1)

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        x_position = col(data.qpos, 0)
        x_velocity = (x_position - before) / self.dt
        healthy = self._is_healthy(data)
        forward_reward = self._forward_reward_weight * x_velocity
        healthy_reward = healthy * self._healthy_reward
        ctrl_cost = self.control_cost(action)
        reward = forward_reward + healthy_reward - ctrl_cost
        info = {
            **self._reset_info(data),
            "x_velocity": x_velocity,
            "reward_forward": forward_reward,
            "reward_ctrl": -ctrl_cost,
            "reward_survive": healthy_reward,
        }
        return reward, ~healthy & self._terminate_when_unhealthy, info

    def _reset_state(self, np_random: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return self._noisy_state(np_random)

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {
            "x_position": col(data.qpos, 0),
            "z_distance_from_origin": col(data.qpos, 1) - self.init_qpos[1],
        }
