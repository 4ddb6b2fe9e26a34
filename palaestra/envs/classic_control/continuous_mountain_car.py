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

from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.envs.classic_control._base import ClassicControlEnv, ParamAttribute
from palaestra.envs.classic_control.dynamics.mountain_car import (
    ContinuousMountainCarParams,
    continuous_mountain_car_reward,
    continuous_mountain_car_step,
    mountain_car_initial_state,
    mountain_car_terminated,
)
from palaestra.envs.classic_control.mountain_car import draw_mountain_car
from palaestra.envs.classic_control.rendering import Canvas
from palaestra.envs.classic_control.utils import maybe_parse_reset_bounds

__all__ = ["Continuous_MountainCarEnv"]


class Continuous_MountainCarEnv(ClassicControlEnv):
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

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 30}
    screen_width = 600
    screen_height = 400

    min_action = ParamAttribute("min_action")
    max_action = ParamAttribute("max_action")
    min_position = ParamAttribute("min_position")
    max_position = ParamAttribute("max_position")
    max_speed = ParamAttribute("max_speed")
    goal_position = ParamAttribute("goal_position")
    goal_velocity = ParamAttribute("goal_velocity")
    power = ParamAttribute("power")

    def __init__(self, render_mode: str | None = None, goal_velocity: float = 0):
        self.params = ContinuousMountainCarParams(goal_velocity=goal_velocity)
        self.render_mode = render_mode
        self.low_state = np.array([self.min_position, -self.max_speed], dtype=np.float32)
        self.high_state = np.array([self.max_position, self.max_speed], dtype=np.float32)
        self.action_space = spaces.Box(
            low=self.min_action, high=self.max_action, shape=(1,), dtype=np.float32
        )
        self.observation_space = spaces.Box(
            low=self.low_state, high=self.high_state, dtype=np.float32
        )
        self.state: np.ndarray | None = None

    def step(self, action: np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Apply the throttle ``action`` (shape ``(1,)``) for one step.

        Raises:
            AssertionError: before ``reset``.
        """
        assert self.state is not None, "Call reset before using step method."
        self.state = continuous_mountain_car_step(self.state, action, self.params)
        terminated = bool(mountain_car_terminated(self.state, self.params))
        reward = float(continuous_mountain_car_reward(terminated, action, self.params))
        if self.render_mode == "human":
            self.render()
        return self.state, reward, terminated, False, {}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Put the car at rest at a random position; ``options`` may set ``"low"``/``"high"``.

        Raises:
            ValueError: if a bound is not a number or ``low > high``.
        """
        super().reset(seed=seed)
        low, high = maybe_parse_reset_bounds(options, self.params.reset_low, self.params.reset_high)
        self.state = mountain_car_initial_state(self.np_random, low, high)
        if self.render_mode == "human":
            self.render()
        return np.array(self.state, dtype=np.float32), {}

    def draw(self, canvas: Canvas) -> None:
        """Draw the hill, the flag and the car on ``canvas``."""
        draw_mountain_car(canvas, self.state, self.params)
