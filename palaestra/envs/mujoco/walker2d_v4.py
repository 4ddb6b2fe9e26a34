"""Walker2d-v4: the Walker2d with version 4's model, reward and ``info`` (Gymnasium's).

Version 4's walker has a right foot of friction 0.9 (the left one's is 1.9).

Example:
    >>> Walker2dEnv().observation_space.shape
    (17,)
"""

from __future__ import annotations

from typing import Any

from palaestra.envs.mujoco import walker2d_v5
from palaestra.envs.mujoco._walking_v4 import PlanarWalkerV4
from palaestra.utils.ezpickle import EzPickle

DEFAULT_CAMERA_CONFIG = walker2d_v5.DEFAULT_CAMERA_CONFIG

__all__ = ["Walker2dEnv"]


class Walker2dEnv(PlanarWalkerV4, walker2d_v5.Walker2dEnv):
    """The Walker2d, version 4 (Gymnasium's arguments and defaults).

    Args:
        forward_reward_weight: weight of the forward speed.
        ctrl_cost_weight: weight of the squared controls.
        healthy_reward: reward per step (while healthy, or always with termination on).
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
    """

    def __init__(
        self,
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
            forward_reward_weight,
            ctrl_cost_weight,
            healthy_reward,
            terminate_when_unhealthy,
            healthy_z_range,
            healthy_angle_range,
            reset_noise_scale,
            exclude_current_positions_from_observation,
        )
        super().__init__("walker2d.xml", 4, walker2d_v5.DEFAULT_CAMERA_CONFIG, *arguments, **kwargs)
        EzPickle.__init__(self, *arguments, **kwargs)
        del self.observation_structure
