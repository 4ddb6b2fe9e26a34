"""Reacher-v4: the Reacher with version 4's observation and reward (Gymnasium's).

Version 4 rewards the state *before* the step and observes the full 3D fingertip-to-target
vector.

Example:
    >>> ReacherEnv().observation_space.shape
    (11,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco import reacher_v5
from palaestra.envs.mujoco._task import RENDER_MODES, norm, square_sum
from palaestra.spaces import Box
from palaestra.utils.ezpickle import EzPickle

DEFAULT_CAMERA_CONFIG = reacher_v5.DEFAULT_CAMERA_CONFIG

__all__ = ["ReacherEnv"]


class ReacherEnv(reacher_v5.ReacherEnv):
    """The Reacher, version 4 (no arguments of its own).

    Args:
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = ReacherEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": 50}
    _observed_target_axes = 3

    def __init__(self, **kwargs: Any):
        super().__init__("reacher.xml", 2, reacher_v5.DEFAULT_CAMERA_CONFIG, **kwargs)
        EzPickle.__init__(self, **kwargs)
        self.observation_space = Box(low=-np.inf, high=np.inf, shape=(11,), dtype=np.float64)

    def _progress(self, data: Any) -> Any:
        return -norm(self._to_target(data))

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        reward_ctrl = -square_sum(action)
        info = {"reward_dist": before, "reward_ctrl": reward_ctrl}
        return before + reward_ctrl, False, info
