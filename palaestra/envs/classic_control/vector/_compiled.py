"""The optional numba accelerator: the shared dynamics functions, compiled row by row.

numba compiles the very functions the single environments run (their one-environment path,
on scalars) into a loop over the batch; nothing of the physics is written again here. What
numba cannot take as is gets a compiled stand-in registered with
:func:`numba.extending.overload`: the array helpers of the dynamics (``stack_components``
gives a tuple instead of an array, ``components`` unpacks a row or a tuple as it is,
``select`` and ``clip`` pick between scalars) and ``tuple.T``, so that ``x, v = state.T``
also unpacks a tuple state. The frozen parameter dataclasses become named tuples with the
same field names, their string fields :class:`Choice` values that numba compares at compile
time. A loop over rows keeps no batch-sized temporaries, so it stays in cache at any size.

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
from numba.core import types
from numba.core.imputils import lower_constant
from numba.extending import (
    models,
    overload,
    overload_attribute,
    register_jitable,
    register_model,
    typeof_impl,
)

from palaestra.envs.classic_control.dynamics import _arrays
from palaestra.envs.classic_control.dynamics import cartpole as _cartpole
from palaestra.envs.classic_control.dynamics.cartpole import (
    cartpole_reward,
    cartpole_step,
    cartpole_terminated,
)
from palaestra.envs.classic_control.vector import _pcg64

__all__ = [
    "compile_cartpole",
    "compiled_draw_doubles",
    "compiled_close_step",
    "as_named_tuple",
    "Choice",
]


# Helpers the dynamics functions call, compiled as they are wherever compiled code calls them.
for _helper in (_cartpole.cartpole_force, _cartpole.cartpole_next_components):
    register_jitable(_helper)


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
