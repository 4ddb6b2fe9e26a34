"""Hopper-v5: make a one-legged hopper hop forward (+x) without falling.

The episode ends when the torso drops below 0.7 m, tilts beyond ±0.2 rad, or any of the
other joint positions and velocities leaves ±100.

Example:
    >>> env = HopperEnv()
    >>> env.observation_space.shape, env.action_space.shape
    ((11,), (3,))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco._walking import PlanarWalkerEnv
from palaestra.utils.ezpickle import EzPickle

__all__ = ["HopperEnv"]

DEFAULT_CAMERA_CONFIG = {
    "trackbodyid": 2,
    "distance": 3.0,
    "lookat": np.array((0.0, 0.0, 1.15)),
    "elevation": -20.0,
}


class HopperEnv(PlanarWalkerEnv):
    """The Hopper, version 5 (Gymnasium's arguments and defaults).

    Args:
        xml_file: the model (a built-in name or a path to an MJCF file).
        frame_skip: physics steps per step (0.002 s each).
        default_camera_config: the free camera's attributes.
        forward_reward_weight: weight of the forward speed.
        ctrl_cost_weight: weight of the squared controls.
        healthy_reward: reward per step while healthy.
        terminate_when_unhealthy: end the episode when unhealthy.
        healthy_state_range: the range of ``qpos[2:]`` and ``qvel`` counted healthy.
        healthy_z_range: torso heights counted healthy.
        healthy_angle_range: torso angles counted healthy.
        reset_noise_scale: scale of the initial-state noise.
        exclude_current_positions_from_observation: leave x out of observations.
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = HopperEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True

    Raises:
        OSError: if ``xml_file`` does not exist.
    """

    _checks_state_range = True

    def __init__(
        self,
        xml_file: str = "hopper.xml",
        frame_skip: int = 4,
        default_camera_config: dict[str, float | np.ndarray] = DEFAULT_CAMERA_CONFIG,
        forward_reward_weight: float = 1.0,
        ctrl_cost_weight: float = 1e-3,
        healthy_reward: float = 1.0,
        terminate_when_unhealthy: bool = True,
        healthy_state_range: tuple[float, float] = (-100.0, 100.0),
        healthy_z_range: tuple[float, float] = (0.7, float("inf")),
        healthy_angle_range: tuple[float, float] = (-0.2, 0.2),
        reset_noise_scale: float = 5e-3,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ):
        EzPickle.__init__(
            self,
            xml_file,
            frame_skip,
            default_camera_config,
            forward_reward_weight,
            ctrl_cost_weight,
            healthy_reward,
            terminate_when_unhealthy,
            healthy_state_range,
            healthy_z_range,
            healthy_angle_range,
            reset_noise_scale,
            exclude_current_positions_from_observation,
            **kwargs,
        )
        self._healthy_state_range = healthy_state_range
        self._setup(
            xml_file,
            frame_skip,
            default_camera_config,
            forward_reward_weight,
            ctrl_cost_weight,
            healthy_reward,
            terminate_when_unhealthy,
            healthy_z_range,
            healthy_angle_range,
            reset_noise_scale,
            exclude_current_positions_from_observation,
            kwargs,
        )
