"""Version 4 of the planar walkers: a survival bonus while termination is on, sparse ``info``.

Example:
    >>> from palaestra.envs.mujoco.hopper_v4 import HopperEnv
    >>> issubclass(HopperEnv, PlanarWalkerV4)
    True
"""

from __future__ import annotations

from typing import Any

from palaestra.envs.mujoco._task import RENDER_MODES, SurvivalBonusV4, col

__all__ = ["PlanarWalkerV4"]


class PlanarWalkerV4(SurvivalBonusV4):
    """Mixed into a v5 walker: version 4's reward and ``info``."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 125}

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        x_position = col(data.qpos, 0)
        x_velocity = (x_position - before) / self.dt
        healthy = self._is_healthy(data)
        ctrl_cost = self.control_cost(action)
        forward_reward = self._forward_reward_weight * x_velocity
        healthy_reward = (healthy | self._terminate_when_unhealthy) * 1.0 * self._healthy_reward
        reward = forward_reward + healthy_reward - ctrl_cost
        terminated = ~healthy & self._terminate_when_unhealthy
        return reward, terminated, {"x_position": x_position, "x_velocity": x_velocity}

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {}
