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

__all__ = ["SwimmerEnv"]


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

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        reward, terminated, info = super()._outcome(data, before, action)
        forward_reward = info.pop("reward_forward")
        info = {**swimmer_v5.SwimmerEnv._reset_info(self, data), **info}
        return (
            reward,
            terminated,
            {
                "reward_fwd": forward_reward,
                "reward_ctrl": info.pop("reward_ctrl"),
                **info,
                "forward_reward": forward_reward,
            },
        )

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {}
