"""Classic control under the numba accelerator: the shared dynamics, compiled row by row.

numba compiles the very functions the single environments run (their one-environment path,
on scalars) into a loop over the batch; nothing of the physics is written again here. They
compile through palaestra's scoped pipeline (:mod:`palaestra.vector.native.compiled`), so
their ``float ** int`` rounds as Python's and nothing changes for other numba functions. What
numba cannot take as is gets a compiled stand-in for palaestra's own array helpers of the
dynamics (``stack_components`` gives a tuple instead of an array, ``components`` unpacks a row
or a tuple as it is, ``select`` and ``clip`` pick between scalars, ``any_true``). The frozen
parameter dataclasses become named tuples with the same field names. A loop over rows keeps no
batch-sized temporaries, so it stays in cache at any size.

Importing this module needs numba (the ``fast`` extra).
"""

from __future__ import annotations

import dataclasses
import functools
import numbers
import operator
from typing import Any

import numpy as np
from numba.core import cgutils, types
from numba.extending import (
    intrinsic,
    make_attribute_wrapper,
    models,
    overload,
    register_model,
)

from palaestra.envs.classic_control.dynamics import _arrays
from palaestra.envs.classic_control.dynamics import acrobot as _acrobot
from palaestra.envs.classic_control.dynamics import cartpole as _cartpole
from palaestra.envs.classic_control.dynamics import mountain_car as _mountain_car
from palaestra.envs.classic_control.dynamics.acrobot import (
    acrobot_reward,
    acrobot_step,
    acrobot_terminated,
)
from palaestra.envs.classic_control.dynamics.cartpole import (
    cartpole_reward,
    cartpole_step,
    cartpole_terminated,
)
from palaestra.envs.classic_control.dynamics.mountain_car import (
    continuous_mountain_car_reward,
    continuous_mountain_car_step,
    mountain_car_reward,
    mountain_car_step,
    mountain_car_terminated,
)
from palaestra.envs.classic_control.dynamics.pendulum import (
    angle_normalize,
    pendulum_reward,
    pendulum_step,
)
from palaestra.vector.native.compiled import (
    as_named_tuple,
    exact_power,
    njit,
    register_jitable,
)

__all__ = [
    "compile_cartpole",
    "compile_acrobot",
    "compile_pendulum",
    "compile_mountain_car",
    "compile_continuous_mountain_car",
    "parameter_table",
]


# Helpers the dynamics functions call, compiled as they are wherever compiled code calls them.
for _helper in (
    _cartpole.cartpole_force,
    _cartpole.cartpole_next_components,
    _acrobot._derivatives,
    _acrobot._euler_move,
    _acrobot.wrap_angle,
    angle_normalize,
):
    register_jitable(_helper)
# The mountain cars' float32 steps round Python scalars to float32 where numpy does.
register_jitable(_mountain_car._roll, float32_like_numpy=True)


@overload(_arrays.any_true)
def _any_true(condition: Any) -> Any:
    def truth(condition: Any) -> Any:
        return bool(condition)

    return truth


def _given(value_type: Any) -> bool:
    return value_type is not None and not isinstance(value_type, (types.Omitted, types.NoneType))


# Two or four components (the classic-control states), and an optional dtype; numba does not
# take keyword-only arguments after ``*components``, so the stand-in names them.
@overload(_arrays.stack_components, strict=False)
def _stack_components(
    first: Any, second: Any, third: Any = None, fourth: Any = None, dtype: Any = None
) -> Any:
    four = _given(third)
    if _given(dtype) and isinstance(dtype, types.NumberClass):
        cast = dtype.dtype
        if four:
            return None

        def stack_cast(
            first: Any, second: Any, third: Any = None, fourth: Any = None, dtype: Any = None
        ) -> Any:
            return cast(first), cast(second)

        return stack_cast
    if four:

        def stack_four(
            first: Any, second: Any, third: Any = None, fourth: Any = None, dtype: Any = None
        ) -> Any:
            return first, second, third, fourth

        return stack_four

    def stack_two(
        first: Any, second: Any, third: Any = None, fourth: Any = None, dtype: Any = None
    ) -> Any:
        return first, second

    return stack_two


