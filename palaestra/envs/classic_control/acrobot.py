"""Acrobot: swing the tip of a two-link chain above a bar by torquing the middle joint.

The physics lives in :mod:`palaestra.envs.classic_control.dynamics.acrobot`.

Example:
    >>> import palaestra as gym
    >>> env = gym.make("Acrobot-v1")
    >>> observation, info = env.reset(seed=0)
    >>> observation.shape, env.action_space
    ((6,), Discrete(3))
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.envs.classic_control._base import ClassicControlEnv, ParamAttribute
from palaestra.envs.classic_control.dynamics.acrobot import (
    AcrobotParams,
    acrobot_initial_state,
    acrobot_observation,
    acrobot_reward,
    acrobot_step,
    acrobot_terminated,
    acrobot_torque,
    wrap_angle,
)
from palaestra.envs.classic_control.rendering import Canvas, rotate
from palaestra.envs.classic_control.utils import maybe_parse_reset_bounds

__all__ = ["AcrobotEnv", "bound", "draw_acrobot", "rk4", "wrap"]


class AcrobotEnv(ClassicControlEnv):
    """Two links hanging from a pivot, with a motor between them; swing the tip up high.

    Observation (float32): ``(cos t1, sin t1, cos t2, sin t2, dt1, dt2)`` with the angular
    velocities bounded by ``4 pi`` and ``9 pi``. Actions: ``Discrete(3)``, torque -1, 0 or +1
    on the joint. Reward: -1 per step, 0 on the step that lifts the tip above the bar (one
    link length above the pivot), which terminates the episode; registration truncates it at
    500 steps. Reset draws every component uniformly from ``[-0.1, 0.1)``; ``options={"low":
    ..., "high": ...}`` changes that range.

    Args:
        render_mode: ``None``, ``"human"`` or ``"rgb_array"`` (500x500 frames).
        book_or_nips: ``"book"`` (default) or ``"nips"`` equations of motion; also settable
            as an attribute, as in Gymnasium.
        torque_noise_max: uniform noise added to the torque when positive.

    Example:
        >>> env = AcrobotEnv()
        >>> _ = env.reset(seed=0)
        >>> env.step(2)[1:]
        (-1.0, False, False, {})
    """

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 15}
    checks_action = True
    reset_first_message = "Call reset before using AcrobotEnv object."
    SCREEN_DIM = 500
    screen_width = 500
    screen_height = 500
    actions_num = 3

    dt = ParamAttribute("dt", AcrobotParams)
    LINK_LENGTH_1 = ParamAttribute("link_length_1", AcrobotParams)
    LINK_LENGTH_2 = ParamAttribute("link_length_2", AcrobotParams)
    LINK_MASS_1 = ParamAttribute("link_mass_1", AcrobotParams)
    LINK_MASS_2 = ParamAttribute("link_mass_2", AcrobotParams)
    LINK_COM_POS_1 = ParamAttribute("link_com_pos_1", AcrobotParams)
    LINK_COM_POS_2 = ParamAttribute("link_com_pos_2", AcrobotParams)
    LINK_MOI = ParamAttribute("link_moi", AcrobotParams)
    MAX_VEL_1 = ParamAttribute("max_vel_1", AcrobotParams)
    MAX_VEL_2 = ParamAttribute("max_vel_2", AcrobotParams)
    AVAIL_TORQUE = ParamAttribute("torques", AcrobotParams)
    torque_noise_max = ParamAttribute("torque_noise_max", AcrobotParams)
    book_or_nips = ParamAttribute("book_or_nips", AcrobotParams)

    def __init__(
        self,
        render_mode: str | None = None,
        *,
        book_or_nips: str = "book",
        torque_noise_max: float = 0.0,
    ):
        self.params = AcrobotParams(book_or_nips=book_or_nips, torque_noise_max=torque_noise_max)
        self.render_mode = render_mode
        high = np.array([1.0, 1.0, 1.0, 1.0, self.MAX_VEL_1, self.MAX_VEL_2], dtype=np.float32)
        self.observation_space = spaces.Box(low=-high, high=high, dtype=np.float32)
        self.action_space = spaces.Discrete(3)
        self.state: np.ndarray | None = None

    def step(self, a: int) -> tuple[np.ndarray, Any, bool, bool, dict[str, Any]]:
        """Advance one time step under action ``a`` (Gymnasium's parameter name).

        Raises:
            AssertionError: before ``reset``, or if ``a`` is not in the action space.
        """
        return super().step(a)

    def _transition(self, action: Any) -> tuple[np.ndarray, float, bool]:
        torque = acrobot_torque(action, self.params, self.np_random)
        self.state = acrobot_step(self.state, torque, self.params)
        terminated = bool(acrobot_terminated(self.state, self.params))
        return self._observation(), float(acrobot_reward(terminated)), terminated

    def _start_episode(self, options: dict[str, Any] | None) -> None:
        bound = self.params.reset_bound
        low, high = maybe_parse_reset_bounds(options, -bound, bound)
        self.state = acrobot_initial_state(self.np_random, low, high)

    def _observation(self) -> np.ndarray:
        return acrobot_observation(self.state)

    def draw(self, canvas: Canvas) -> None:
        """Draw the bar, the two links and the joints on ``canvas``."""
        draw_acrobot(canvas, self.state, self.params)


BAR_COLOR = (90, 90, 90)
LINK_COLORS = ((60, 140, 120), (80, 170, 150))
JOINT_COLOR = (240, 190, 60)


def draw_acrobot(canvas: Canvas, state: np.ndarray, params: AcrobotParams) -> None:
    """Draw one acrobot ``state``: the goal bar, both links and their joints.

    Args:
        canvas: a cleared square canvas, centred on the pivot.
        state: a single state of shape ``(4,)``.
        params: the system's constants (link lengths).

    Example:
        >>> canvas = Canvas(500, 500, render_mode="rgb_array", fps=15)
        >>> canvas.clear()
        >>> draw_acrobot(canvas, np.zeros(4), AcrobotParams())
        >>> canvas.finish().shape
        (500, 500, 3)
    """
    reach = params.link_length_1 + params.link_length_2 + 0.2
    scale = canvas.width / (reach * 2)
    pivot = (canvas.width / 2, canvas.height / 2)
    bar_y = pivot[1] + params.link_length_1 * scale
    canvas.line((0.0, bar_y), (float(canvas.width), bar_y), BAR_COLOR, width=2)
    half_width = 0.1 * scale
    # theta1 = 0 hangs straight down; the second link's angle is relative to the first.
    angles = (float(state[0]) - np.pi / 2, float(state[0] + state[1]) - np.pi / 2)
    lengths = (params.link_length_1 * scale, params.link_length_2 * scale)
    joint = pivot
    joints = []
    for angle, length, color in zip(angles, lengths, LINK_COLORS):
        link = [(0.0, -half_width), (length, -half_width), (length, half_width), (0.0, half_width)]
        canvas.polygon(rotate(link, angle, joint), color)
        joints.append(joint)
        joint = rotate([(length, 0.0)], angle, joint)[0]
    for centre in joints:
        canvas.circle(centre, half_width * 0.8, JOINT_COLOR)


def wrap(x: float, m: float, M: float) -> float:
    """Shift ``x`` by whole multiples of ``M - m`` until it lies in ``[m, M]`` (Gymnasium's name).

    Args:
        x: the value to wrap, e.g. an angle.
        m: the lower end of the range.
        M: the upper end of the range.

    Example:
        >>> round(wrap(7.0, -3.14, 3.14), 4)
        0.72
    """
    return wrap_angle(x, m, M)


def bound(x: Any, m: Any, M: Any = None) -> Any:
    """Clamp ``x`` into ``[m, M]``; with ``M`` omitted, ``m`` is the pair ``(low, high)``.

    Args:
        x: the value to clamp.
        m: the lower bound, or a ``(low, high)`` pair when ``M`` is ``None``.
        M: the upper bound.

    Example:
        >>> bound(5, [1, 3]), bound(2.0, 1, 3)
        (3, 2.0)
    """
    if M is None:
        m, M = m[0], m[1]
    return min(max(x, m), M)


def rk4(derivs: Any, y0: Any, t: Any) -> np.ndarray:
    """Integrate ``dy/dt = derivs(y)`` with the classic 4th-order Runge-Kutta method.

    Steps from ``t[0]`` through every time in ``t`` and returns the first four components of
    the state at ``t[-1]`` (the acrobot's joint angles and velocities, as Gymnasium's helper
    of the same name does; a fifth component, the torque, rides along unchanged).

    Args:
        derivs: a function of the state returning its time derivative.
        y0: the initial state.
        t: the increasing sequence of times to step through.

    Example:
        >>> import numpy as np
        >>> rk4(lambda y: np.array([y[1], -y[0], 0.0, 0.0]), np.array([1.0, 0, 0, 0]), [0, 0.1])
        array([ 0.99500417, -0.09983333,  0.        ,  0.        ])
    """
    y = np.asarray(y0, dtype=float)
    for start, end in itertools.pairwise(t):
        dt = end - start
        k1 = np.asarray(derivs(y))
        k2 = np.asarray(derivs(y + dt / 2.0 * k1))
        k3 = np.asarray(derivs(y + dt / 2.0 * k2))
        k4 = np.asarray(derivs(y + dt * k3))
        y = y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[:4]
