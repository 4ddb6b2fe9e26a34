"""Mountain-car physics: an underpowered car in a valley, discrete and continuous throttle.

State components: position (the valley floor is near -0.52) and velocity. The track's height
is ``sin(3 x)``, so gravity pulls with ``-cos(3 x)``.

The continuous variant keeps Gymnasium's numerical quirk: its state is float64 right after
reset and float32 after every step, and several products are rounded to float32 on the way.
:func:`continuous_mountain_car_step` therefore computes in the dtype of the state it is given.
A batch matches single environments exactly when the rows that were just reset are stepped
as a float64 batch and the others as a float32 batch; stepping every row in float32 differs
only in the first step after a reset.

Example:
    >>> import numpy as np
    >>> params = MountainCarParams()
    >>> state = mountain_car_step(np.array([-0.5, 0.0]), 2, params)
    >>> state.round(5).tolist()
    [-0.49918, 0.00082]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from palaestra.envs.classic_control.dynamics._arrays import (
    as_type,
    clip,
    components,
    rounded_like,
    select,
    stack_components,
)

__all__ = [
    "TrackParams",
    "MountainCarParams",
    "ContinuousMountainCarParams",
    "mountain_car_step",
    "mountain_car_terminated",
    "mountain_car_reward",
    "continuous_mountain_car_step",
    "continuous_mountain_car_reward",
    "mountain_car_initial_state",
    "track_height",
]


@dataclass(frozen=True)
class TrackParams:
    """The constants both mountain cars share: the track, the goal, gravity, the reset range.

    Attributes:
        min_position: left wall; the car stops dead against it.
        max_position: right end of the track.
        max_speed: velocities are clipped to ``[-max_speed, max_speed]``.
        goal_position: the episode terminates at or beyond this position...
        goal_velocity: ...with at least this velocity.
        gravity: the strength of the slope's pull.
        reset_low: lower end of the initial-position range.
        reset_high: upper end of the initial-position range.

    Example:
        >>> TrackParams().max_speed
        0.07
    """

    min_position: float = -1.2
    max_position: float = 0.6
    max_speed: float = 0.07
    goal_position: float = 0.5
    goal_velocity: float = 0
    gravity: float = 0.0025
    reset_low: float = -0.6
    reset_high: float = -0.4


@dataclass(frozen=True)
class MountainCarParams(TrackParams):
    """Every constant of the discrete mountain car: the track's, and the engine's force.

    Attributes:
        force: acceleration of one throttle step (actions 0, 1, 2 give -1, 0, +1 of it).

    Example:
        >>> MountainCarParams(goal_velocity=0.01).goal_velocity
        0.01
    """

    force: float = 0.001


@dataclass(frozen=True)
class ContinuousMountainCarParams(TrackParams):
    """Every constant of the continuous mountain car: the track's (goal at 0.45), and more.

    Attributes:
        goal_position: 0.45 here.
        min_action: the throttle is clipped to ``[min_action, max_action]``.
        max_action: see ``min_action``.
        power: acceleration per unit of throttle.
        goal_reward: the reward for reaching the goal.
        action_cost: the reward loses ``action_cost * action**2`` every step.

    Example:
        >>> ContinuousMountainCarParams().goal_position
        0.45
    """

    goal_position: float = 0.45
    min_action: float = -1.0
    max_action: float = 1.0
    power: float = 0.0015
    goal_reward: float = 100.0
    action_cost: float = 0.1


def track_height(position: Any) -> Any:
    """Height of the track at ``position`` (used for drawing).

    Example:
        >>> round(float(track_height(0.0)), 2)
        0.55
    """
    return np.sin(3 * position) * 0.45 + 0.55


def _throttle(action: Any) -> Any:
    """Return the throttle of ``(1,)`` actions: a numpy scalar for one, a column for a batch."""
    return np.asarray(action)[..., 0][()]


def _roll(position: Any, velocity: Any, acceleration: Any, params: TrackParams) -> Any:
    """Return ``(position, velocity)`` after one step with ``acceleration`` on the track.

    The velocity is limited to ``max_speed``, the position to the track, and a car that hits
    the left wall stops dead (an inelastic collision).
    """
    p = params
    velocity = clip(velocity + acceleration, -p.max_speed, p.max_speed)
    position = clip(position + velocity, p.min_position, p.max_position)
    # A Python zero takes the dtype of the state it is stacked into (or of the batch).
    velocity = select((position == p.min_position) & (velocity < 0), 0.0, velocity)
    return position, velocity


def mountain_car_step(state: np.ndarray, action: Any, params: MountainCarParams) -> np.ndarray:
    """Advance discrete mountain-car states by one step.

    Args:
        state: float64 state, shape ``(2,)`` or ``(batch, 2)``.
        action: 0 (push left), 1 (no push) or 2 (push right); an int or an int array.
        params: the system's constants.

    Returns:
        The next float64 state with the shape of ``state``.

    Example:
        >>> mountain_car_step(np.array([-1.2, -0.01]), 0, MountainCarParams()).tolist()
        [-1.2, 0.0]
    """
    p = params
    position, velocity = components(state)
    acceleration = (action - 1) * p.force + np.cos(3 * position) * -p.gravity
    return stack_components(*_roll(position, velocity, acceleration, p))


def mountain_car_terminated(state: np.ndarray, params: TrackParams) -> Any:
    """Whether the car reached the goal position with at least the goal velocity.

    Args:
        state: shape ``(2,)`` or ``(batch, 2)``.
        params: the constants of either variant.

    Example:
        >>> bool(mountain_car_terminated(np.array([0.55, 0.01]), MountainCarParams()))
        True
    """
    position, velocity = components(state)
    return (position >= params.goal_position) & (velocity >= params.goal_velocity)


def mountain_car_reward(terminated: Any) -> Any:
    """Return the discrete variant's reward: -1 for every step.

    Example:
        >>> mountain_car_reward(np.array([True, False])).tolist()
        [-1.0, -1.0]
    """
    return select(terminated, -1.0, -1.0)


def continuous_mountain_car_step(
    state: np.ndarray, action: Any, params: ContinuousMountainCarParams
) -> np.ndarray:
    """Advance continuous mountain-car states by one step, in the state's precision.

    With float32 throttles (the action space's dtype) this rounds exactly as Gymnasium does.
    A float64 throttle within range makes Gymnasium add the velocity change in float64; here
    it is added in the state's precision, so the velocity may differ by a float32 ulp.

    Args:
        state: shape ``(2,)`` or ``(batch, 2)``; float64 right after reset, float32 after.
        action: throttle array, shape ``(1,)`` or ``(batch, 1)``, any values (clipped).
        params: the system's constants.

    Returns:
        The next state as float32, with the shape of ``state``.

    Example:
        >>> params = ContinuousMountainCarParams()
        >>> continuous_mountain_car_step(np.array([-0.5, 0.0]), np.array([1.0]), params)
        array([-0.49867684,  0.00132316], dtype=float32)
    """
    p = params
    position, velocity = components(state)
    throttle = _throttle(action)
    force = clip(throttle, p.min_action, p.max_action)
    slope = p.gravity * np.cos(as_type(3 * position, np.float64))
    # In range, the throttle keeps its own (float32) dtype through the product; a clipped
    # throttle is a Python float in Gymnasium, so that product stays in float64.
    in_range = (throttle >= p.min_action) & (throttle <= p.max_action)
    narrow = force * p.power - rounded_like(slope, force)
    wide = as_type(force, np.float64) * p.power - slope
    acceleration = rounded_like(select(in_range, narrow, wide), velocity)
    # Unpacked first: numba compiles no call with both ``*args`` and a keyword.
    position, velocity = _roll(position, velocity, acceleration, p)
    return stack_components(position, velocity, dtype=np.float32)


def continuous_mountain_car_reward(
    terminated: Any, action: Any, params: ContinuousMountainCarParams
) -> Any:
    """Goal bonus minus the squared (unclipped) throttle times ``action_cost``.

    Args:
        terminated: bool or bool array.
        action: throttle array, shape ``(1,)`` or ``(batch, 1)``.
        params: the system's constants.

    Returns:
        float64 rewards with the shape of ``terminated``.

    Example:
        >>> params = ContinuousMountainCarParams()
        >>> float(continuous_mountain_car_reward(True, np.array([1.0]), params))
        99.9
    """
    throttle = as_type(_throttle(action), np.float64)
    bonus = select(terminated, params.goal_reward, 0.0)
    # ``** 2`` is the C library's pow on a scalar, as Gymnasium's math.pow.
    return bonus - throttle**2 * params.action_cost


def mountain_car_initial_state(
    rng: np.random.Generator,
    low: float,
    high: float,
    batch_size: int | None = None,
) -> np.ndarray:
    """Draw initial states: a uniform position in ``[low, high)`` and zero velocity.

    Args:
        rng: the generator to draw from (consumed exactly as Gymnasium consumes it).
        low: lower end of the position range.
        high: upper end of the position range.
        batch_size: ``None`` for one float64 state of shape ``(2,)``, else ``(batch_size, 2)``.

    Example:
        >>> mountain_car_initial_state(np.random.default_rng(0), -0.6, -0.4).shape
        (2,)
    """
    position = rng.uniform(low=low, high=high, size=batch_size)
    return stack_components(position, np.zeros_like(position))
