"""Acrobot physics: a two-link pendulum actuated only at the joint between the links.

State components: ``theta1`` (first link, 0 hangs straight down), ``theta2`` (second link
relative to the first), and their angular velocities. Actions 0, 1, 2 apply the torques in
``params.torques`` (-1, 0, +1) at the joint. One step integrates the equations of motion with
a single fourth-order Runge-Kutta step of ``params.dt`` seconds.

Example:
    >>> import numpy as np
    >>> params = AcrobotParams()
    >>> state = acrobot_step(np.zeros(4), 1.0, params)
    >>> state.round(4).tolist()
    [-0.0133, 0.0343, -0.1287, 0.3345]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from palaestra.envs.classic_control.dynamics._arrays import (
    any_true,
    clip,
    components,
    select,
    stack_components,
    uniform_states,
)

__all__ = [
    "AcrobotParams",
    "acrobot_torque",
    "acrobot_derivatives",
    "acrobot_step",
    "acrobot_terminated",
    "acrobot_reward",
    "acrobot_observation",
    "acrobot_initial_state",
    "wrap_angle",
]

DYNAMICS = ("book", "nips")


@dataclass(frozen=True)
class AcrobotParams:
    """Every constant of the acrobot.

    Attributes:
        dt: seconds per step.
        link_length_1: length of the first link (m).
        link_length_2: length of the second link (m).
        link_mass_1: mass of the first link (kg).
        link_mass_2: mass of the second link (kg).
        link_com_pos_1: distance from the shoulder to the first link's centre of mass (m).
        link_com_pos_2: distance from the joint to the second link's centre of mass (m).
        link_moi: moment of inertia of either link.
        max_vel_1: the first link's angular velocity is clipped to ``+-max_vel_1``.
        max_vel_2: the second link's angular velocity is clipped to ``+-max_vel_2``.
        torques: the joint torque of each discrete action.
        torque_noise_max: uniform noise in ``[-torque_noise_max, torque_noise_max]`` is added
            to the torque when positive.
        book_or_nips: ``"book"`` uses the equations of Sutton and Barto's book, ``"nips"``
            those of the NIPS paper (without one velocity term).
        gravity: gravitational acceleration.
        reset_bound: initial components are drawn from ``[-reset_bound, reset_bound)``.

    Raises:
        ValueError: for an unknown ``book_or_nips``.

    Example:
        >>> AcrobotParams(book_or_nips="nips").book_or_nips
        'nips'
    """

    dt: float = 0.2
    link_length_1: float = 1.0
    link_length_2: float = 1.0
    link_mass_1: float = 1.0
    link_mass_2: float = 1.0
    link_com_pos_1: float = 0.5
    link_com_pos_2: float = 0.5
    link_moi: float = 1.0
    max_vel_1: float = 4 * math.pi
    max_vel_2: float = 9 * math.pi
    torques: tuple[float, ...] = (-1.0, 0.0, +1)
    torque_noise_max: float = 0.0
    book_or_nips: str = "book"
    gravity: float = 9.8
    reset_bound: float = 0.1

    def __post_init__(self) -> None:
        if self.book_or_nips not in DYNAMICS:
            raise ValueError(
                f"Unknown book_or_nips {self.book_or_nips!r}; expected one of {DYNAMICS}."
            )


def acrobot_torque(
    action: Any, params: AcrobotParams, rng: np.random.Generator | None = None
) -> Any:
    """Return the joint torque of discrete ``action``, plus noise when ``torque_noise_max > 0``.

    Args:
        action: 0, 1 or 2; an int or an int array.
        params: the system's constants.
        rng: the generator for the noise (needed only when there is noise).

    Returns:
        The torque as a float for one action, a float64 array for an array of actions.

    Example:
        >>> acrobot_torque(np.array([0, 2]), AcrobotParams()).tolist()
        [-1.0, 1.0]
    """
    if getattr(action, "ndim", 0) == 0:
        torque = float(params.torques[action])
    else:
        torque = np.asarray(params.torques, dtype=np.float64)[action]
    if params.torque_noise_max > 0:
        noise_max = params.torque_noise_max
        assert rng is not None, "torque noise needs a random generator"
        torque = torque + rng.uniform(-noise_max, noise_max, size=np.shape(action) or None)
    return torque


def _derivatives(y: Sequence[Any], torque: Any, params: AcrobotParams) -> tuple[Any, ...]:
    """Return the state's time derivatives from its components (floats or column arrays)."""
    p = params
    m1, m2 = p.link_mass_1, p.link_mass_2
    l1, lc1, lc2 = p.link_length_1, p.link_com_pos_1, p.link_com_pos_2
    i1 = i2 = p.link_moi
    g = p.gravity
    theta1, theta2, dtheta1, dtheta2 = y
    cos2, sin2 = np.cos(theta2), np.sin(theta2)
    d1 = m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * cos2) + i1 + i2
    d2 = m2 * (lc2**2 + l1 * lc2 * cos2) + i2
    phi2 = m2 * lc2 * g * np.cos(theta1 + theta2 - math.pi / 2.0)
    phi1 = (
        -m2 * l1 * lc2 * dtheta2**2 * sin2
        - 2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * sin2
        + (m1 * lc1 + m2 * l1) * g * np.cos(theta1 - math.pi / 2)
        + phi2
    )
    inertia = m2 * lc2**2 + i2 - d2**2 / d1
    if p.book_or_nips == "nips":
        ddtheta2 = (torque + d2 / d1 * phi1 - phi2) / inertia
    else:
        centrifugal = m2 * l1 * lc2 * dtheta1**2 * sin2
        ddtheta2 = (torque + d2 / d1 * phi1 - centrifugal - phi2) / inertia
    ddtheta1 = -(d2 * ddtheta2 + phi1) / d1
    return dtheta1, dtheta2, ddtheta1, ddtheta2