@overload(_arrays.components)
def _components(state: Any) -> Any:
    if isinstance(state, types.Array) and state.ndim == 2:

        def columns(state: Any) -> Any:
            return state.T

        return columns

    def as_is(state: Any) -> Any:
        return state

    return as_is


@overload(_arrays.select)
def _select(condition: Any, if_true: Any, if_false: Any) -> Any:
    def pick(condition: Any, if_true: Any, if_false: Any) -> Any:
        return if_true if condition else if_false

    return pick


@overload(_arrays.clip)
def _clip(value: Any, low: Any, high: Any) -> Any:
    if value == types.float32:
        # As the scalar path on a float32: compared in float32 (NEP 50), a bound as float32.
        def limit_float32(value: Any, low: Any, high: Any) -> Any:
            if value < np.float32(low):
                return np.float32(low)
            if value > np.float32(high):
                return np.float32(high)
            return value

        return limit_float32

    def limit(value: Any, low: Any, high: Any) -> Any:
        return min(max(value, low), high)

    return limit


@overload(_arrays.rounded_like)
def _rounded_like(value: Any, other: Any) -> Any:
    if other == types.float32:

        def as_float32(value: Any, other: Any) -> Any:
            return np.float32(value)

        return as_float32

    def as_float64(value: Any, other: Any) -> Any:
        return np.float64(value)

    return as_float64


@overload(_arrays.as_type)
def _as_type(value: Any, scalar_type: Any) -> Any:
    def convert(value: Any, scalar_type: Any) -> Any:
        return scalar_type(value)

    return convert


@overload(_mountain_car._throttle)
def _throttle(action: Any) -> Any:
    def first(action: Any) -> Any:
        return action[0]

    return first


# The dynamics, compiled through palaestra's pipeline; module globals (not closure cells), so
# that the row loops built on them can be cached on disk across processes.
_cartpole_step = njit(cartpole_step)
_cartpole_terminated = njit(cartpole_terminated)
_cartpole_reward = njit(cartpole_reward)
_acrobot_step = njit(acrobot_step)
_acrobot_terminated = njit(acrobot_terminated)
_acrobot_reward = njit(acrobot_reward)
_pendulum_step = njit(pendulum_step)
_pendulum_reward = njit(pendulum_reward)
_mountain_car_step = njit(mountain_car_step, float32_like_numpy=True)
_mountain_car_terminated = njit(mountain_car_terminated, float32_like_numpy=True)
_mountain_car_reward = njit(mountain_car_reward, float32_like_numpy=True)
_continuous_step = njit(continuous_mountain_car_step, float32_like_numpy=True)
_continuous_reward = njit(continuous_mountain_car_reward, float32_like_numpy=True)


def _numeric_fields(params: Any) -> tuple[str, ...]:
    """Return the fields of a parameter set that can differ per row: its numbers."""
    return tuple(
        field.name
        for field in dataclasses.fields(params)
        if isinstance(getattr(params, field.name), numbers.Real)
        and not isinstance(getattr(params, field.name), bool)
    )


def parameter_table(row_params: list[Any]) -> np.ndarray:
    """Return the numeric fields of one parameter set per row, as a ``(rows, fields)`` table.

    The compiled loops built with ``per_row=True`` read row ``i``'s parameters from row
    ``i`` of this table (the other fields are the shared parameter set's).

    Example:
        >>> from palaestra.envs.classic_control.dynamics.pendulum import PendulumParams
        >>> parameter_table([PendulumParams(g=9.0), PendulumParams(g=3.5)])[:, 3].tolist()
        [9.0, 3.5]
    """
    fields = _numeric_fields(row_params[0])
    return np.array([[getattr(p, name) for name in fields] for p in row_params], np.float64)


def constants_at(constants: Any, table: Any, i: int) -> Any:
    """Return row ``i``'s parameters: ``constants``, with the numbers of ``table``'s row ``i``.

    Compiled code only (see the overload below). Without a table (``None``), ``constants``
    themselves, so that a loop over shared parameters compiles exactly as with the constant;
    with one (see :func:`parameter_table`), the numeric fields come from the table and the
    others (the string choices) from ``constants``.
    """
    raise NotImplementedError("constants_at runs in compiled code only")


