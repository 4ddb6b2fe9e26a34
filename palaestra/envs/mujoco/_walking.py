"""What Hopper and Walker2d share: a planar body rewarded for forward speed while upright.

Example:
    >>> from palaestra.envs.mujoco.hopper_v5 import HopperEnv
    >>> issubclass(HopperEnv, PlanarWalkerEnv)
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco._task import (
    MujocoTaskEnv,
    SquaredControlCost,
    SurvivalBonus,
    all_along_last,
    clip,
    col,
    control_cost,
)

__all__ = ["PlanarWalkerEnv", "walker_is_healthy", "walker_observe", "walker_outcome"]


def walker_is_healthy(settings: Any, data: Any) -> Any:
    """Whether height, angle (and, where checked, the state) are in their ranges."""
    z, angle = col(data.qpos, 1), col(data.qpos, 2)
    min_z, max_z = settings.healthy_z_range
    min_angle, max_angle = settings.healthy_angle_range
    healthy = (min_z < z) & (z < max_z) & (min_angle < angle) & (angle < max_angle)
    if settings.checks_state_range:
        low, high = settings.healthy_state_range
        positions, velocities = data.qpos[..., 2:], data.qvel
        healthy = healthy & all_along_last((low < positions) & (positions < high))
        healthy = healthy & all_along_last((low < velocities) & (velocities < high))
    return healthy


def walker_observe(settings: Any, data: Any) -> np.ndarray:
    """Return the positions (less x by default) and the velocities clipped to +-10."""
    skipped = 1 if settings.exclude_current_positions_from_observation else 0
    return np.concatenate((data.qpos[..., skipped:], clip(data.qvel, -10, 10)), axis=-1)


def walker_outcome(settings: Any, data: Any, before: Any, action: Any) -> Any:
    """Return the step's observation, reward, termination and info values (version 5)."""
    x_position = col(data.qpos, 0)
    x_velocity = (x_position - before) / settings.dt
    healthy = walker_is_healthy(settings, data)
    forward_reward = settings.forward_reward_weight * x_velocity
    healthy_reward = healthy * settings.healthy_reward
    ctrl_cost = control_cost(settings.ctrl_cost_weight, action)
    reward = forward_reward + healthy_reward - ctrl_cost
    z_distance = col(data.qpos, 1) - settings.init_qpos[1]
    info = (x_position, z_distance, x_velocity, forward_reward, -ctrl_cost, healthy_reward)
    terminated = ~healthy & settings.terminate_when_unhealthy
    return walker_observe(settings, data), reward, terminated, info


class PlanarWalkerEnv(SurvivalBonus, SquaredControlCost, MujocoTaskEnv):
    """A walker on x/z slides and a y hinge: forward speed + survival - control cost.

    Subclasses set the healthy ranges and call :meth:`_setup` from their constructor.
    """

    read_fields = ("qpos", "qvel")
    # Whether healthiness also asks all of qpos[2:] and qvel within healthy_state_range.
    _checks_state_range = False
    _healthy_state_range = (-np.inf, np.inf)
    observe_function = staticmethod(walker_observe)
    step_outcome = staticmethod(walker_outcome)
    outcome_helpers = (walker_is_healthy, walker_observe)
    info_keys = (
        "x_position",
        "z_distance_from_origin",
        "x_velocity",
        "reward_forward",
        "reward_ctrl",
        "reward_survive",
    )
    settings_names = (
        "dt",
        "init_qpos",
        "_forward_reward_weight",
        "_ctrl_cost_weight",
        "_healthy_reward",
        "_terminate_when_unhealthy",
        "_healthy_z_range",
        "_healthy_angle_range",
        "_checks_state_range",
        "_healthy_state_range",
        "_exclude_current_positions_from_observation",
    )
    sub_env_parameters = (
        "forward_reward_weight",
        "ctrl_cost_weight",
        "healthy_reward",
        "reset_noise_scale",
    )

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
        return walker_is_healthy(self.settings(), data)

    def _progress(self, data: Any) -> Any:
        return col(data.qpos, 0).copy()

    def _reset_state(self, np_random: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return self._noisy_state(np_random)

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {
            "x_position": col(data.qpos, 0),
            "z_distance_from_origin": col(data.qpos, 1) - self.init_qpos[1],
        }
