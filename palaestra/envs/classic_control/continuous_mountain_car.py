"""MountainCarContinuous: the mountain car with a continuous throttle and an energy cost.

The physics lives in :mod:`palaestra.envs.classic_control.dynamics.mountain_car`.

Example:
    >>> import palaestra as gym
    >>> env = gym.make("MountainCarContinuous-v0")
    >>> observation, info = env.reset(seed=0)
    >>> env.action_space
    Box(-1.0, 1.0, (1,), float32)
"""

from __future__ import annotations

import numpy as np

from palaestra import spaces
from palaestra.envs.classic_control._base import ParamAttribute
from palaestra.envs.classic_control.dynamics.mountain_car import (
    ContinuousMountainCarParams,
    continuous_mountain_car_reward,
    continuous_mountain_car_step,
    mountain_car_terminated,
)
from palaestra.envs.classic_control.mountain_car import MountainCarBase

__all__ = ["Continuous_MountainCarEnv"]


class Continuous_MountainCarEnv(MountainCarBase):
    """A car in a valley, driven by a continuous throttle in ``[-1, 1]``.

    Observation (float32): position in ``[-1.2, 0.6]`` and velocity in ``[-0.07, 0.07]``.
    Action: ``Box(-1, 1, (1,), float32)``, the throttle (values outside are clipped).
    Reward: ``-0.1 * action**2`` per step, plus 100 on reaching the goal (position 0.45 with a
    velocity of at least ``goal_velocity``), which terminates the episode; registration
    truncates it at 999 steps. Reset puts the car at rest at a uniform position in
    ``[-0.6, -0.4)``; ``options={"low": ..., "high": ...}`` changes that range.

    Args:
        render_mode: ``None``, ``"human"`` or ``"rgb_array"`` (600x400 frames).
        goal_velocity: the least velocity that counts as reaching the goal.

    Example:
        >>> env = Continuous_MountainCarEnv()
        >>> _ = env.reset(seed=0)
        >>> env.step(np.array([0.0], dtype=np.float32))[1:]
        (0.0, False, False, {})
    """

    min_action = ParamAttribute("min_action")
    max_action = ParamAttribute("max_action")
    power = ParamAttribute("power")

    def __init__(self, render_mode: str | None = None, goal_velocity: float = 0):
        self.params = ContinuousMountainCarParams(goal_velocity=goal_velocity)
        self.render_mode = render_mode
        self.low_state, self.high_state = self.track_bounds()
        self.action_space = spaces.Box(
            low=self.min_action, high=self.max_action, shape=(1,), dtype=np.float32
        )
        self.observation_space = spaces.Box(
            low=self.low_state, high=self.high_state, dtype=np.float32
        )
        self.state: np.ndarray | None = None

    def _transition(self, action: np.ndarray) -> tuple[np.ndarray, float, bool]:
        self.state = continuous_mountain_car_step(self.state, action, self.params)
        terminated = bool(mountain_car_terminated(self.state, self.params))
        reward = float(continuous_mountain_car_reward(terminated, action, self.params))
        # As in Gymnasium, a step returns the (float32) state itself, not a copy.
        return self.state, reward, terminated
