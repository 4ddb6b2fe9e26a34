"""InvertedPendulum-v4: the InvertedPendulum with version 4's reward (a float 1.0 per step).

Example:
    >>> InvertedPendulumEnv().observation_space.shape
    (4,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco import inverted_pendulum_v5
from palaestra.envs.mujoco._task import RENDER_MODES
from palaestra.utils.ezpickle import EzPickle

DEFAULT_CAMERA_CONFIG = inverted_pendulum_v5.DEFAULT_CAMERA_CONFIG

__all__ = ["InvertedPendulumEnv"]


class InvertedPendulumEnv(inverted_pendulum_v5.InvertedPendulumEnv):
    """The InvertedPendulum, version 4 (no arguments of its own).

    Args:
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = InvertedPendulumEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": 25}

    def __init__(self, **kwargs: Any):
        super().__init__(
            "inverted_pendulum.xml", 2, inverted_pendulum_v5.DEFAULT_CAMERA_CONFIG, 0.01, **kwargs
        )
        EzPickle.__init__(self, **kwargs)
        del self.observation_structure

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        _, terminated, _ = super()._outcome(data, before, action)
        reward = 1.0 if isinstance(terminated, bool) else np.ones(len(terminated))
        return reward, terminated, {}
