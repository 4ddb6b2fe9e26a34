"""Ant-v4: the Ant with version 4's observation, reward and ``info`` (Gymnasium's).

Unlike v5: contact forces (of every body, the world included) are observed and costed only
with ``use_contact_forces=True``; the survival bonus is paid on every step while
``terminate_when_unhealthy`` holds.

Example:
    >>> env = AntEnv()
    >>> env.observation_space.shape
    (27,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco import ant_v5
from palaestra.envs.mujoco._task import (
    RENDER_MODES,
    SurvivalBonusV4,
    col,
    flat_tail,
    norm,
)
from palaestra.spaces import Box
from palaestra.utils.ezpickle import EzPickle

__all__ = ["AntEnv"]

DEFAULT_CAMERA_CONFIG = {"distance": 4.0}


class AntEnv(SurvivalBonusV4, ant_v5.AntEnv):
    """The Ant, version 4 (Gymnasium's arguments and defaults).

    Args:
        xml_file: the model (a built-in name or a path to an MJCF file).
        ctrl_cost_weight: weight of the squared controls.
        use_contact_forces: observe and cost the contact forces.
        contact_cost_weight: weight of the squared clipped contact forces.
        healthy_reward: reward per step while healthy.
        terminate_when_unhealthy: end the episode when unhealthy.
        healthy_z_range: torso heights counted healthy.
        contact_force_range: the range contact forces are clipped to.
        reset_noise_scale: scale of the initial-state noise.
        exclude_current_positions_from_observation: leave x and y out of observations.
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = AntEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True

    Raises:
        OSError: if ``xml_file`` does not exist.
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": 20}

    def __init__(
        self,
        xml_file: str = "ant.xml",
        ctrl_cost_weight: float = 0.5,
        use_contact_forces: bool = False,
        contact_cost_weight: float = 5e-4,
        healthy_reward: float = 1.0,
        terminate_when_unhealthy: bool = True,
        healthy_z_range: tuple[float, float] = (0.2, 1.0),
        contact_force_range: tuple[float, float] = (-1.0, 1.0),
        reset_noise_scale: float = 0.1,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ):
        self._use_contact_forces = use_contact_forces
        super().__init__(
            xml_file,
            5,
            DEFAULT_CAMERA_CONFIG,
            1,
            ctrl_cost_weight,
            contact_cost_weight,
            healthy_reward,
            "torso",
            terminate_when_unhealthy,
            healthy_z_range,
            contact_force_range,
            reset_noise_scale,
            exclude_current_positions_from_observation,
            use_contact_forces,
            **kwargs,
        )
        EzPickle.__init__(
            self,
            xml_file,
            ctrl_cost_weight,
            use_contact_forces,
            contact_cost_weight,
            healthy_reward,
            terminate_when_unhealthy,
            healthy_z_range,
            contact_force_range,
            reset_noise_scale,
            exclude_current_positions_from_observation,
            **kwargs,
        )
        size = 27 + 2 * (not exclude_current_positions_from_observation) + 84 * use_contact_forces
        self.observation_space = Box(low=-np.inf, high=np.inf, shape=(size,), dtype=np.float64)
        del self.observation_structure

    # Version 4's own hooks (numpy only: its control cost's dtype depends on a setting).
    observe_function = None
    step_outcome = None

    def _observe(self, data: Any) -> np.ndarray:
        position = (
            data.qpos[..., 2:] if self._exclude_current_positions_from_observation else data.qpos
        )
        parts = [position, data.qvel]
        if self._use_contact_forces:
            parts.append(flat_tail(self._contact_forces(data)))
        return np.concatenate(parts, axis=-1)

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        after = data.xpos[..., self._main_body_id, :2]
        xy_velocity = (after - before) / self.dt
        x_velocity, y_velocity = col(xy_velocity, 0), col(xy_velocity, 1)
        healthy = self._is_healthy(data)
        forward_reward = x_velocity
        healthy_reward = (healthy | self._terminate_when_unhealthy) * 1.0 * self._healthy_reward
        rewards = forward_reward + healthy_reward
        ctrl_cost = self.control_cost(action)
        costs = ctrl_cost
        info = {
            "reward_forward": forward_reward,
            "reward_ctrl": -ctrl_cost,
            "reward_survive": healthy_reward,
            "x_position": col(after, 0),
            "y_position": col(after, 1),
            "distance_from_origin": norm(after),
            "x_velocity": x_velocity,
            "y_velocity": y_velocity,
            "forward_reward": forward_reward,
        }
        if self._use_contact_forces:
            contact_cost = self._contact_cost(data)
            costs = costs + contact_cost
            info["reward_ctrl"] = -contact_cost
        terminated = ~healthy & self._terminate_when_unhealthy
        return rewards - costs, terminated, info

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {}
