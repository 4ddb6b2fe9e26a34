"""CartPole: balance a pole on a cart by pushing the cart left or right.

The physics lives in :mod:`palaestra.envs.classic_control.dynamics.cartpole`; this module
adapts it to the :class:`~palaestra.Env` API and draws it.

Example:
    >>> import palaestra as gym
    >>> env = gym.make("CartPole-v1")
    >>> observation, info = env.reset(seed=42)
    >>> observation.dtype, env.action_space
    (dtype('float32'), Discrete(2))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra import logger, spaces
from palaestra.envs.classic_control._base import ClassicControlEnv, ParamAttribute
from palaestra.envs.classic_control.dynamics.cartpole import (
    CartPoleParams,
    cartpole_initial_state,
    cartpole_reward,
    cartpole_reward_after_termination,
    cartpole_step,
    cartpole_terminated,
)
from palaestra.envs.classic_control.rendering import Canvas, rotate
from palaestra.envs.classic_control.utils import maybe_parse_reset_bounds

__all__ = ["CartPoleEnv", "draw_cartpole"]

STEP_AFTER_TERMINATION = (
    "You are calling 'step()' even though this environment has already returned "
    "terminated = True. You should always call 'reset()' once you receive "
    "'terminated = True' -- any further steps are undefined behavior."
)


class CartPoleEnv(ClassicControlEnv):
    """A pole on a cart that moves along a frictionless track; keep the pole upright.

    Observation (float32): cart position, cart velocity, pole angle, pole angular velocity.
    Actions: ``Discrete(2)``, 0 pushes the cart left and 1 right with a fixed force.
    Reward: +1 per step, the terminating step included; with ``sutton_barto_reward``, 0 per
    step and -1 on termination. The episode terminates when the pole tilts past 12 degrees or
    the cart leaves ``[-2.4, 2.4]``; registration truncates it at 500 steps (200 for v0).
    Reset draws every component uniformly from ``[-0.05, 0.05)``; ``options={"low": ...,
    "high": ...}`` changes that range.

    Set ``kinematics_integrator`` to ``"semi-implicit euler"`` on the instance to update
    positions with the new velocities.

    Args:
        sutton_barto_reward: use the reward of Sutton and Barto's original formulation.
        render_mode: ``None``, ``"human"`` or ``"rgb_array"`` (600x400 frames).

    Example:
        >>> env = CartPoleEnv()
        >>> _ = env.reset(seed=0)
        >>> observation, reward, terminated, truncated, info = env.step(1)
        >>> reward, terminated, truncated
        (1.0, False, False)
    """

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 50}
    checks_action = True
    screen_width = 600
    screen_height = 400

    gravity = ParamAttribute("gravity")
    masscart = ParamAttribute("cart_mass")
    masspole = ParamAttribute("pole_mass")
    length = ParamAttribute("pole_half_length")
    force_mag = ParamAttribute("force_magnitude")
    tau = ParamAttribute("tau")
    kinematics_integrator = ParamAttribute("kinematics_integrator")
    x_threshold = ParamAttribute("x_threshold")
    theta_threshold_radians = ParamAttribute("theta_threshold_radians")

    def __init__(self, sutton_barto_reward: bool = False, render_mode: str | None = None):
        self._sutton_barto_reward = sutton_barto_reward
        self.params = CartPoleParams()
        self.render_mode = render_mode
        limit = np.array(
            [
                self.params.x_threshold * 2,
                np.inf,
                self.params.theta_threshold_radians * 2,
                np.inf,
            ],
            dtype=np.float32,
        )
        self.action_space = spaces.Discrete(2)
        self.observation_space = spaces.Box(-limit, limit, dtype=np.float32)
        self.state: np.ndarray | None = None
        self.steps_beyond_terminated: int | None = None

    @property
    def total_mass(self) -> float:
        """Cart plus pole mass (kg)."""
        return self.params.total_mass

    @property
    def polemass_length(self) -> float:
        """Pole mass times half its length."""
        return self.params.pole_mass_length

    def _transition(self, action: Any) -> tuple[np.ndarray, float, bool]:
        self.state = cartpole_step(self.state, action, self.params)
        terminated = bool(cartpole_terminated(self.state, self.params))
        if not terminated or self.steps_beyond_terminated is None:
            if terminated:
                self.steps_beyond_terminated = 0
            reward = float(cartpole_reward(terminated, self._sutton_barto_reward))
        else:
            if self.steps_beyond_terminated == 0:
                logger.warn(STEP_AFTER_TERMINATION)
            self.steps_beyond_terminated += 1
            reward = cartpole_reward_after_termination(self._sutton_barto_reward)
        return self._observation(), reward, terminated

    def _start_episode(self, options: dict[str, Any] | None) -> None:
        bound = self.params.reset_bound
        low, high = maybe_parse_reset_bounds(options, -bound, bound)
        self.state = cartpole_initial_state(self.np_random, low, high)
        self.steps_beyond_terminated = None

    def _observation(self) -> np.ndarray:
        return np.array(self.state, dtype=np.float32)

    def draw(self, canvas: Canvas) -> None:
        """Draw the cart and pole on ``canvas``."""
        draw_cartpole(canvas, self.state, self.params)


TRACK_Y = 100.0
CART_SIZE = (50.0, 30.0)
POLE_WIDTH = 10.0
WHEEL_RADIUS = 6.0
TRACK_COLOR = (40, 40, 40)
CART_COLOR = (45, 62, 90)
WHEEL_COLOR = (120, 120, 120)
POLE_COLOR = (214, 140, 62)
AXLE_COLOR = (250, 214, 120)
LIMIT_COLOR = (200, 60, 60)


def draw_cartpole(canvas: Canvas, state: np.ndarray, params: CartPoleParams) -> None:
    """Draw one cart-pole ``state`` on ``canvas``: track, limit marks, cart, wheels and pole.

    Args:
        canvas: a cleared canvas; its width spans ``2.5 * x_threshold``, centred on 0.
        state: a single state of shape ``(4,)``.
        params: the system's constants (pole length, thresholds).

    Example:
        >>> canvas = Canvas(600, 400, render_mode="rgb_array", fps=50)
        >>> canvas.clear()
        >>> draw_cartpole(canvas, np.zeros(4), CartPoleParams())
        >>> canvas.finish().shape
        (400, 600, 3)
    """
    scale = canvas.width / (params.x_threshold * 2.5)
    centre = canvas.width / 2
    canvas.line((0, TRACK_Y), (canvas.width, TRACK_Y), TRACK_COLOR, width=2)
    for side in (-1, 1):
        limit_x = centre + side * params.x_threshold * scale
        canvas.line((limit_x, TRACK_Y - 8), (limit_x, TRACK_Y + 8), LIMIT_COLOR, width=3)
    cart_x = centre + float(state[0]) * scale
    width, height = CART_SIZE
    bottom = TRACK_Y + WHEEL_RADIUS
    corners = [(-width / 2, 0.0), (width / 2, 0.0), (width / 2, height), (-width / 2, height)]
    canvas.polygon([(cart_x + x, bottom + y) for x, y in corners], CART_COLOR)
    for side in (-1, 1):
        canvas.circle(
            (cart_x + side * width / 3, TRACK_Y + WHEEL_RADIUS), WHEEL_RADIUS, WHEEL_COLOR
        )
    pivot = (cart_x, bottom + height * 0.75)
    pole_length = 2 * params.pole_half_length * scale
    half = POLE_WIDTH / 2
    pole = [(-half, -half), (half, -half), (half, pole_length - half), (-half, pole_length - half)]
    # A positive angle tilts the pole towards +x, i.e. clockwise on screen.
    canvas.polygon(rotate(pole, -float(state[2]), pivot), POLE_COLOR)
    canvas.circle(pivot, half * 0.8, AXLE_COLOR)


def __getattr__(name: str) -> Any:
    """``CartPoleVectorEnv`` at Gymnasium's path, imported on first use (it imports this module)."""
    if name == "CartPoleVectorEnv":
        from palaestra.envs.classic_control.vector.cartpole import CartPoleVectorEnv

        return CartPoleVectorEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