@functools.cache
def _row_builder(tuple_class: type, numeric: tuple[bool, ...]) -> Any:
    """Return a compiled ``(constants, table, i) -> named tuple`` for one tuple layout."""
    columns = iter(range(len(numeric)))
    arguments = []
    for name, is_number in zip(tuple_class._fields, numeric, strict=True):
        arguments.append(f"table[i, {next(columns)}]" if is_number else f"constants.{name}")
    namespace = {"tuple_class": tuple_class}
    # numba builds a named tuple from positional arguments only: written out, in order.
    source = f"def build(constants, table, i):\n    return tuple_class({', '.join(arguments)})\n"
    exec(source, namespace)
    return register_jitable(namespace["build"])


@overload(constants_at, inline="always")
def _constants_at(constants: Any, table: Any, i: Any) -> Any:
    if table is None or isinstance(table, (types.NoneType, types.Omitted)):

        def shared(constants: Any, table: Any, i: Any) -> Any:
            return constants

        return shared
    numeric = tuple(
        isinstance(field, (types.Integer, types.Float)) and not isinstance(field, types.Boolean)
        for field in constants.types
    )
    build = _row_builder(constants.instance_class, numeric)

    def per_row(constants: Any, table: Any, i: Any) -> Any:
        return build(constants, table, i)

    return per_row


@functools.cache
def compile_cartpole(params: Any, sutton_barto_reward: bool, per_row: bool = False) -> Any:
    """Compile a cart-pole batch step from ``cartpole_step``, ``_terminated`` and ``_reward``.

    Compiled once per parameter set and reward flavour (the parameters are compile-time
    constants), then shared. With ``per_row``, each row's numbers come from a table instead.

    Returns:
        ``advance(states, actions, table=None) -> (next_states, rewards, terminations)``,
        ``table`` the :func:`parameter_table` of the rows (with ``per_row``); it raises
        ``AssertionError`` (as Gymnasium) for an action other than 0 or 1 (checked inside the
        compiled loop).

    Example:
        >>> from palaestra.envs.classic_control.dynamics.cartpole import CartPoleParams
        >>> advance = compile_cartpole(CartPoleParams(), False)
        >>> next_states, rewards, terminations = advance(np.zeros((2, 4)), np.array([0, 1]))
        >>> next_states[:, 1].round(4).tolist(), rewards.tolist()
        ([-0.1951, 0.1951], [1.0, 1.0])
    """
    constants = as_named_tuple(params)

    @njit(cache=True)
    def row_loop(states: np.ndarray, actions: np.ndarray, table: Any = None) -> Any:
        count = states.shape[0]
        next_states = np.empty((4, count)).T
        rewards = np.empty(count)
        terminations = np.empty(count, dtype=np.bool_)
        for i in range(count):
            if actions[i] != 0 and actions[i] != 1:
                raise ValueError("action outside {0, 1}")
            row_constants = constants_at(constants, table, i)
            state = _cartpole_step(states[i], actions[i], row_constants)
            ended = _cartpole_terminated(state, row_constants)
            for k in range(4):
                next_states[i, k] = state[k]
            terminations[i] = ended
            rewards[i] = _cartpole_reward(ended, sutton_barto_reward)
        return next_states, rewards, terminations

    def advance(states: np.ndarray, actions: np.ndarray, table: Any = None) -> Any:
        try:
            if table is None:
                return row_loop(states, actions)
            return row_loop(states, actions, table)
        except ValueError:
            raise AssertionError(
                f"{actions!r} ({type(actions)}) invalid: each action must be 0 (push left) or "
                "1 (push right) (an element of Discrete(2))."
            ) from None

    return advance


