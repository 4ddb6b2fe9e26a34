"""The optional numba accelerator: the shared dynamics functions, compiled row by row.

numba compiles the very functions the single environments run (their one-environment path,
on scalars) into a loop over the batch; nothing of the physics is written again here. What
numba cannot take as is gets a compiled stand-in registered with
:func:`numba.extending.overload`: the array helpers of the dynamics (``stack_components``
gives a tuple instead of an array, ``components`` unpacks a row or a tuple as it is,
``select`` and ``clip`` pick between scalars) and ``tuple.T``, so that ``x, v = state.T``
also unpacks a tuple state; ``any_true`` and :func:`numpy.asanyarray` get the same treatment.
The frozen parameter dataclasses become named tuples with the same field names, their string
fields :class:`Choice` values that numba compares at compile time. A loop over rows keeps no
batch-sized temporaries, so it stays in cache at any size.

numba squares a float by multiplying, which rounds differently from the C library's ``pow``
(what Python floats and numpy scalars use) in about 0.1% of cases. Importing this module
therefore makes ``float ** int`` in compiled code call ``pow`` (``powf`` for float32), as
Python does, in every numba function of the process: slower, never less exact.

Importing this module needs numba (the ``fast`` extra).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import operator
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.imputils import lower_builtin, lower_constant
from numba.extending import (
    intrinsic,
    make_attribute_wrapper,
    models,
    overload,
    overload_attribute,
    register_jitable,
    register_model,
    typeof_impl,
)

from palaestra.envs.classic_control.dynamics import _arrays
from palaestra.envs.classic_control.dynamics import acrobot as _acrobot
from palaestra.envs.classic_control.dynamics import cartpole as _cartpole
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
from palaestra.envs.classic_control.dynamics.pendulum import (
    angle_normalize,
    pendulum_reward,
    pendulum_step,
)
from palaestra.envs.classic_control.vector import _pcg64, _scalar_pow

__all__ = [
    "compile_cartpole",
    "compile_acrobot",
    "compile_pendulum",
    "compiled_draw_doubles",
    "compiled_close_step",
    "as_named_tuple",
    "Choice",
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


# 2**-53: |p| times this is at most half the spacing of floats at p, so comparing against it
# flags every square that the exact test of ``_scalar_pow`` flags (and a few more).
_SQUARE_ERROR_BOUND = _scalar_pow._MIDPOINT_MARGIN * 1.1102230246251565e-16


def _c_pow(builder: Any, name: str, base: Any, exponent: Any) -> Any:
    """Call the C library's ``name`` (``pow``, ``powf``) as itself.

    ``nobuiltin`` keeps LLVM from rewriting a call with exponent 2 into a product.
    """
    function_type = ir.FunctionType(base.type, [base.type, base.type])
    function = cgutils.get_or_insert_function(builder.module, function_type, name)
    function.attributes.add("nobuiltin")
    return builder.call(function, [base, exponent])


@lower_builtin(operator.pow, types.float64, types.int64)
def _float64_power(context: Any, builder: Any, signature: Any, arguments: Any) -> Any:
    base, exponent = arguments
    double = base.type
    result = cgutils.alloca_once(builder, double)
    is_square = builder.icmp_signed("==", exponent, ir.Constant(exponent.type, 2))
    with builder.if_else(is_square, likely=True) as (square, other):
        with square:
            # The product is pow's result unless its rounding error puts the exact square
            # near a midpoint between two floats.
            product = builder.fmul(base, base)
            builder.store(product, result)
            fma = builder.module.declare_intrinsic(
                "llvm.fma", [double], ir.FunctionType(double, [double] * 3)
            )
            fabs = builder.module.declare_intrinsic(
                "llvm.fabs", [double], ir.FunctionType(double, [double])
            )
            error = builder.call(fma, [base, base, builder.fneg(product)])
            bound = builder.fmul(
                builder.call(fabs, [product]), ir.Constant(double, _SQUARE_ERROR_BOUND)
            )
            near = builder.fcmp_unordered(">", builder.call(fabs, [error]), bound)
            with builder.if_then(near, likely=False):
                builder.store(_c_pow(builder, "pow", base, ir.Constant(double, 2.0)), result)
        with other:
            power = _c_pow(builder, "pow", base, builder.sitofp(exponent, double))
            builder.store(power, result)
    return builder.load(result)


@lower_builtin(operator.pow, types.float32, types.int64)
def _float32_power(context: Any, builder: Any, signature: Any, arguments: Any) -> Any:
    base, exponent = arguments
    return _c_pow(builder, "powf", base, builder.sitofp(exponent, base.type))


@overload(_arrays.any_true)
def _any_true(condition: Any) -> Any:
    def truth(condition: Any) -> Any:
        return bool(condition)

    return truth


@overload(np.asanyarray)
def _as_any_array(value: Any, dtype: Any = None) -> Any:
    if isinstance(value, types.Array):

        def as_array(value: Any, dtype: Any = None) -> Any:
            return np.asarray(value, dtype)

        return as_array
    return None


@overload(_arrays.stack_components)
def _stack_components(*components: Any) -> Any:
    def stack(*components: Any) -> Any:
        return components

    return stack


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
    def limit(value: Any, low: Any, high: Any) -> Any:
        return min(max(value, low), high)

    return limit


@overload_attribute(types.UniTuple, "T")
def _tuple_transpose(state: Any) -> Any:
    def transpose(state: Any) -> Any:
        return state

    return transpose


class Choice(str):
    """A string parameter (such as ``kinematics_integrator``) that numba compares at compile time.

    A plain string field would be compared with ``==`` on every row of a compiled loop,
    which costs more than the physics; a :class:`Choice` is typed by its value, so
    ``params.kinematics_integrator == "euler"`` becomes a constant.

    Example:
        >>> Choice("euler") == "euler"
        True
    """


class _ChoiceType(types.Type):
    def __init__(self, value: str):
        self.value = value
        super().__init__(name=f"Choice({value!r})")


@typeof_impl.register(Choice)
def _typeof_choice(value: Choice, context: Any) -> _ChoiceType:
    return _ChoiceType(str(value))


register_model(_ChoiceType)(models.OpaqueModel)


@lower_constant(_ChoiceType)
def _lower_choice(context: Any, builder: Any, choice_type: Any, value: Any) -> Any:
    # The value lives in the type; the runtime value carries nothing.
    return context.get_dummy_value()


@overload(operator.eq)
def _choice_equals(choice: Any, text: Any) -> Any:
    if isinstance(choice, _ChoiceType) and isinstance(text, types.StringLiteral):
        equal = choice.value == text.literal_value

        def constant(choice: Any, text: Any) -> Any:
            return equal

        return constant
    return None


def as_named_tuple(params: Any) -> Any:
    """Return a dataclass instance's fields as a named tuple that numba can read.

    String fields become :class:`Choice` values, settled at compile time.

    Example:
        >>> from palaestra.envs.classic_control.dynamics.cartpole import CartPoleParams
        >>> constants = as_named_tuple(CartPoleParams())
        >>> constants.tau, type(constants.kinematics_integrator).__name__
        (0.02, 'Choice')
    """
    names = [field.name for field in dataclasses.fields(params)]
    tuple_type = collections.namedtuple(f"{type(params).__name__}Tuple", names)  # type: ignore[misc]
    values = [getattr(params, name) for name in names]
    return tuple_type(*(Choice(v) if isinstance(v, str) else v for v in values))


_multiply_wide_compiled = numba.njit(_pcg64._multiply_wide)


@overload(_pcg64._multiply_wide)
def _multiply_wide(a: Any, b: Any) -> Any:
    def wide(a: Any, b: Any) -> Any:
        return _multiply_wide_compiled(a, b)

    return wide


_step = numba.njit(_pcg64.pcg64_step)
_output = numba.njit(_pcg64.pcg64_output)
_UNIT = 1.0 / 9007199254740992.0


@numba.njit(cache=True)
def compiled_draw_doubles(
    high: np.ndarray,
    low: np.ndarray,
    inc_high: np.ndarray,
    inc_low: np.ndarray,
    rows: np.ndarray,
    out: np.ndarray,
) -> None:
    """Fill ``out[j]`` with the next ``out.shape[1]`` doubles of stream ``rows[j]``."""
    for j in range(rows.shape[0]):
        row = rows[j]
        state_high, state_low = high[row], low[row]
        for column in range(out.shape[1]):
            state_high, state_low = _step(state_high, state_low, inc_high[row], inc_low[row])
            out[j, column] = (_output(state_high, state_low) >> np.uint64(11)) * _UNIT
        high[row], low[row] = state_high, state_low


@functools.cache
def compile_cartpole(params: Any, sutton_barto_reward: bool) -> Any:
    """Compile a cart-pole batch step from ``cartpole_step``, ``_terminated`` and ``_reward``.

    Compiled once per parameter set and reward flavour (the parameters are compile-time
    constants), then shared.

    Returns:
        ``advance(states, actions) -> (next_states, rewards, terminations)``; it raises
        ``ValueError`` for an action other than 0 or 1 (checked inside the compiled loop).

    Example:
        >>> from palaestra.envs.classic_control.dynamics.cartpole import CartPoleParams
        >>> advance = compile_cartpole(CartPoleParams(), False)
        >>> next_states, rewards, terminations = advance(np.zeros((2, 4)), np.array([0, 1]))
        >>> next_states[:, 1].round(4).tolist(), rewards.tolist()
        ([-0.1951, 0.1951], [1.0, 1.0])
    """
    constants = as_named_tuple(params)
    step = numba.njit(cartpole_step)
    terminated = numba.njit(cartpole_terminated)
    reward = numba.njit(cartpole_reward)

    @numba.njit
    def row_loop(states: np.ndarray, actions: np.ndarray) -> Any:
        count = states.shape[0]
        next_states = np.empty((4, count)).T
        rewards = np.empty(count)
        terminations = np.empty(count, dtype=np.bool_)
        for i in range(count):
            if actions[i] != 0 and actions[i] != 1:
                raise ValueError("action outside {0, 1}")
            state = step(states[i], actions[i], constants)
            ended = terminated(state, constants)
            for k in range(4):
                next_states[i, k] = state[k]
            terminations[i] = ended
            rewards[i] = reward(ended, sutton_barto_reward)
        return next_states, rewards, terminations

    def advance(states: np.ndarray, actions: np.ndarray) -> Any:
        try:
            return row_loop(states, actions)
        except ValueError as e:
            raise ValueError(
                f"Actions {actions.tolist()} are outside the action space of CartPole; each "
                "must be 0 (push left) or 1 (push right)."
            ) from e

    return advance


@functools.cache
def compile_acrobot(params: Any) -> Any:
    """Compile an acrobot batch step from ``acrobot_step``, ``_terminated`` and ``_reward``.

    Compiled once per parameter set (the parameters are compile-time constants), then shared.
    The torques come in computed (with their noise), so the loop draws nothing.

    Returns:
        ``advance(states, torques) -> (next_states, rewards, terminations)``.

    Example:
        >>> from palaestra.envs.classic_control.dynamics.acrobot import AcrobotParams
        >>> advance = compile_acrobot(AcrobotParams())
        >>> next_states, rewards, terminations = advance(np.zeros((2, 4)), np.array([0.0, 1.0]))
        >>> next_states[:, 3].round(4).tolist(), rewards.tolist()
        ([0.0, 0.3345], [-1.0, -1.0])
    """
    constants = as_named_tuple(params)
    step = numba.njit(acrobot_step)
    terminated = numba.njit(acrobot_terminated)
    reward = numba.njit(acrobot_reward)

    @numba.njit
    def advance(states: np.ndarray, torques: np.ndarray) -> Any:
        count = states.shape[0]
        next_states = np.empty((4, count)).T
        rewards = np.empty(count)
        terminations = np.empty(count, dtype=np.bool_)
        for i in range(count):
            state = step(states[i], torques[i], constants)
            ended = terminated(state, constants)
            for k in range(4):
                next_states[i, k] = state[k]
            terminations[i] = ended
            rewards[i] = reward(ended)
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
            return _as_torque(torque.value**exponent)

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
def compile_pendulum(params: Any) -> Any:
    """Compile a pendulum batch step from ``pendulum_step`` and ``pendulum_reward``.

    Compiled once per parameter set (the parameters are compile-time constants), then shared.

    Returns:
        ``advance(states, torques) -> (next_states, rewards)`` for float32 clipped torques
        (see ``pendulum_torque``); each reward is that of the state before the step.

    Example:
        >>> from palaestra.envs.classic_control.dynamics.pendulum import PendulumParams
        >>> advance = compile_pendulum(PendulumParams())
        >>> next_states, rewards = advance(np.zeros((1, 2)), np.array([2.0], dtype=np.float32))
        >>> next_states.tolist(), rewards.round(4).tolist()
        ([[0.015, 0.3]], [-0.004])
    """
    constants = as_named_tuple(params)
    step = numba.njit(pendulum_step)
    reward = numba.njit(pendulum_reward)

    @numba.njit
    def advance(states: np.ndarray, torques: np.ndarray) -> Any:
        count = states.shape[0]
        next_states = np.empty((2, count)).T
        rewards = np.empty(count)
        for i in range(count):
            torque = _as_torque(torques[i])
            rewards[i] = reward(states[i], torque, constants)
            state = step(states[i], torque, constants)
            next_states[i, 0] = state[0]
            next_states[i, 1] = state[1]
        return next_states, rewards

    return advance


@numba.njit(cache=True)
def compiled_close_step(
    rewards: np.ndarray,
    terminations: np.ndarray,
    elapsed: np.ndarray,
    restarting: np.ndarray,
    max_steps: int,
) -> Any:
    """:func:`~palaestra.envs.classic_control.vector._bookkeeping.close_step` in one pass.

    ``restarting`` is a mask (all False when no row restarts).
    """
    count = rewards.shape[0]
    truncations = np.empty(count, dtype=np.bool_)
    ended = np.empty(count, dtype=np.bool_)
    ended_rows = np.empty(count, dtype=np.int64)
    ended_count = 0
    for i in range(count):
        if restarting[i]:
            rewards[i] = 0.0
            terminations[i] = False
            elapsed[i] = 0
        else:
            elapsed[i] += 1
        truncations[i] = elapsed[i] >= max_steps
        ended[i] = terminations[i] or truncations[i]
        if ended[i]:
            ended_rows[ended_count] = i
            ended_count += 1
    return truncations, ended, ended_rows[:ended_count]
