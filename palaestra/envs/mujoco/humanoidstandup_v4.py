"""HumanoidStandup-v4: the HumanoidStandup with version 4's observation (Gymnasium's).

Example:
    >>> HumanoidStandupEnv().observation_space.shape
    (376,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco import humanoidstandup_v5
from palaestra.envs.mujoco._task import RENDER_MODES, col, square_sum
from palaestra.envs.mujoco.humanoid_v4 import observe_v4
from palaestra.spaces import Box
from palaestra.utils.ezpickle import EzPickle

DEFAULT_CAMERA_CONFIG = humanoidstandup_v5.DEFAULT_CAMERA_CONFIG

__all__ = ["HumanoidStandupEnv"]


class HumanoidStandupEnv(humanoidstandup_v5.HumanoidStandupEnv):
    """The HumanoidStandup, version 4 (no arguments of its own).

    Args:
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = HumanoidStandupEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": 67}

    def __init__(self, **kwargs: Any):
        super().__init__(
            "humanoidstandup.xml",
            5,
            humanoidstandup_v5.DEFAULT_CAMERA_CONFIG,
            **kwargs,
        )
        EzPickle.__init__(self, **kwargs)
        self.observation_space = Box(low=-np.inf, high=np.inf, shape=(376,), dtype=np.float64)
        del self.observation_structure

    def _observe(self, data: Any) -> np.ndarray:
        return observe_v4(data, True)

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        uph_cost = (col(data.qpos, 2) - 0) / self.model.opt.timestep
        quad_ctrl_cost = 0.1 * square_sum(data.ctrl)
        quad_impact_cost = 5e-07 * square_sum(data.cfrc_ext, axes=2)
        # min(cost, 10): the int 10 itself once the cost exceeds it, as Gymnasium's.
        if np.ndim(quad_impact_cost) == 0:
            quad_impact_cost = min(quad_impact_cost[()], 10)
        else:
            quad_impact_cost = np.minimum(quad_impact_cost, 10)
        reward = uph_cost - quad_ctrl_cost - quad_impact_cost + 1
        info = {
            "reward_linup": uph_cost,
            "reward_quadctrl": -quad_ctrl_cost,
            "reward_impact": -quad_impact_cost,
        }
        return reward, False, info

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {}
