"""HumanoidStandup-v4: the HumanoidStandup with version 4's observation (Gymnasium's).

Example:
    >>> HumanoidStandupEnv().observation_space.shape
    (376,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco import humanoidstandup_v5
from palaestra.envs.mujoco._task import RENDER_MODES
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
        # Version 4's fixed weights (v5's defaults), whatever ``kwargs`` hold.
        self._ctrl_cost_weight = 0.1
        self._impact_cost_weight = 5e-07
        self.observation_space = Box(low=-np.inf, high=np.inf, shape=(376,), dtype=np.float64)
        del self.observation_structure

    def _observe(self, data: Any) -> np.ndarray:
        return observe_v4(data, True)

    def _clip_impact_cost(self, cost: Any) -> Any:
        # min(cost, 10): the int 10 itself once the cost exceeds it, as Gymnasium's.
        if np.ndim(cost) == 0:
            return min(cost[()], 10)
        return np.minimum(cost, 10)

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {}
