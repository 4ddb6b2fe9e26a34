"""InvertedDoublePendulum-v4: version 4's observation (with every constraint force).

Example:
    >>> InvertedDoublePendulumEnv().observation_space.shape
    (11,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco import inverted_double_pendulum_v5
from palaestra.envs.mujoco._task import RENDER_MODES
from palaestra.spaces import Box
from palaestra.utils.ezpickle import EzPickle

__all__ = ["InvertedDoublePendulumEnv"]

DEFAULT_CAMERA_CONFIG = inverted_double_pendulum_v5.DEFAULT_CAMERA_CONFIG


class InvertedDoublePendulumEnv(inverted_double_pendulum_v5.InvertedDoublePendulumEnv):
    """The InvertedDoublePendulum, version 4 (no arguments of its own).

    Args:
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = InvertedDoublePendulumEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": 20}
    _observed_constraint_forces = None

    def __init__(self, **kwargs: Any):
        super().__init__(
            "inverted_double_pendulum.xml", 5, DEFAULT_CAMERA_CONFIG, 10, 0.1, **kwargs
        )
        EzPickle.__init__(self, **kwargs)
        self.observation_space = Box(low=-np.inf, high=np.inf, shape=(11,), dtype=np.float64)

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        reward, terminated, info = super()._outcome(data, before, action)
        # Version 4's bonus is the int 10 on every step, ended or not.
        reward = 10 - (-info["distance_penalty"]) - (-info["velocity_penalty"])
        return reward, terminated, {}
