"""The optional numba accelerator: the shared dynamics functions, compiled row by row.

numba compiles the very functions the single environments run (their one-environment path,
on scalars) into a loop over the batch; nothing of the physics is written again here. What
numba cannot take as is gets a compiled stand-in registered with
:func:`numba.extending.overload`: the array helpers of the dynamics (``stack_components``
gives a tuple instead of an array, ``components`` unpacks a row or a tuple as it is,
``select`` and ``clip`` pick between scalars) and ``tuple.T``, so that ``x, v = state.T``
also unpacks a tuple state. The frozen parameter
dataclasses become named tuples with the same field names.

Importing this module needs numba (the ``fast`` extra).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
from typing import Any

import numba
import numpy as np
from numba.core import types
from numba.extending import overload, overload_attribute

from palaestra.envs.classic_control.dynamics import _arrays
from palaestra.envs.classic_control.dynamics.cartpole import (
    cartpole_reward,
    cartpole_step,
    cartpole_terminated,
)
from palaestra.envs.classic_control.vector import _pcg64

__all__ = ["compile_cartpole", "compiled_draw_doubles", "as_named_tuple", "ROW_LOOP_MAX_BATCH"]


@overload(_arrays.stack_components)
def _stack_components(*components: Any) -> Any:
    if isinstance(components[0], types.Array):

        def stack_columns(*components: Any) -> Any:
            out = np.empty((len(components), components[0].shape[0])).T
            for column in numba.literal_unroll(range(len(components))):
                out[:, column] = components[column]
            return out

        return stack_columns

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
    if isinstance(condition, types.Array):

        def where(condition: Any, if_true: Any, if_false: Any) -> Any:
            return np.where(condition, if_true, if_false)

        return where

    def pick(condition: Any, if_true: Any, if_false: Any) -> Any:
        return if_true if condition else if_false

    return pick


@overload(_arrays.clip)
def _clip(value: Any, low: Any, high: Any) -> Any:
    def limit(value: Any, low: Any, high: Any) -> Any:
        return min(max(value, low), high)

    return limit


@overload(abs)
def _array_abs(value: Any) -> Any:
    if isinstance(value, types.Array):

        def absolute(value: Any) -> Any:
            return np.abs(value)

        return absolute
    return None


@overload_attribute(types.UniTuple, "T")
def _tuple_transpose(state: Any) -> Any:
    def transpose(state: Any) -> Any:
        return state

    return transpose


def as_named_tuple(params: Any) -> Any:
    """Return a dataclass instance's fields as a named tuple that numba can read.

    Example:
        >>> from palaestra.envs.classic_control.dynamics.cartpole import CartPoleParams
        >>> as_named_tuple(CartPoleParams()).tau
        0.02
    """
    names = [field.name for field in dataclasses.fields(params)]
    tuple_type = collections.namedtuple(f"{type(params).__name__}Tuple", names)  # type: ignore[misc]
    return tuple_type(*(getattr(params, name) for name in names))


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


# Up to this batch size a loop over rows beats numba's whole-array expressions (whose
# temporaries cost a fixed overhead); above it the row loop's per-row parameter checks (a
# string comparison for the integrator) cost more.
ROW_LOOP_MAX_BATCH = 32
# Larger batches are computed in chunks of this many rows, whose temporaries stay in cache.
CHUNK_ROWS = 2048


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

    @numba.njit
    def in_chunks(states: np.ndarray, actions: np.ndarray) -> Any:
        count = states.shape[0]
        next_states = np.empty((4, count)).T
        rewards = np.empty(count)
        terminations = np.empty(count, dtype=np.bool_)
        for start in range(0, count, CHUNK_ROWS):
            stop = min(start + CHUNK_ROWS, count)
            if np.any((actions[start:stop] != 0) & (actions[start:stop] != 1)):
                raise ValueError("action outside {0, 1}")
            chunk = step(states[start:stop], actions[start:stop], constants)
            ended = terminated(chunk, constants)
            next_states[start:stop] = chunk
            rewards[start:stop] = reward(ended, sutton_barto_reward)
            terminations[start:stop] = ended
        return next_states, rewards, terminations

    def advance(states: np.ndarray, actions: np.ndarray) -> Any:
        try:
            if len(states) <= ROW_LOOP_MAX_BATCH:
                return row_loop(states, actions)
            return in_chunks(states, actions)
        except ValueError as e:
            raise ValueError(
                f"Actions {actions.tolist()} are outside the action space of CartPole; each "
                "must be 0 (push left) or 1 (push right)."
            ) from e

    return advance