def acrobot_derivatives(state: np.ndarray, torque: Any, params: AcrobotParams) -> np.ndarray:
    """Time derivatives of the state under a joint ``torque``: the equations of motion.

    Args:
        state: float64 state, shape ``(4,)`` or ``(batch, 4)``.
        torque: the joint torque, a scalar or a ``(batch,)`` array.
        params: the system's constants.

    Returns:
        ``(dtheta1, dtheta2, ddtheta1, ddtheta2)`` with the shape of ``state``.

    Example:
        >>> acrobot_derivatives(np.zeros(4), 0.0, AcrobotParams()).tolist()
        [0.0, 0.0, 0.0, 0.0]
    """
    return stack_components(*_derivatives(components(state), torque, params))


def wrap_angle(angle: Any, low: float = -math.pi, high: float = math.pi) -> Any:
    """Shift angles by whole turns ``high - low`` until they lie in ``[low, high]``.

    Args:
        angle: a scalar or an array.
        low: the lower end of the range.
        high: the upper end of the range.

    Example:
        >>> round(float(wrap_angle(np.float64(4.0))), 4)
        -2.2832
    """
    span = high - low
    while any_true(angle > high):
        angle = select(angle > high, angle - span, angle)
    while any_true(angle < low):
        angle = select(angle < low, angle + span, angle)
    return angle


def _euler_move(y: Sequence[Any], slope: Sequence[Any], duration: float) -> tuple[Any, ...]:
    """Return ``y + duration * slope``, component by component.

    Written out for the four components: a tuple, which numba keeps off the heap.
    """
    theta1, theta2, dtheta1, dtheta2 = y
    rate1, rate2, rate3, rate4 = slope
    return (
        theta1 + duration * rate1,
        theta2 + duration * rate2,
        dtheta1 + duration * rate3,
        dtheta2 + duration * rate4,
    )


def acrobot_step(state: np.ndarray, torque: Any, params: AcrobotParams) -> np.ndarray:
    """Advance acrobot states by one Runge-Kutta step, then wrap angles and clip velocities.

    The integration runs component by component, so one state computes on floats and a
    batch on whole columns.

    Args:
        state: shape ``(4,)`` or ``(batch, 4)`` (float32 after reset is fine).
        torque: the joint torque (see :func:`acrobot_torque`).
        params: the system's constants.

    Returns:
        The next float64 state with the shape of ``state``.

    Example:
        >>> acrobot_step(np.zeros(4), 0.0, AcrobotParams()).tolist()
        [0.0, 0.0, 0.0, 0.0]
    """
    p = params
    y0 = components(np.asanyarray(state, dtype=np.float64))
    k1 = _derivatives(y0, torque, p)
    k2 = _derivatives(_euler_move(y0, k1, p.dt / 2.0), torque, p)
    k3 = _derivatives(_euler_move(y0, k2, p.dt / 2.0), torque, p)
    k4 = _derivatives(_euler_move(y0, k3, p.dt), torque, p)
    # The weighted slope k1 + 2 k2 + 2 k3 + k4, summed left to right as moves along each.
    slope = _euler_move(_euler_move(_euler_move(k1, k2, 2), k3, 2), k4, 1)
    theta1, theta2, dtheta1, dtheta2 = _euler_move(y0, slope, p.dt / 6.0)
    return stack_components(
        wrap_angle(theta1),
        wrap_angle(theta2),
        clip(dtheta1, -p.max_vel_1, p.max_vel_1),
        clip(dtheta2, -p.max_vel_2, p.max_vel_2),
    )


def acrobot_terminated(state: np.ndarray, params: AcrobotParams) -> Any:
    """Whether the free end swung above the bar: ``-cos(t1) - cos(t1 + t2) > 1``.

    Example:
        >>> bool(acrobot_terminated(np.array([np.pi, 0.0, 0.0, 0.0]), AcrobotParams()))
        True
    """
    theta1, theta2, _, _ = components(state)
    return -np.cos(theta1) - np.cos(theta2 + theta1) > 1.0


def acrobot_reward(terminated: Any) -> Any:
    """-1 for every step that does not reach the goal, 0 for the one that does.

    Example:
        >>> acrobot_reward(np.array([False, True])).tolist()
        [-1.0, 0.0]
    """
    return select(terminated, 0.0, -1.0)


def acrobot_observation(state: np.ndarray) -> np.ndarray:
    """Return the float32 observation ``(cos t1, sin t1, cos t2, sin t2, dt1, dt2)``.

    Example:
        >>> acrobot_observation(np.zeros(4)).tolist()
        [1.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    """
    theta1, theta2, dtheta1, dtheta2 = components(state)
    return stack_components(
        np.cos(theta1),
        np.sin(theta1),
        np.cos(theta2),
        np.sin(theta2),
        dtheta1,
        dtheta2,
        dtype=np.float32,
    )


def acrobot_initial_state(
    rng: np.random.Generator,
    low: float,
    high: float,
    batch_size: int | None = None,
) -> np.ndarray:
    """Draw float32 initial acrobot states: angles and velocities uniform in ``[low, high)``.

    Args:
        rng: the generator; one ``uniform`` call of the result's shape, as in Gymnasium.
        low: lower bound of the angles and velocities.
        high: their upper bound.
        batch_size: how many states (a leading axis), or ``None`` for one.

    Example:
        >>> acrobot_initial_state(np.random.default_rng(0), -0.1, 0.1).dtype
        dtype('float32')
    """
    return uniform_states(rng, low, high, 4, batch_size).astype(np.float32)
