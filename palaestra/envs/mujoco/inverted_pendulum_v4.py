"""InvertedPendulum-v4: the InvertedPendulum with version 4's reward (a float 1.0 per step).

Example:
    >>> InvertedPendulumEnv().observation_space.shape
    (4,)
"""

from __future__ import annotations

from typing import Any

from palaestra.envs.mujoco import inverted_pendulum_v5
from palaestra.envs.mujoco._task import RENDER_MODES
from palaestra.utils.ezpickle import EzPickle

DEFAULT_CAMERA_CONFIG = inverted_pendulum_v5.DEFAULT_CAMERA_CONFIG

__all__ = ["InvertedPendulumEnv", "inverted_pendulum_outcome_v4"]


def inverted_pendulum_outcome_v4(settings: Any, data: Any, before: Any, action: Any) -> Any:
    """Return version 5's outcome with version 4's reward, 1.0 on every step, and no info."""
    observation, _, terminated, _ = inverted_pendulum_v5.inverted_pendulum_outcome(
        settings, data, before, action
    )
    return observation, 1.0, terminated, ()


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

    step_outcome = staticmethod(inverted_pendulum_outcome_v4)
    outcome_helpers = (
        inverted_pendulum_v5.inverted_pendulum_observe,
        inverted_pendulum_v5.inverted_pendulum_outcome,
    )
    info_keys = ()
