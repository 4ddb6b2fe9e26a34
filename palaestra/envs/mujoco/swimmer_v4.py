"""Swimmer-v4: the Swimmer with version 4's constructor and ``info`` (Gymnasium's).

Example:
    >>> SwimmerEnv().observation_space.shape
    (8,)
"""

from __future__ import annotations

from typing import Any

from palaestra.envs.mujoco import swimmer_v5
from palaestra.envs.mujoco._task import RENDER_MODES
from palaestra.utils.ezpickle import EzPickle

__all__ = ["SwimmerEnv", "swimmer_outcome_v4"]


def swimmer_outcome_v4(settings: Any, data: Any, before: Any, action: Any) -> Any:
    """Return version 5's outcome with version 4's info values."""
    observation, reward, terminated, info = swimmer_v5.swimmer_outcome(
        settings, data, before, action
    )
    x_position, y_position, distance, x_velocity, y_velocity, forward_reward, ctrl = info
    values = (forward_reward, ctrl, x_position, y_position, distance, x_velocity, y_velocity)
    return observation, reward, terminated, (*values, forward_reward)


class SwimmerEnv(swimmer_v5.SwimmerEnv):
    """The Swimmer, version 4 (Gymnasium's arguments and defaults).

    Args:
        forward_reward_weight: weight of the forward speed.
        ctrl_cost_weight: weight of the squared controls.
        reset_noise_scale: scale of the initial-state noise.
        exclude_current_positions_from_observation: leave x and y out of observations.
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = SwimmerEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": 25}

    def __init__(
        self,
        forward_reward_weight: float = 1.0,
        ctrl_cost_weight: float = 1e-4,
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
        super().__init__("swimmer.xml", 4, None, *arguments, **kwargs)
        EzPickle.__init__(self, *arguments, **kwargs)
        del self.observation_structure

    step_outcome = staticmethod(swimmer_outcome_v4)
    outcome_helpers = (swimmer_v5.swimmer_observe, swimmer_v5.swimmer_outcome)
    info_keys = (
        "reward_fwd",
        "reward_ctrl",
        "x_position",
        "y_position",
        "distance_from_origin",
        "x_velocity",
        "y_velocity",
        "forward_reward",
    )
