"""MountainCar: drive an underpowered car up a hill by rocking it back and forth.

The physics lives in :mod:`palaestra.envs.classic_control.dynamics.mountain_car`.

Example:
    >>> import palaestra as gym
    >>> env = gym.make("MountainCar-v0")
    >>> observation, info = env.reset(seed=0)
    >>> env.action_space, observation.shape
    (Discrete(3), (2,))
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.envs.classic_control._base import ClassicControlEnv, ParamAttribute
from palaestra.envs.classic_control.dynamics.mountain_car import (
    MountainCarParams,
    TrackParams,
    mountain_car_initial_state,
    mountain_car_reward,
    mountain_car_step,
    mountain_car_terminated,
    track_height,
)
from palaestra.envs.classic_control.rendering import Canvas, rotate
from palaestra.envs.classic_control.utils import maybe_parse_reset_bounds

__all__ = ["MountainCarBase", "MountainCarEnv", "draw_mountain_car"]

# Key codes of the left and right arrows, as `palaestra.utils.play` reports them.
KEY_LEFT, KEY_RIGHT = 276, 275


class MountainCarBase(ClassicControlEnv):
    """What both mountain cars share: the track's attributes, the reset and the drawing.

    Subclasses set ``params`` to a :class:`MountainCarParams` or a
    :class:`ContinuousMountainCarParams`.

    Example:
        >>> low, high = MountainCarEnv().track_bounds()
        >>> high
        array([0.6 , 0.07], dtype=float32)
    """

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 30}
    screen_width = 600
    screen_height = 400

    min_position = ParamAttribute("min_position")
    max_position = ParamAttribute("max_position")
    max_speed = ParamAttribute("max_speed")
    goal_position = ParamAttribute("goal_position")
    goal_velocity = ParamAttribute("goal_velocity")

    def track_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the float32 ``(low, high)`` bounds of the (position, velocity) observation."""
        low = np.array([self.min_position, -self.max_speed], dtype=np.float32)
        high = np.array([self.max_position, self.max_speed], dtype=np.float32)
        return low, high

    def _start_episode(self, options: dict[str, Any] | None) -> None:
        low, high = maybe_parse_reset_bounds(options, self.params.reset_low, self.params.reset_high)
        self.state = mountain_car_initial_state(self.np_random, low, high)

    def _observation(self) -> np.ndarray:
        return np.array(self.state, dtype=np.float32)

    def draw(self, canvas: Canvas) -> None:
        """Draw the hill, the flag and the car on ``canvas``."""
        draw_mountain_car(canvas, self.state, self.params)


class MountainCarEnv(MountainCarBase):
    """A car in a valley whose engine is too weak to climb the right hill directly.

    Observation (float32): position in ``[-1.2, 0.6]`` and velocity in ``[-0.07, 0.07]``.
    Actions: ``Discrete(3)``: 0 accelerates left, 1 coasts, 2 accelerates right.
    Reward: -1 per step. The episode terminates when the car reaches position 0.5 with a
    velocity of at least ``goal_velocity``; registration truncates it at 200 steps. Reset puts
    the car at rest at a uniform position in ``[-0.6, -0.4)``; ``options={"low": ...,
    "high": ...}`` changes that range.

    Args:
        render_mode: ``None``, ``"human"`` or ``"rgb_array"`` (600x400 frames).
        goal_velocity: the least velocity that counts as reaching the goal.

    Example:
        >>> env = MountainCarEnv()
        >>> _ = env.reset(seed=0)
        >>> env.step(2)[1:]
        (-1.0, False, False, {})
    """

    checks_action = True
    force = ParamAttribute("force")
    gravity = ParamAttribute("gravity")

    def __init__(self, render_mode: str | None = None, goal_velocity: float = 0):
        self.params = MountainCarParams(goal_velocity=goal_velocity)
        self.render_mode = render_mode
        self.low, self.high = self.track_bounds()
        self.action_space = spaces.Discrete(3)
        self.observation_space = spaces.Box(self.low, self.high, dtype=np.float32)
        self.state: np.ndarray | None = None

    def _transition(self, action: Any) -> tuple[np.ndarray, float, bool]:
        self.state = mountain_car_step(self.state, action, self.params)
        terminated = bool(mountain_car_terminated(self.state, self.params))
        return self._observation(), float(mountain_car_reward(terminated)), terminated

    def get_keys_to_action(self) -> dict[tuple[int, ...], int]:
        """Keyboard controls for ``palaestra.utils.play``: arrows accelerate, none coasts."""
        return {(): 1, (KEY_LEFT,): 0, (KEY_RIGHT,): 2, (KEY_RIGHT, KEY_LEFT): 1}


GROUND_COLOR = (176, 214, 150)
TRACK_COLOR = (60, 90, 50)
CAR_COLOR = (200, 50, 50)
WINDOW_COLOR = (220, 235, 250)
WHEEL_COLOR = (40, 40, 40)
POLE_COLOR = (90, 70, 50)
FLAG_COLOR = (250, 200, 30)


def draw_mountain_car(canvas: Canvas, state: np.ndarray, params: TrackParams) -> None:
    """Draw one mountain-car ``state``: hill, goal flag and the car tilted with the slope.

    Args:
        canvas: a cleared canvas; the track spans its width.
        state: a single state of shape ``(2,)``.
        params: the constants of either variant (track range and goal position).

    Example:
        >>> canvas = Canvas(600, 400, render_mode="rgb_array", fps=30)
        >>> canvas.clear()
        >>> draw_mountain_car(canvas, np.array([-0.5, 0.0]), MountainCarParams())
        >>> canvas.finish().shape
        (400, 600, 3)
    """
    scale = canvas.width / (params.max_position - params.min_position)

    def to_canvas(position: float) -> tuple[float, float]:
        return (
            (position - params.min_position) * scale,
            float(track_height(position)) * scale,
        )

    xs = np.linspace(params.min_position, params.max_position, 120)
    curve = [to_canvas(float(x)) for x in xs]
    canvas.polygon([(0.0, 0.0), *curve, (float(canvas.width), 0.0)], GROUND_COLOR)
    canvas.polyline(curve, TRACK_COLOR)

    flag_x, flag_y = to_canvas(params.goal_position)
    canvas.line((flag_x, flag_y), (flag_x, flag_y + 48), POLE_COLOR, width=3)
    canvas.polygon(
        [(flag_x, flag_y + 48), (flag_x + 26, flag_y + 41), (flag_x, flag_y + 34)], FLAG_COLOR
    )

    position = float(state[0])
    base = to_canvas(position)
    # The car's body follows the slope: its angle is the track's derivative's arctangent.
    tilt = math.atan(3 * 0.45 * math.cos(3 * position))
    wheel_radius = 6.0
    lift = wheel_radius + 2
    body = [(-22.0, lift), (22.0, lift), (22.0, lift + 14), (-22.0, lift + 14)]
    cabin = [(-12.0, lift + 14), (10.0, lift + 14), (6.0, lift + 24), (-9.0, lift + 24)]
    canvas.polygon(rotate(body, tilt, base), CAR_COLOR)
    canvas.polygon(rotate(cabin, tilt, base), WINDOW_COLOR)
    for wheel in rotate([(-13.0, wheel_radius), (13.0, wheel_radius)], tilt, base):
        canvas.circle(wheel, wheel_radius, WHEEL_COLOR)
