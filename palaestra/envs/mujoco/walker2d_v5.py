"""Walker2d-v5: make a planar two-legged walker walk forward (+x) without falling.

The episode ends when the torso leaves 0.8 to 2 m of height or tilts beyond ±1 rad.

Example:
    >>> env = Walker2dEnv()
    >>> env.observation_space.shape, env.action_space.shape
    ((17,), (6,))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco._walking import PlanarWalkerEnv
from palaestra.utils.ezpickle import EzPickle

__all__ = ["Walker2dEnv"]

DEFAULT_CAMERA_CONFIG = {
    "trackbodyid": 2,
    "distance": 4.0,
    "lookat": np.array((0.0, 0.0, 1.15)),
    "elevation": -20.0,
}


class Walker2dEnv(PlanarWalkerEnv):
    """The Walker2d, version 5 (Gymnasium's arguments and defaults).

    Args:
        xml_file: the model (a built-in name or a path to an MJCF file).
        frame_skip: physics steps per step (0.002 s each).
        default_camera_config: the free camera's attributes.
        forward_reward_weight: weight of the forward speed.
        ctrl_cost_weight: weight of the squared controls.
        healthy_reward: reward per step while healthy.
        terminate_when_unhealthy: end the episode when unhealthy.
        healthy_z_range: torso heights counted healthy.
        healthy_angle_range: torso angles counted healthy.
        reset_noise_scale: scale of the initial-state noise.
        exclude_current_positions_from_observation: leave x out of observations.
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = Walker2dEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True

    Raises:
        OSError: if ``xml_file`` does not exist.
    """

    def __init__(
        self,
        xml_file: str = "walker2d_v5.xml",
        frame_skip: int = 4,
        default_camera_config: dict[str, float | np.ndarray] = DEFAULT_CAMERA_CONFIG,
        forward_reward_weight: float = 1.0,
        ctrl_cost_weight: float = 1e-3,
        healthy_reward: float = 1.0,
        terminate_when_unhealthy: bool = True,
        healthy_z_range: tuple[float, float] = (0.8, 2.0),
        healthy_angle_range: tuple[float, float] = (-1.0, 1.0),
        reset_noise_scale: float = 5e-3,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ):
        arguments = (
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
        )
        EzPickle.__init__(self, *arguments, **kwargs)
        self._setup(*arguments, kwargs)
