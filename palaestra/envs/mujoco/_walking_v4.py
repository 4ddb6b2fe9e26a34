"""Version 4 of the planar walkers: a survival bonus while termination is on, sparse ``info``.

Example:
    >>> from palaestra.envs.mujoco.hopper_v4 import HopperEnv
    >>> issubclass(HopperEnv, PlanarWalkerV4)
    True
"""

from __future__ import annotations

from typing import Any

from palaestra.envs.mujoco._task import RENDER_MODES, SurvivalBonusV4, col, control_cost
from palaestra.envs.mujoco._walking import walker_is_healthy, walker_observe

__all__ = ["PlanarWalkerV4", "walker_outcome_v4"]


def walker_outcome_v4(settings: Any, data: Any, before: Any, action: Any) -> Any:
    """Return the step's observation, reward, termination and info values (version 4)."""
    x_position = col(data.qpos, 0)
    x_velocity = (x_position - before) / settings.dt
    healthy = walker_is_healthy(settings, data)
    ctrl_cost = control_cost(settings.ctrl_cost_weight, action)
    forward_reward = settings.forward_reward_weight * x_velocity
    survives = healthy | settings.terminate_when_unhealthy
    healthy_reward = survives * 1.0 * settings.healthy_reward
    reward = forward_reward + healthy_reward - ctrl_cost
    terminated = ~healthy & settings.terminate_when_unhealthy
    return walker_observe(settings, data), reward, terminated, (x_position, x_velocity)


class PlanarWalkerV4(SurvivalBonusV4):
    """Mixed into a v5 walker: version 4's reward and ``info``."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 125}

    step_outcome = staticmethod(walker_outcome_v4)
    outcome_helpers = (walker_is_healthy, walker_observe)
    info_keys = ("x_position", "x_velocity")

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {}
