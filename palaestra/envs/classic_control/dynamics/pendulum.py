"""Pendulum physics: swing a frictionless pendulum up with a limited torque.

State components: angle ``theta`` (0 is upright) and angular velocity. The action is a torque
array of shape ``(1,)`` (``(batch, 1)`` for a batch), clipped to ``[-max_torque, max_torque]``.

Example:
    >>> import numpy as np
    >>> params = PendulumParams()
    >>> state = np.array([np.pi, 0.0])
    >>> round(float(pendulum_reward(state, np.float32(0.0), params)), 4)
    -9.8696
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from palaestra.envs.classic_control.dynamics._arrays import clip, components, stack_components

__all__ = [
    "PendulumParams",
    "angle_normalize",
    "pendulum_torque",
    "pendulum_step",
    "pendulum_reward",
    "pendulum_observation",
    "pendulum_initial_state",
]


@dataclass(frozen=True)
class PendulumParams:
    """Every constant of the pendulum.

    Attributes:
        max_speed: angular velocities are clipped to ``[-max_speed, max_speed]``.
        max_torque: torques are clipped to ``[-max_torque, max_torque]``.
        dt: seconds per step.
        g: gravitational acceleration.
        m: mass of the pendulum.
        l: length of the pendulum.
        reset_angle: default bound of the initial angle, ``[-reset_angle, reset_angle]``.
        reset_velocity: default bound of the initial angular velocity.

    Example:
        >>> PendulumParams(g=9.81).g
        9.81
    """

    max_speed: float = 8
    max_torque: float = 2.0
    dt: float = 0.05
    g: float = 10.0
    m: float = 1.0
    l: float = 1.0  # noqa: E741 - the physics' conventional name
    reset_angle: float = np.pi
    reset_velocity: float = 1.0


def angle_normalize(x: Any) -> Any:
    """Wrap angles ``x`` into ``[-pi, pi)``.

    Example:
        >>> round(float(angle_normalize(3 * np.pi / 2)), 4)
        -1.5708
    """
    return ((x + np.pi) % (2 * np.pi)) - np.pi


def pendulum_torque(action: Any, params: PendulumParams) -> Any:
    """Return the applied torque: the action's single component, clipped to the allowed range.

    Args:
        action: shape ``(1,)`` or ``(batch, 1)``.
        params: the system's constants.

    Returns:
        A scalar for one action, a ``(batch,)`` array for a batch; the action's dtype.

    Example:
        >>> float(pendulum_torque(np.array([3.0], dtype=np.float32), PendulumParams()))
        2.0
    """
    # `[()]` turns the 0-d result of a single action into a numpy scalar, whose `** 2`
    # is the C library's `pow`, as in Gymnasium (arrays square by multiplying).
    return clip(action, -params.max_torque, params.max_torque)[..., 0][()]


def pendulum_reward(state: np.ndarray, torque: Any, params: PendulumParams) -> Any:
    """Negative cost of being away from upright, moving, and pushing.

    Args:
        state: the state before the step, shape ``(2,)`` or ``(batch, 2)``.
        torque: the clipped torque (see :func:`pendulum_torque`).
        params: the system's constants (unused; kept for a uniform signature).

    Returns:
        float64 rewards (a numpy scalar for one state).

    Example:
        >>> float(pendulum_reward(np.zeros(2), np.float32(0.0), PendulumParams()))
        -0.0
    """
    # Numpy scalars, not floats: a Python float plus the float32 torque term would give
    # float32, where Gymnasium's float64 state components keep the cost in float64.
    theta, theta_dot = state.T
    cost = angle_normalize(theta) ** 2 + 0.1 * theta_dot**2 + 0.001 * (torque**2)
    return -cost


def pendulum_step(state: np.ndarray, torque: Any, params: PendulumParams) -> np.ndarray:
    """Advance pendulum states by one step ``params.dt`` under the clipped ``torque``.

    Args:
        state: float64 state, shape ``(2,)`` or ``(batch, 2)``.
        torque: the clipped torque (see :func:`pendulum_torque`).
        params: the system's constants.

    Returns:
        The next float64 state with the shape of ``state``.

    Example:
        >>> pendulum_step(np.array([0.0, 0.0]), np.float32(2.0), PendulumParams()).tolist()
        [0.015, 0.3]
    """
    p = params
    theta, theta_dot = components(state)
    angular_acc = 3 * p.g / (2 * p.l) * np.sin(theta) + 3.0 / (p.m * p.l**2) * torque
    new_theta_dot = clip(theta_dot + angular_acc * p.dt, -p.max_speed, p.max_speed)
    new_theta = theta + new_theta_dot * p.dt
    return stack_components(new_theta, new_theta_dot)


def pendulum_observation(state: np.ndarray) -> np.ndarray:
    """Return the float32 observation ``(cos theta, sin theta, theta_dot)``.

    Example:
        >>> pendulum_observation(np.array([0.0, 1.5])).tolist()
        [1.0, 0.0, 1.5]
    """
    theta, theta_dot = components(state)
    return stack_components(np.cos(theta), np.sin(theta), theta_dot, dtype=np.float32)


def pendulum_initial_state(
    rng: np.random.Generator,
    high: np.ndarray,
    batch_size: int | None = None,
) -> np.ndarray:
    """Draw initial states uniformly from ``[-high, high)``, per component.

    Args:
        rng: the generator to draw from (consumed exactly as Gymnasium consumes it).
        high: the bounds ``(angle, angular velocity)``.
        batch_size: ``None`` for one state of shape ``(2,)``, else ``(batch_size, 2)``.

    Example:
        >>> pendulum_initial_state(np.random.default_rng(0), np.array([np.pi, 1.0]), 5).shape
        (5, 2)
    """
    high = np.asarray(high, dtype=np.float64)
    size = None if batch_size is None else (batch_size, 2)
    return rng.uniform(low=-high, high=high, size=size)