@functools.cache
def compile_acrobot(params: Any, per_row: bool = False) -> Any:
    """Compile an acrobot batch step from ``acrobot_step``, ``_terminated`` and ``_reward``.

    Compiled once per parameter set (the parameters are compile-time constants), then shared;
    with ``per_row``, each row's numbers come from a table instead. The torques come in
    computed (with their noise), so the loop draws nothing.

    Returns:
        ``advance(states, torques, table=None) -> (next_states, rewards, terminations)``,
        ``table`` the :func:`parameter_table` of the rows (with ``per_row``).

    Example:
        >>> from palaestra.envs.classic_control.dynamics.acrobot import AcrobotParams
        >>> advance = compile_acrobot(AcrobotParams())
        >>> next_states, rewards, terminations = advance(np.zeros((2, 4)), np.array([0.0, 1.0]))
        >>> next_states[:, 3].round(4).tolist(), rewards.tolist()
        ([0.0, 0.3345], [-1.0, -1.0])
    """
    constants = as_named_tuple(params)

    @njit(cache=True)
    def advance(states: np.ndarray, torques: np.ndarray, table: Any = None) -> Any:
        count = states.shape[0]
        next_states = np.empty((4, count)).T
        rewards = np.empty(count)
        terminations = np.empty(count, dtype=np.bool_)
        for i in range(count):
            row_constants = constants_at(constants, table, i)
            state = _acrobot_step(states[i], torques[i], row_constants)
            ended = _acrobot_terminated(state, row_constants)
            for k in range(4):
                next_states[i, k] = state[k]
            terminations[i] = ended
            rewards[i] = _acrobot_reward(ended)
        return next_states, rewards, terminations

    return advance


class _TorqueType(types.Type):
    """A float32 torque with the rounding numpy scalars give it in the pendulum's equations.

    numpy rounds a Python float that multiplies a float32 scalar to float32 first (NEP 50);
    numba would multiply in float64. The stand-in supports just what the pendulum's dynamics
    do with the torque (``** int``, multiplication by a float), so anything else fails to
    compile rather than round differently.
    """

    def __init__(self) -> None:
        super().__init__(name="PendulumTorque")


_torque_type = _TorqueType()


@register_model(_TorqueType)
class _TorqueModel(models.StructModel):
    def __init__(self, data_models: Any, torque_type: Any) -> None:
        super().__init__(data_models, torque_type, [("value", types.float32)])


make_attribute_wrapper(_TorqueType, "value", "value")


@intrinsic
def _as_torque(typing_context: Any, value: Any) -> Any:
    def build(context: Any, builder: Any, signature: Any, arguments: Any) -> Any:
        torque = cgutils.create_struct_proxy(_torque_type)(context, builder)
        torque.value = arguments[0]
        return torque._getvalue()

    return _torque_type(types.float32), build


@overload(operator.pow)
def _torque_power(torque: Any, exponent: Any) -> Any:
    if isinstance(torque, _TorqueType) and isinstance(exponent, types.Integer):

        def power(torque: Any, exponent: Any) -> Any:
            return _as_torque(exact_power(torque.value, exponent))

        return power
    return None


@overload(operator.mul)
def _torque_product(left: Any, right: Any) -> Any:
    if isinstance(left, types.Float) and isinstance(right, _TorqueType):

        def scale(left: Any, right: Any) -> Any:
            return np.float32(left) * right.value

        return scale
    if isinstance(left, _TorqueType) and isinstance(right, types.Float):

        def scaled(left: Any, right: Any) -> Any:
            return left.value * np.float32(right)

        return scaled
    return None


@functools.cache
def compile_pendulum(params: Any, per_row: bool = False) -> Any:
    """Compile a pendulum batch step from ``pendulum_step`` and ``pendulum_reward``.

    Compiled once per parameter set (the parameters are compile-time constants), then shared;
    with ``per_row``, each row's numbers come from a table instead.

    Returns:
        ``advance(states, torques, table=None) -> (next_states, rewards)`` for float32
        clipped torques (see ``pendulum_torque``), ``table`` the :func:`parameter_table` of
        the rows (with ``per_row``); each reward is that of the state before the step.

    Example:
        >>> from palaestra.envs.classic_control.dynamics.pendulum import PendulumParams
        >>> advance = compile_pendulum(PendulumParams())
        >>> next_states, rewards = advance(np.zeros((1, 2)), np.array([2.0], dtype=np.float32))
        >>> next_states.tolist(), rewards.round(4).tolist()
        ([[0.015, 0.3]], [-0.004])
    """
    constants = as_named_tuple(params)

    @njit(cache=True)
    def advance(states: np.ndarray, torques: np.ndarray, table: Any = None) -> Any:
        count = states.shape[0]
        next_states = np.empty((2, count)).T
        rewards = np.empty(count)
        for i in range(count):
            row_constants = constants_at(constants, table, i)
            torque = _as_torque(torques[i])
            rewards[i] = _pendulum_reward(states[i], torque, row_constants)
            state = _pendulum_step(states[i], torque, row_constants)
            next_states[i, 0] = state[0]
            next_states[i, 1] = state[1]
        return next_states, rewards

    return advance


