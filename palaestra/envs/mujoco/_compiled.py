"""MuJoCo tasks under the numba accelerator: the tasks' own outcome functions, compiled per row.

A task's step outcome is one pure function, ``outcome(settings, data, before, action)`` (see
:class:`~palaestra.envs.mujoco._task.MujocoTaskEnv`), that the single environment runs on its
``MjData`` fields, the numpy batch on ``(num_envs, ...)`` arrays of them, and that
:func:`compile_outcome` compiles, as it is, into a loop over rows: the stepping threads run
that loop on their rows once stepped, with the GIL released. Nothing of a task is written
twice; what numba cannot take as numpy runs it gets a compiled stand-in here, for the array
helpers of :mod:`palaestra.envs.mujoco._task` only, each rounding as numpy does on one row:

- :func:`~palaestra.envs.mujoco._task.square_sum` adds pairwise, as numpy's ``add.reduce``
  (eight running sums, for runs of at most 128: longer ones keep the numpy path);
- :func:`~palaestra.envs.mujoco._task.norm` accumulates fused multiply-adds from zero, as
  ``np.vecdot`` does here (tested against it);
- :func:`~palaestra.envs.mujoco._task.control_cost` of float32 actions multiplies in
  float32, as numpy does with a Python weight (NEP 50);
- :func:`~palaestra.envs.mujoco._task.clip` lets NaN through, as ``np.minimum(np.maximum())``;
- :func:`~palaestra.envs.mujoco._humanoid.mass_center_of` adds the bodies in turn, as a
  numpy reduction over an outer axis does.

The functions compile through palaestra's pipeline (:mod:`palaestra.vector.native.compiled`),
so ``x ** 2`` rounds as Python's. The batched env checks the compiled outcome once per kind
of settings against the numpy one (dtypes and values) and keeps the numpy path where they
differ. Importing this module needs numba (the ``fast`` extra).

Example:
    >>> from palaestra.envs.mujoco.half_cheetah_v5 import HalfCheetahEnv
    >>> rows = compile_outcome(HalfCheetahEnv.step_outcome, HalfCheetahEnv.outcome_helpers)
    >>> callable(rows)
    True
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba.core import types
from numba.extending import overload

from palaestra.envs.mujoco import _humanoid, _task
from palaestra.vector.native.compiled import exact_power, njit, register_jitable

__all__ = ["PAIRWISE_BLOCK", "compile_outcome", "pairwise_square_sum"]

# numpy's PW_BLOCKSIZE: the longest run it adds with eight running sums.
PAIRWISE_BLOCK = 128


@numba.njit(cache=True, nogil=True, inline="always")
def _term(values: Any, index: int, squares: bool) -> Any:
    return values[index] * values[index] if squares else values[index]


@numba.njit(cache=True, nogil=True)
def _block_sum(values: Any, count: int, zero: Any, squares: bool) -> Any:
    """Sum ``values[:count]`` pairwise as numpy does (or their squares), ``count <= 128``."""
    if count < 8:
        total = zero
        for index in range(count):
            total += _term(values, index, squares)
        return total
    r = np.empty(8, dtype=values.dtype)
    for k in range(8):
        r[k] = _term(values, k, squares)
    index = 8
    blocks_end = count - count % 8
    while index < blocks_end:
        for k in range(8):
            r[k] += _term(values, index + k, squares)
        index += 8
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while index < count:
        total += _term(values, index, squares)
        index += 1
    return total


@numba.njit(cache=True, nogil=True)
def pairwise_square_sum(values: Any, zero: Any) -> Any:
    """Sum the squares of a flat array as numpy's pairwise ``add.reduce`` adds them.

    Up to :data:`PAIRWISE_BLOCK` values (the tasks' sums are shorter); a longer run raises
    ``ValueError``, so that the batched env's check keeps the numpy path for it. ``zero``
    is a zero of the values' dtype.

    Example:
        >>> float(pairwise_square_sum(np.arange(10.0), 0.0))
        285.0
    """
    if values.size > PAIRWISE_BLOCK:
        raise ValueError("a sum longer than one pairwise block")
    return _block_sum(values, values.size, zero, True)


@numba.njit(cache=True, nogil=True)
def _mass_center(mass: Any, xipos: Any) -> Any:
    """:func:`~palaestra.envs.mujoco._humanoid.mass_center_of` of one row."""
    if mass.size > PAIRWISE_BLOCK:
        raise ValueError("a sum longer than one pairwise block")
    x, y = mass[0] * xipos[0, 0], mass[0] * xipos[0, 1]
    for body in range(1, mass.size):
        x += mass[body] * xipos[body, 0]
        y += mass[body] * xipos[body, 1]
    total = _block_sum(mass, mass.size, 0.0, False)
    center = np.empty(2)
    center[0], center[1] = x / total, y / total
    return center


@overload(_humanoid.mass_center_of)
def _mass_center_of(mass: Any, xipos: Any) -> Any:
    def center(mass: Any, xipos: Any) -> Any:
        return _mass_center(mass, xipos)

    return center


@numba.njit(cache=True, nogil=True, fastmath={"contract"})
def _self_dot(values: Any) -> float:
    """``np.vecdot(v, v)`` of one row: fused multiply-adds from zero, as numpy's loop."""
    total = 0.0
    for value in values.ravel():
        total += value * value
    return total


@overload(_task.col)
def _col(values: Any, index: Any) -> Any:
    def column(values: Any, index: Any) -> Any:
        return values[index]

    return column


@overload(_task.norm)
def _norm(vectors: Any) -> Any:
    def length(vectors: Any) -> Any:
        return np.sqrt(_self_dot(vectors))

    return length


@overload(_task.square_sum)
def _square_sum(values: Any, axes: Any = 1) -> Any:
    def total(values: Any, axes: Any = 1) -> Any:
        flat = np.ascontiguousarray(values).ravel()
        return pairwise_square_sum(flat, flat.dtype.type(0))

    return total


@overload(_task.control_cost)
def _control_cost(weight: Any, action: Any) -> Any:
    if isinstance(action, types.Array) and action.dtype == types.float32:
        # numpy rounds a Python weight to float32 first (NEP 50).
        def cost_float32(weight: Any, action: Any) -> Any:
            return np.float32(weight) * _task.square_sum(action)

        return cost_float32

    def cost(weight: Any, action: Any) -> Any:
        return weight * _task.square_sum(action)

    return cost


@overload(_task.clip)
def _clip(values: Any, low: Any, high: Any) -> Any:
    if isinstance(values, types.Array):

        def clipped_array(values: Any, low: Any, high: Any) -> Any:
            out = np.empty(values.shape, dtype=values.dtype)
            flat, source = out.ravel(), np.ascontiguousarray(values).ravel()
            for index in range(flat.size):
                flat[index] = _clip_one(source[index], low, high)
            return out

        return clipped_array

    def clipped(values: Any, low: Any, high: Any) -> Any:
        return _clip_one(values, low, high)

    return clipped


@numba.njit(cache=True, nogil=True, inline="always")
def _clip_one(value: Any, low: Any, high: Any) -> Any:
    """``np.minimum(np.maximum(value, low), high)`` of one number: NaN passes through."""
    if not (value >= low or value != value):
        value = low
    if not (value <= high or value != value):
        value = high
    return value


@overload(_task.flat_tail)
def _flat_tail(values: Any, axes: Any = 2) -> Any:
    def flattened(values: Any, axes: Any = 2) -> Any:
        return np.ascontiguousarray(values).ravel()

    return flattened


@overload(_task.pow_square)
def _pow_square(values: Any) -> Any:
    def square(values: Any) -> Any:
        return exact_power(values, 2)

    return square


@overload(_task.all_along_last)
def _all_along_last(values: Any) -> Any:
    def every(values: Any) -> Any:
        return values.all()

    return every


@overload(_task.as_int)
def _as_int(values: Any) -> Any:
    def integer(values: Any) -> Any:
        return np.int64(values)

    return integer


def row_of(data: Any, index: int) -> Any:
    """Return row ``index`` of every field of ``data`` (compiled code only)."""
    raise NotImplementedError("row_of runs in compiled code only")


@overload(row_of, inline="always")
def _row_of(data: Any, index: Any) -> Any:
    fields = ", ".join(f"data[{k}][index]" for k in range(len(data.types)))
    namespace = {"fields_class": data.instance_class}
    # Annotated as the stub is (numba compares the signatures, annotations included).
    source = (
        "from __future__ import annotations\n"
        f"def rows(data: Any, index: Any) -> Any:\n    return fields_class({fields})\n"
    )
    exec(source, namespace)
    return namespace["rows"]


def item(values: Any, index: int) -> Any:
    """Return ``values[index]``, or ``None`` for ``None`` (compiled code only)."""
    raise NotImplementedError("item runs in compiled code only")


@overload(item, inline="always")
def _item(values: Any, index: Any) -> Any:
    if isinstance(values, (types.NoneType, types.Omitted)) or values is None:

        def nothing(values: Any, index: Any) -> Any:
            return None

        return nothing

    def indexed(values: Any, index: Any) -> Any:
        return values[index]

    return indexed


def store(outputs: Any, index: int, values: Any) -> None:
    """Write ``values[k]`` into ``outputs[k][index]`` for every k (compiled code only)."""
    raise NotImplementedError("store runs in compiled code only")


@overload(store, inline="always")
def _store(outputs: Any, index: Any, values: Any) -> Any:
    lines = "".join(f"    outputs[{k}][index] = values[{k}]\n" for k in range(len(values)))
    namespace: dict[str, Any] = {}
    head = (
        "from __future__ import annotations\n"
        "def write(outputs: Any, index: Any, values: Any) -> Any:\n"
    )
    exec(head + (lines or "    pass\n"), namespace)
    return namespace["write"]


_registered: set[Callable] = set()


# The row loop of one task, written for each outcome function: it calls the outcome by a
# global name of this module, so that numba caches the loop on disk (a loop that took the
# outcome as an argument or a closure cell would be keyed by a per-process object).
_ROWS_SOURCE = """
def {loop}(row_ids, settings, data, before, actions, observations, rewards, terminations, infos):
    for position in range(row_ids.shape[0]):
        index = row_ids[position]
        observation, reward, terminated, info = {outcome}(
            settings, row_of(data, index), item(before, index), actions[index]
        )
        observations[index, :] = observation
        rewards[index] = reward
        terminations[index] = terminated
        store(infos, index, info)
"""


@functools.cache
def compile_outcome(outcome: Callable, helpers: tuple[Callable, ...] = ()) -> Callable:
    """Compile a task's step outcome function into a loop over rows (cached on disk).

    Args:
        outcome: the task's ``outcome(settings, data, before, action)``, returning the
            observation, reward, termination and a tuple of info values.
        helpers: the task's own functions that ``outcome`` calls (compiled with it).

    Returns:
        ``rows(row_ids, settings, data, before, actions, observations, rewards,
        terminations, infos)``: computes rows ``row_ids`` of the outcome of ``data`` (a
        named tuple of ``(num_envs, ...)`` fields) into the rows of the outputs (``infos``
        a tuple of one array per info value). It releases the GIL.
    """
    for helper in helpers:
        if helper not in _registered:
            register_jitable(helper)
            _registered.add(helper)
    name = f"{outcome.__module__}_{outcome.__qualname__}".replace(".", "_")
    globals()[f"_outcome_{name}"] = njit(outcome, nogil=True, cache=True)
    source = _ROWS_SOURCE.format(loop=f"_rows_{name}", outcome=f"_outcome_{name}")
    exec(compile(source, __file__, "exec"), globals())
    return njit(globals()[f"_rows_{name}"], nogil=True, cache=True)
