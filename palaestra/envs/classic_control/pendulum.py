"""Pendulum: swing a pendulum upright and keep it there with a limited torque.

The physics lives in :mod:`palaestra.envs.classic_control.dynamics.pendulum`.

Example:
    >>> import palaestra as gym
    >>> env = gym.make("Pendulum-v1", g=9.81)
    >>> observation, info = env.reset(seed=0)
    >>> observation.shape, env.unwrapped.g
    ((3,), 9.81)
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.envs.classic_control._base import ClassicControlEnv, ParamAttribute
from palaestra.envs.classic_control.dynamics.pendulum import (
    PendulumParams,
    angle_normalize,
    pendulum_initial_state,
    pendulum_observation,
    pendulum_reward,
    pendulum_step,
    pendulum_torque,
)
from palaestra.envs.classic_control.rendering import Canvas, rotate
from palaestra.envs.classic_control.utils import verify_number_and_cast

__all__ = ["DEFAULT_X", "DEFAULT_Y", "PendulumEnv", "angle_normalize", "draw_pendulum"]

DEFAULT_X = PendulumParams.reset_angle
"""Default bound of the initial angle (``options["x_init"]`` overrides it)."""
DEFAULT_Y = PendulumParams.reset_velocity
"""Default bound of the initial angular velocity (``options["y_init"]`` overrides it)."""


class PendulumEnv(ClassicControlEnv):
    """A pendulum hanging from a fixed pivot; apply torque to swing it up and balance it.

    Observation (float32): ``(cos theta, sin theta, theta_dot)`` with ``theta_dot`` in
    ``[-8, 8]``. Action: ``Box(-2, 2, (1,), float32)``, the torque (clipped to that range).
    Reward: ``-(theta**2 + 0.1 * theta_dot**2 + 0.001 * torque**2)`` with ``theta`` wrapped to
    ``[-pi, pi)``, as a numpy float64. The episode never terminates; registration truncates it
    at 200 steps. Reset draws ``theta`` in ``[-pi, pi)`` and ``theta_dot`` in ``[-1, 1)``;
    ``options={"x_init": ..., "y_init": ...}`` changes those bounds.

    Args:
        render_mode: ``None``, ``"human"`` or ``"rgb_array"`` (500x500 frames).
        g: gravitational acceleration.

    Example:
        >>> env = PendulumEnv(g=9.81)
        >>> _ = env.reset(seed=0)
        >>> _, reward, terminated, truncated, _ = env.step(np.array([1.0], dtype=np.float32))
        >>> type(reward).__name__, terminated, truncated
        ('float64', False, False)
    """

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 30}
    screen_dim = 500
    screen_width = 500
    screen_height = 500

    max_speed = ParamAttribute("max_speed")
    max_torque = ParamAttribute("max_torque")
    dt = ParamAttribute("dt")
    g = ParamAttribute("g")
    m = ParamAttribute("m")
    l = ParamAttribute("l")  # noqa: E741 - Gymnasium's name

    def __init__(self, render_mode: str | None = None, g: float = 10.0):
        self.params = PendulumParams(g=g)
        self.render_mode = render_mode
        high = np.array([1.0, 1.0, self.max_speed], dtype=np.float32)
        self.action_space = spaces.Box(
            low=-self.max_torque, high=self.max_torque, shape=(1,), dtype=np.float32
        )
        self.observation_space = spaces.Box(low=-high, high=high, dtype=np.float32)
        self.state: np.ndarray | None = None
        self.last_u: Any = None

    def step(self, u: np.ndarray) -> tuple[np.ndarray, Any, bool, bool, dict[str, Any]]:
        """Advance one time step under action ``u`` (Gymnasium's parameter name).

        Raises:
            AssertionError: before ``reset``, or if ``u`` is not in the action space.
        """
        return super().step(u)

    def _transition(self, action: np.ndarray) -> tuple[np.ndarray, Any, bool]:
        torque = pendulum_torque(action, self.params)
        self.last_u = torque
        # The cost is that of the state the torque is applied in.
        reward = pendulum_reward(self.state, torque, self.params)
        self.state = pendulum_step(self.state, torque, self.params)
        return self._observation(), reward, False

    def _start_episode(self, options: dict[str, Any] | None) -> None:
        options = options or {}
        x = verify_number_and_cast(options.get("x_init", self.params.reset_angle))
        y = verify_number_and_cast(options.get("y_init", self.params.reset_velocity))
        self.state = pendulum_initial_state(self.np_random, np.array([x, y]))
        self.last_u = None

    def _observation(self) -> np.ndarray:
        return pendulum_observation(self.state)

    def draw(self, canvas: Canvas) -> None:
        """Draw the pendulum and the last torque on ``canvas``."""
        draw_pendulum(canvas, self.state, self.last_u, self.params)


ROD_COLOR = (70, 110, 180)
BOB_COLOR = (40, 70, 130)
PIVOT_COLOR = (30, 30, 30)
TORQUE_COLOR = (230, 120, 40)
ARC_SEGMENTS = 24


def draw_pendulum(canvas: Canvas, state: np.ndarray, torque: Any, params: PendulumParams) -> None:
    """Draw one pendulum ``state``, with an arc arrow showing ``torque`` (if any).

    Args:
        canvas: a cleared square canvas; the view spans 2.2 pendulum lengths each way.
        state: a single state of shape ``(2,)``.
        torque: the last applied torque, or ``None`` before the first step.
        params: the system's constants (length and torque limit).

    Example:
        >>> canvas = Canvas(500, 500, render_mode="rgb_array", fps=30)
        >>> canvas.clear()
        >>> draw_pendulum(canvas, np.array([0.5, 0.0]), 1.0, PendulumParams())
        >>> canvas.finish().shape
        (500, 500, 3)
    """
    scale = canvas.width / (2.2 * 2)
    centre = (canvas.width / 2, canvas.height / 2)
    rod_length = params.l * scale
    half_width = 0.1 * scale
    # theta = 0 points straight up; positive theta turns counter-clockwise.
    angle = float(state[0]) + math.pi / 2
    rod = [
        (0.0, -half_width),
        (rod_length, -half_width),
        (rod_length, half_width),
        (0.0, half_width),
    ]
    canvas.polygon(rotate(rod, angle, centre), ROD_COLOR)
    canvas.circle(rotate([(rod_length, 0.0)], angle, centre)[0], half_width * 1.6, BOB_COLOR)
    if torque is not None and float(torque) != 0.0:
        _draw_torque_arrow(canvas, centre, float(torque), params.max_torque, scale)
    canvas.circle(centre, 0.06 * scale, PIVOT_COLOR)


def _draw_torque_arrow(
    canvas: Canvas, centre: tuple[float, float], torque: float, max_torque: float, scale: float
) -> None:
    """Draw an arc around the pivot whose sweep grows with ``|torque|``; the head shows the sign."""
    radius = 0.35 * scale
    sweep = math.pi * abs(torque) / max_torque
    direction = 1.0 if torque > 0 else -1.0
    start = -math.pi / 2 - direction * sweep / 2
    angles = [start + direction * sweep * i / ARC_SEGMENTS for i in range(ARC_SEGMENTS + 1)]
    points = [(centre[0] + radius * math.cos(a), centre[1] + radius * math.sin(a)) for a in angles]
    for a, b in itertools.pairwise(points):
        canvas.line(a, b, TORQUE_COLOR, width=5)
    tip_angle = angles[-1]
    tangent = tip_angle + direction * math.pi / 2
    head = [(10.0, 0.0), (-6.0, 8.0), (-6.0, -8.0)]
    canvas.polygon(rotate(head, tangent, points[-1]), TORQUE_COLOR)
