"""Humanoid-v4: the Humanoid with version 4's observation, reward and ``info`` (Gymnasium's).

Unlike v5: the observation includes the world body's entries, there is no contact cost,
and the survival bonus is paid on every step while ``terminate_when_unhealthy`` holds.

Example:
    >>> HumanoidEnv().observation_space.shape
    (376,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco import humanoid_v5
from palaestra.envs.mujoco._humanoid import mass_center
from palaestra.envs.mujoco._task import (
    RENDER_MODES,
    SurvivalBonusV4,
    col,
    flat_tail,
    norm,
    square_sum,
)
from palaestra.spaces import Box
from palaestra.utils.ezpickle import EzPickle

DEFAULT_CAMERA_CONFIG = humanoid_v5.DEFAULT_CAMERA_CONFIG

__all__ = ["HumanoidEnv", "mass_center"]


def observe_v4(data: Any, exclude_positions: bool) -> np.ndarray:
    """Return version 4's humanoid observation.

    Positions, velocities, and every body's (the world included) inertia, velocity,
    actuator force and contact force.

    Example:
        >>> import mujoco
        >>> from palaestra.envs.mujoco.models import build_model
        >>> model = build_model("humanoid.xml")
        >>> observe_v4(mujoco.MjData(model), True).shape
        (376,)
    """
    position = data.qpos[..., 2:] if exclude_positions else data.qpos
    return np.concatenate(
        (
            position,
            data.qvel,
            flat_tail(data.cinert),
            flat_tail(data.cvel),
            data.qfrc_actuator,
            flat_tail(data.cfrc_ext),
        ),
        axis=-1,
    )


class HumanoidEnv(SurvivalBonusV4, humanoid_v5.HumanoidEnv):
    """The Humanoid, version 4 (Gymnasium's arguments and defaults).

    Args:
        forward_reward_weight: weight of the centre of mass's forward speed.
        ctrl_cost_weight: weight of the squared controls.
        healthy_reward: reward per step (while healthy, or always with termination on).
        terminate_when_unhealthy: end the episode when unhealthy.
        healthy_z_range: torso heights counted healthy.
        reset_noise_scale: scale of the initial-state noise.
        exclude_current_positions_from_observation: leave x and y out of observations.
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = HumanoidEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": 67}

    def __init__(
        self,
        forward_reward_weight: float = 1.25,
        ctrl_cost_weight: float = 0.1,
        healthy_reward: float = 5.0,
        terminate_when_unhealthy: bool = True,
        healthy_z_range: tuple[float, float] = (1.0, 2.0),
        reset_noise_scale: float = 1e-2,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ):
        super().__init__(
            "humanoid.xml",
            5,
            humanoid_v5.DEFAULT_CAMERA_CONFIG,
            forward_reward_weight,
            ctrl_cost_weight,
            0.0,
            (-np.inf, 10.0),
            healthy_reward,
            terminate_when_unhealthy,
            healthy_z_range,
            reset_noise_scale,
            exclude_current_positions_from_observation,
            **kwargs,
        )
        EzPickle.__init__(
            self,
            forward_reward_weight,
            ctrl_cost_weight,
            healthy_reward,
            terminate_when_unhealthy,
            healthy_z_range,
            reset_noise_scale,
            exclude_current_positions_from_observation,
            **kwargs,
        )
        size = 376 if exclude_current_positions_from_observation else 378
        self.observation_space = Box(low=-np.inf, high=np.inf, shape=(size,), dtype=np.float64)
        del self.observation_structure

    # Version 4's observation and terms differ: its own hooks (numpy only).
    observe_function = None
    step_outcome = None

    def _observe(self, data: Any) -> np.ndarray:
        return observe_v4(data, self._exclude_current_positions_from_observation)

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        after = self._mass_center(data)
        xy_velocity = (after - before) / self.dt
        x_velocity, y_velocity = col(xy_velocity, 0), col(xy_velocity, 1)
        healthy = self._is_healthy(data)
        ctrl_cost = self._ctrl_cost_weight * square_sum(data.ctrl)
        forward_reward = self._forward_reward_weight * x_velocity
        healthy_reward = (healthy | self._terminate_when_unhealthy) * 1.0 * self._healthy_reward
        reward = forward_reward + healthy_reward - ctrl_cost
        info = {
            "reward_linvel": forward_reward,
            "reward_quadctrl": -ctrl_cost,
            "reward_alive": healthy_reward,
            "x_position": col(after, 0),
            "y_position": col(after, 1),
            "distance_from_origin": norm(after),
            "x_velocity": x_velocity,
            "y_velocity": y_velocity,
            "forward_reward": forward_reward,
        }
        return reward, ~healthy & self._terminate_when_unhealthy, info

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {}