@functools.cache
def compile_mountain_car(params: Any, per_row: bool = False) -> Any:
    """Compile a mountain-car batch step from ``mountain_car_step``, ``_terminated``, ``_reward``.

    With ``per_row``, each row's numbers come from a table instead of the shared ``params``.

    Returns:
        ``advance(states, actions, table=None) -> (next_states, rewards, terminations)`` for
        actions the caller has checked (0, 1 or 2), ``table`` the :func:`parameter_table` of
        the rows (with ``per_row``).

    Example:
        >>> from palaestra.envs.classic_control.dynamics.mountain_car import MountainCarParams
        >>> advance = compile_mountain_car(MountainCarParams())
        >>> next_states, rewards, terminations = advance(np.zeros((1, 2)), np.array([2]))
        >>> next_states.round(4).tolist(), rewards.tolist()
        ([[-0.0015, -0.0015]], [-1.0])
    """
    constants = as_named_tuple(params)

    @njit(cache=True)
    def advance(states: np.ndarray, actions: np.ndarray, table: Any = None) -> Any:
        count = states.shape[0]
        next_states = np.empty((2, count)).T
        rewards = np.empty(count)
        terminations = np.empty(count, dtype=np.bool_)
        for i in range(count):
            row_constants = constants_at(constants, table, i)
            position, velocity = _mountain_car_step(states[i], actions[i], row_constants)
            ended = _mountain_car_terminated((position, velocity), row_constants)
            next_states[i, 0] = position
            next_states[i, 1] = velocity
            terminations[i] = ended
            rewards[i] = _mountain_car_reward(ended)
        return next_states, rewards, terminations

    return advance


@functools.cache
def compile_continuous_mountain_car(params: Any, per_row: bool = False) -> Any:
    """Compile the continuous mountain car's batch step, float64 and float32 rows alike.

    A row fresh from its reset steps in float64 and every other row in float32, as the
    single environment does; ``float32_like_numpy`` compilation makes the float32 rows meet
    the Python-float parameters as numpy's float32 scalars do. With ``per_row``, each row's
    numbers come from a table instead of the shared ``params``.

    Returns:
        ``advance(states, states32, actions, fresh, table=None) -> (next_states, rewards,
        terminations)`` where ``states32`` is ``states`` as float32, ``fresh`` marks the
        float64 rows and ``table`` is the :func:`parameter_table` of the rows (``per_row``).

    Example:
        >>> from palaestra.envs.classic_control.dynamics.mountain_car import (
        ...     ContinuousMountainCarParams)
        >>> advance = compile_continuous_mountain_car(ContinuousMountainCarParams())
        >>> states = np.array([[-0.5, 0.0]])
        >>> actions = np.ones((1, 1), dtype=np.float32)
        >>> fresh = np.array([True])
        >>> next_states, _, _ = advance(states, states.astype(np.float32), actions, fresh)
        >>> single = continuous_mountain_car_step(states[0], actions[0], advance.params)
        >>> next_states[0].tolist() == single.tolist()
        True
    """
    constants = as_named_tuple(params)

    @njit(cache=True)
    def advance(
        states: np.ndarray,
        states32: np.ndarray,
        actions: np.ndarray,
        fresh: np.ndarray,
        table: Any = None,
    ) -> Any:
        count = states.shape[0]
        next_states = np.empty((2, count), dtype=np.float32).T
        rewards = np.empty(count)
        terminations = np.empty(count, dtype=np.bool_)
        for i in range(count):
            row_constants = constants_at(constants, table, i)
            if fresh[i]:
                position, velocity = _continuous_step(states[i], actions[i], row_constants)
            else:
                position, velocity = _continuous_step(states32[i], actions[i], row_constants)
            ended = _mountain_car_terminated((position, velocity), row_constants)
            next_states[i, 0] = position
            next_states[i, 1] = velocity
            terminations[i] = ended
            rewards[i] = _continuous_reward(ended, actions[i], row_constants)
        return next_states, rewards, terminations

    advance.params = params
    return advance
