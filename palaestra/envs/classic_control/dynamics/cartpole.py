"""Cart-pole physics: a pole hinged on a cart that is pushed left or right.

State components: cart position, cart velocity, pole angle (radians, 0 is upright), pole
angular velocity. Actions: 0 pushes the cart left, 1 pushes it right.

Example:
    >>> import numpy as np
    >>> params = CartPoleParams()
    >>> state = np.array([0.0, 0.0, 0.1, 0.0])
    >>> bool(cartpole_terminated(cartpole_step(state, 1, params), params))
    False
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from palaestra.envs.classic_control.dynamics._arrays import (
    components,
    select,
    stack_components,
    uniform_states,
)

__all__ = [
    "CartPoleParams",
    "cartpole_step",
    "cartpole_force",
    "cartpole_next_components",
    "cartpole_terminated",
    "cartpole_reward",
    "cartpole_reward_after_termination",
    "cartpole_initial_state",
]

INTEGRATORS = ("euler", "semi-implicit euler")


@dataclass(frozen=True)
class CartPoleParams:
    """Every constant of the cart-pole system.

    Attributes:
        gravity: gravitational acceleration (m/s^2).
        cart_mass: mass of the cart (kg).
        pole_mass: mass of the pole (kg).
        pole_half_length: half the pole's length (m).
        force_magnitude: the force one action applies to the cart (N).
        tau: seconds between state updates.
        kinematics_integrator: ``"euler"`` updates positions with the old velocities;
            ``"semi-implicit euler"`` with the new ones.
        x_threshold: the episode ends when the cart leaves ``[-x_threshold, x_threshold]``.
        theta_threshold_radians: the episode ends when the pole tilts further than this.
        reset_bound: initial components are drawn uniformly from ``[-reset_bound, reset_bound]``.
        total_mass: derived, ``pole_mass + cart_mass``.
        pole_mass_length: derived, ``pole_mass * pole_half_length``.

    Raises:
        ValueError: for an unknown ``kinematics_integrator``.

    Example:
        >>> CartPoleParams().total_mass
        1.1
    """

    gravity: float = 9.8
    cart_mass: float = 1.0
    pole_mass: float = 0.1
    pole_half_length: float = 0.5
    force_magnitude: float = 10.0
    tau: float = 0.02
    kinematics_integrator: str = "euler"
    x_threshold: float = 2.4
    theta_threshold_radians: float = 12 * 2 * math.pi / 360
    reset_bound: float = 0.05
    total_mass: float = field(init=False)
    pole_mass_length: float = field(init=False)

    def __post_init__(self) -> None:
        if self.kinematics_integrator not in INTEGRATORS:
            raise ValueError(
                f"Unknown kinematics_integrator {self.kinematics_integrator!r}; "
                f"expected one of {INTEGRATORS}."
            )
        object.__setattr__(self, "total_mass", self.pole_mass + self.cart_mass)
        object.__setattr__(self, "pole_mass_length", self.pole_mass * self.pole_half_length)


def cartpole_step(state: np.ndarray, action: Any, params: CartPoleParams) -> np.ndarray:
    """Advance cart-pole states by one time step ``params.tau``.

    Args:
        state: float64 state, shape ``(4,)`` or ``(batch, 4)``.
        action: 0 (push left) or 1 (push right); an int or an array of the batch's shape.
        params: the system's constants.

    Returns:
        The next state, float64, with the shape of ``state``.

    Example:
        >>> cartpole_step(np.zeros(4), 1, CartPoleParams()).round(4).tolist()
        [0.0, 0.1951, 0.0, -0.2927]
    """
    x, x_dot, theta, theta_dot = components(state)
    force = cartpole_force(action, params)
    return stack_components(*cartpole_next_components(x, x_dot, theta, theta_dot, force, params))


def cartpole_force(action: Any, params: CartPoleParams) -> Any:
    """Return the force on the cart: ``+force_magnitude`` for action 1, else the opposite.

    Example:
        >>> cartpole_force(np.array([0, 1]), CartPoleParams()).tolist()
        [-10.0, 10.0]
    """
    return select(action == 1, params.force_magnitude, -params.force_magnitude)


def cartpole_next_components(
    x: Any, x_dot: Any, theta: Any, theta_dot: Any, force: Any, params: CartPoleParams
) -> tuple[Any, Any, Any, Any]:
    """Apply the cart-pole equations: the next state's components from the current ones.

    :func:`cartpole_step` is this on a packed state; a batch that keeps its components as
    rows of one array calls it directly and writes the results back in place.

    Args:
        x: cart position(s), floats or arrays of one shape like the other components.
        x_dot: cart velocity.
        theta: pole angle.
        theta_dot: pole angular velocity.
        force: the force(s) on the cart (see :func:`cartpole_force`).
        params: the system's constants.

    Returns:
        The next ``(x, x_dot, theta, theta_dot)``.

    Example:
        >>> [round(float(c), 4) for c in cartpole_next_components(0.0, 0.0, 0.0, 0.0, 10.0,
        ...                                                         CartPoleParams())]
        [0.0, 0.1951, 0.0, -0.2927]
    """
    p = params
    cos_theta = np.cos(theta)
    sin_theta = np.sin(theta)
    # Each formula is accumulated with augmented assignments in its own order of operations
    # (so rounded the same): on a batch they update fresh arrays in place instead of
    # allocating a temporary per operation (5% of a step at 16384 sub-envs); on floats they
    # are the plain operations. Squares are products, as np.square rounds them.
    # temp = (force + pole_mass_length * theta_dot**2 * sin_theta) / total_mass
    temp = theta_dot * theta_dot
    temp *= p.pole_mass_length
    temp *= sin_theta
    temp += force
    temp /= p.total_mass
    # theta_acc = (gravity * sin_theta - cos_theta * temp)
    #     / (pole_half_length * (4/3 - pole_mass * cos_theta**2 / total_mass))
    theta_acc = sin_theta * p.gravity
    theta_acc -= cos_theta * temp
    denominator = cos_theta * cos_theta
    denominator *= p.pole_mass
    denominator /= p.total_mass
    denominator = 4.0 / 3.0 - denominator
    denominator *= p.pole_half_length
    theta_acc /= denominator
    # x_acc = temp - pole_mass_length * theta_acc * cos_theta / total_mass
    x_acc = theta_acc * p.pole_mass_length
    x_acc *= cos_theta
    x_acc /= p.total_mass
    x_acc = temp - x_acc
    # Velocities gain tau * acceleration (the acceleration arrays become the new velocities);
    # positions gain tau * velocity: the old one for "euler", the new one otherwise.
    new_x_dot, new_theta_dot = x_acc, theta_acc
    new_x_dot *= p.tau
    new_x_dot += x_dot
    new_theta_dot *= p.tau
    new_theta_dot += theta_dot
    if p.kinematics_integrator == "euler":
        new_x = x_dot * p.tau
        new_theta = theta_dot * p.tau
    else:
        new_x = new_x_dot * p.tau
        new_theta = new_theta_dot * p.tau
    new_x += x
    new_theta += theta
    return new_x, new_x_dot, new_theta, new_theta_dot


def cartpole_terminated(state: np.ndarray, params: CartPoleParams) -> Any:
    """Whether the cart left the track or the pole fell past the threshold angle.

    Args:
        state: shape ``(4,)`` or ``(batch, 4)``.
        params: the system's constants.

    Returns:
        A numpy bool for one state, a bool array for a batch.

    Example:
        >>> bool(cartpole_terminated(np.array([2.5, 0.0, 0.0, 0.0]), CartPoleParams()))
        True
    """
    x, _, theta, _ = components(state)
    # |v| > t is exactly (v < -t) or (v > t): negation is exact in floating point.
    return (abs(x) > params.x_threshold) | (abs(theta) > params.theta_threshold_radians)


def cartpole_reward(terminated: Any, sutton_barto_reward: bool = False) -> Any:
    """Reward of a step that ended in a state with the given termination flag.

    The default reward is 1 for every step, the terminating one included. The Sutton-Barto
    variant gives 0 per surviving step and -1 for the terminating step. Steps taken after
    termination are the environment's business (see ``CartPoleEnv.step``).

    Args:
        terminated: a bool or a bool array.
        sutton_barto_reward: use the Sutton-Barto reward.

    Returns:
        float64 rewards with the shape of ``terminated``.

    Example:
        >>> cartpole_reward(np.array([False, True]), sutton_barto_reward=True).tolist()
        [0.0, -1.0]
    """
    if sutton_barto_reward:
        return select(terminated, -1.0, 0.0)
    return select(terminated, 1.0, 1.0)


def cartpole_reward_after_termination(sutton_barto_reward: bool = False) -> float:
    """Reward of a step taken after the episode already terminated (undefined behaviour).

    Args:
        sutton_barto_reward: use the Sutton-Barto reward.

    Example:
        >>> cartpole_reward_after_termination(), cartpole_reward_after_termination(True)
        (0.0, -1.0)
    """
    return -1.0 if sutton_barto_reward else 0.0


def cartpole_initial_state(
    rng: np.random.Generator,
    low: float,
    high: float,
    batch_size: int | None = None,
) -> np.ndarray:
    """Draw initial cart-pole states: every component uniform in ``[low, high)``.

    Args:
        rng: the generator to draw from, in Gymnasium's order.
        low: the lower bound of each component.
        high: the upper bound of each component.
        batch_size: ``None`` for one ``(4,)`` state, else a ``(batch_size, 4)`` batch.

    Example:
        >>> state = cartpole_initial_state(np.random.default_rng(0), -0.05, 0.05)
        >>> state.shape, bool(np.all(np.abs(state) < 0.05))
        ((4,), True)
    """
    return uniform_states(rng, low, high, 4, batch_size)
