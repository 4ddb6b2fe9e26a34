"""HalfCheetah-v4: the HalfCheetah with version 4's constructor and ``info`` (Gymnasium's).

Example:
    >>> HalfCheetahEnv().observation_space.shape
    (17,)
"""

from __future__ import annotations

from typing import Any

from palaestra.envs.mujoco import half_cheetah_v5
from palaestra.envs.mujoco._task import RENDER_MODES
from palaestra.utils.ezpickle import EzPickle

DEFAULT_CAMERA_CONFIG = half_cheetah_v5.DEFAULT_CAMERA_CONFIG

__all__ = ["HalfCheetahEnv"]


class HalfCheetahEnv(half_cheetah_v5.HalfCheetahEnv):
    """The HalfCheetah, version 4 (Gymnasium's arguments and defaults).

    Args:
        forward_reward_weight: weight of the forward speed.
        ctrl_cost_weight: weight of the squared controls.
        reset_noise_scale: scale of the initial-state noise.
        exclude_current_positions_from_observation: leave x out of observations.
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = HalfCheetahEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": 20}

    def __init__(
        self,
        forward_reward_weight: float = 1.0,
        ctrl_cost_weight: float = 0.1,
        reset_noise_scale: float = 0.1,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ):
        arguments = (
            forward_reward_weight,
            ctrl_cost_weight,
            reset_noise_scale,
            exclude_current_positions_from_observation,
        )
        camera = half_cheetah_v5.DEFAULT_CAMERA_CONFIG
        super().__init__("half_cheetah.xml", 5, camera, *arguments, **kwargs)
        EzPickle.__init__(self, *arguments, **kwargs)
        del self.observation_structure

    # Version 4 names the forward reward "reward_run".
    info_keys = ("x_position", "x_velocity", "reward_run", "reward_ctrl")
