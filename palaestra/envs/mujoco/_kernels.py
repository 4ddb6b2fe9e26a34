"""Compiled step outcomes of the batched MuJoCo tasks (numba), equal bit for bit to numpy's.

A batched :class:`~palaestra.envs.mujoco.vector.MujocoVectorEnv` computes the whole batch's
observations and rewards after each physics step. In numpy that is some forty small array
operations, each paying numpy's call overhead (tens of microseconds per step at eight
sub-envs, all on one core while the stepping threads wait); a kernel here does the same
arithmetic in one call. Every number equals the numpy hooks' (:mod:`palaestra.envs.mujoco._task`):
the same IEEE operations in the same order, sums included, which numpy adds pairwise
(eight running sums, combined as ``((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))``, then the rest in
turn); the tests compare both on random and extreme inputs.

The kernels compile on first use (``cache=True`` keeps them on disk); numba is optional:
without it the numpy hooks run.

Example:
    >>> import numpy as np
    >>> float(square_sum_of_row(np.arange(10.0), 0, 10, 0.0))  # 0 + 1 + 4 + ... + 81
    285.0
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

__all__ = [
    "PAIRWISE_LIMIT",
    "ant_outcome",
    "half_cheetah_outcome",
    "humanoid_outcome",
    "square_sum_of_row",
]

# The longest sum numpy adds in one block of eight running sums (its PW_BLOCKSIZE); longer
# ones it splits recursively, which the kernels do not: such rows take the numpy hooks.
PAIRWISE_LIMIT = 128


@numba.njit(cache=True, nogil=True)
def square_sum_of_row(values: Any, start: int, count: int, zero: Any) -> Any:
    """Sum of the squares of ``values[start:start + count]`` as numpy's pairwise sum adds them.

    ``values`` is a flat array; ``zero`` is a zero of its dtype (the sums' type);
    ``count`` is at most :data:`PAIRWISE_LIMIT`.
    """
    if count < 8:
        total = zero
        for index in range(start, start + count):
            total += values[index] * values[index]
        return total
    r0 = values[start] * values[start]
    r1 = values[start + 1] * values[start + 1]
    r2 = values[start + 2] * values[start + 2]
    r3 = values[start + 3] * values[start + 3]
    r4 = values[start + 4] * values[start + 4]
    r5 = values[start + 5] * values[start + 5]
    r6 = values[start + 6] * values[start + 6]
    r7 = values[start + 7] * values[start + 7]
    index = start + 8
    blocks_end = start + count - count % 8
    while index < blocks_end:
        r0 += values[index] * values[index]
        r1 += values[index + 1] * values[index + 1]
        r2 += values[index + 2] * values[index + 2]
        r3 += values[index + 3] * values[index + 3]
        r4 += values[index + 4] * values[index + 4]
        r5 += values[index + 5] * values[index + 5]
        r6 += values[index + 6] * values[index + 6]
        r7 += values[index + 7] * values[index + 7]
        index += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while index < start + count:
        total += values[index] * values[index]
        index += 1
    return total


@numba.njit(cache=True, nogil=True, inline="always")
def _clipped(value: float, low: float, high: float) -> float:
    """``np.minimum(np.maximum(value, low), high)``: a NaN passes through both."""
    if not (value >= low or value != value):
        value = low
    if not (value <= high or value != value):
        value = high
    return value


@numba.njit(cache=True, nogil=True)
def ant_outcome(
    row_ids: Any,
    qpos: Any,
    qvel: Any,
    cfrc_ext: Any,
    main_xy: Any,
    before: Any,
    actions: Any,
    settings: Any,
    ctrl_weight: Any,
    zero: Any,
    skipped: int,
    with_forces: bool,
    terminate: bool,
    observations: Any,
    terms: Any,
    ctrl_rewards: Any,
    flags: Any,
) -> None:
    """Ant-v5's step outcome for rows ``row_ids``, written into the outputs' rows.

    Args:
        row_ids: the rows to compute, an int64 array (other rows are left as they are).
        qpos: ``(n, nq)`` positions after the step.
        qvel: ``(n, nv)`` velocities after the step.
        cfrc_ext: ``(n, nbody, 6)`` contact forces (C-contiguous).
        main_xy: ``(n, 2)`` main body x, y after the step.
        before: ``(n, 2)`` main body x, y before the step.
        actions: ``(n, nu)`` actions (C-contiguous float32 or float64).
        settings: float64 ``dt``, forward weight, healthy reward, contact cost weight,
            healthy z low and high, contact force low and high.
        ctrl_weight: the control cost weight, as the actions' dtype.
        zero: a zero of the actions' dtype.
        skipped: leading ``qpos`` entries left out of the observation.
        with_forces: whether the clipped forces of bodies 1.. end the observation.
        terminate: ``terminate_when_unhealthy``.
        observations: ``(n, size)`` output.
        terms: ``(8, n)`` output: x and y velocity, forward and survival reward, reward,
            negated contact cost, x and y position (``qpos[:, 0:2]``).
        ctrl_rewards: ``(n,)`` output of the actions' dtype: the negated control costs.
        flags: ``(2, n)`` boolean output: healthy, terminated.
    """
    dt, forward_weight, healthy_reward = settings[0], settings[1], settings[2]
    contact_weight, z_low, z_high = settings[3], settings[4], settings[5]
    force_low, force_high = settings[6], settings[7]
    rows, nq = qpos.shape
    nv = qvel.shape[1]
    force_count = cfrc_ext.shape[1] * 6
    flat_forces = cfrc_ext.reshape(rows, force_count)
    nu = actions.shape[1]
    flat_actions = actions.reshape(rows * nu)
    clipped = np.empty(force_count)
    for row in row_ids:
        out = observations[row]
        column = 0
        for index in range(skipped, nq):
            out[column] = qpos[row, index]
            column += 1
        for index in range(nv):
            out[column] = qvel[row, index]
            column += 1
        for index in range(force_count):
            clipped[index] = _clipped(flat_forces[row, index], force_low, force_high)
        if with_forces:
            for index in range(6, force_count):
                out[column] = clipped[index]
                column += 1
        finite = True
        for index in range(nq):
            if not np.isfinite(qpos[row, index]):
                finite = False
        for index in range(nv):
            if not np.isfinite(qvel[row, index]):
                finite = False
        z = qpos[row, 2]
        healthy = finite and z_low <= z and z <= z_high
        x_velocity = (main_xy[row, 0] - before[row, 0]) / dt
        y_velocity = (main_xy[row, 1] - before[row, 1]) / dt
        forward_reward = x_velocity * forward_weight
        survive_reward = (1.0 if healthy else 0.0) * healthy_reward
        ctrl_cost = ctrl_weight * square_sum_of_row(flat_actions, row * nu, nu, zero)
        contact_cost = contact_weight * square_sum_of_row(clipped, 0, force_count, 0.0)
        terms[0, row] = x_velocity
        terms[1, row] = y_velocity
        terms[2, row] = forward_reward
        terms[3, row] = survive_reward
        terms[4, row] = (forward_reward + survive_reward) - (np.float64(ctrl_cost) + contact_cost)
        terms[5, row] = -contact_cost
        terms[6, row] = qpos[row, 0]
        terms[7, row] = qpos[row, 1]
        ctrl_rewards[row] = -ctrl_cost
        flags[0, row] = healthy
        flags[1, row] = (not healthy) and terminate


@numba.njit(cache=True, nogil=True)
def half_cheetah_outcome(
    row_ids: Any,
    qpos: Any,
    qvel: Any,
    before: Any,
    actions: Any,
    settings: Any,
    ctrl_weight: Any,
    zero: Any,
    skipped: int,
    observations: Any,
    terms: Any,
    ctrl_rewards: Any,
) -> None:
    """HalfCheetah-v5's step outcome for rows ``row_ids``, written into the outputs' rows.

    Args:
        row_ids: the rows to compute, an int64 array (other rows are left as they are).
        qpos: ``(n, nq)`` positions after the step.
        qvel: ``(n, nv)`` velocities after the step.
        before: ``(n,)`` x positions before the step.
        actions: ``(n, nu)`` actions (C-contiguous float32 or float64).
        settings: float64 ``dt`` and forward weight.
        ctrl_weight: the control cost weight, as the actions' dtype.
        zero: a zero of the actions' dtype.
        skipped: leading ``qpos`` entries left out of the observation.
        observations: ``(n, size)`` output.
        terms: ``(4, n)`` output: x position, x velocity, forward reward, reward.
        ctrl_rewards: ``(n,)`` output of the actions' dtype: the negated control costs.
    """
    dt, forward_weight = settings[0], settings[1]
    rows, nq = qpos.shape
    nv = qvel.shape[1]
    nu = actions.shape[1]
    flat_actions = actions.reshape(rows * nu)
    for row in row_ids:
        out = observations[row]
        column = 0
        for index in range(skipped, nq):
            out[column] = qpos[row, index]
            column += 1
        for index in range(nv):
            out[column] = qvel[row, index]
            column += 1
        x_position = qpos[row, 0]
        x_velocity = (x_position - before[row]) / dt
        forward_reward = forward_weight * x_velocity
        ctrl_cost = ctrl_weight * square_sum_of_row(flat_actions, row * nu, nu, zero)
        terms[0, row] = x_position
        terms[1, row] = x_velocity
        terms[2, row] = forward_reward
        terms[3, row] = forward_reward - np.float64(ctrl_cost)
        ctrl_rewards[row] = -ctrl_cost


@numba.njit(cache=True, nogil=True, inline="always")
def _copy_tail(source: Any, row: int, start: int, out: Any, column: int) -> int:
    """Copy ``source[row]`` flattened, from flat index ``start``, to ``out[column:]``."""
    flat = source[row].reshape(source[row].size)
    for index in range(start, flat.size):
        out[column] = flat[index]
        column += 1
    return column


@numba.njit(cache=True, nogil=True)
def humanoid_outcome(
    row_ids: Any,
    qpos: Any,
    qvel: Any,
    cinert: Any,
    cvel: Any,
    qfrc_actuator: Any,
    cfrc_ext: Any,
    ctrl: Any,
    settings: Any,
    skipped: int,
    parts: Any,
    terminate: bool,
    observations: Any,
    terms: Any,
    flags: Any,
) -> None:
    """Humanoid-v5's observations and the step's terms that need no mass centre, per row.

    Args:
        row_ids: the rows to compute, an int64 array (other rows are left as they are).
        qpos: ``(n, nq)`` positions after the step.
        qvel: ``(n, nv)`` velocities after the step.
        cinert: ``(n, nbody, 10)`` body inertias (C-contiguous rows).
        cvel: ``(n, nbody, 6)`` body velocities (C-contiguous rows).
        qfrc_actuator: ``(n, nv)`` actuator forces.
        cfrc_ext: ``(n, nbody, 6)`` contact forces (C-contiguous rows).
        ctrl: ``(n, nu)`` controls as applied (float64, C-contiguous).
        settings: float64 control weight, contact weight, contact cost low and high,
            healthy reward, healthy z low and high.
        skipped: leading ``qpos`` entries left out of the observation.
        parts: four flags: cinert, cvel, qfrc_actuator and cfrc_ext in the observation.
        terminate: ``terminate_when_unhealthy``.
        observations: ``(n, size)`` output.
        terms: ``(6, n)`` output: survival reward, negated control cost, negated contact
            cost, both costs' sum, x and y position.
        flags: ``(2, n)`` boolean output: healthy, terminated.
    """
    ctrl_weight, contact_weight = settings[0], settings[1]
    cost_low, cost_high, healthy_reward = settings[2], settings[3], settings[4]
    z_low, z_high = settings[5], settings[6]
    nq = qpos.shape[1]
    nv = qvel.shape[1]
    nu = ctrl.shape[1]
    nbody = cfrc_ext.shape[1]
    for row in row_ids:
        out = observations[row]
        column = 0
        for index in range(skipped, nq):
            out[column] = qpos[row, index]
            column += 1
        for index in range(nv):
            out[column] = qvel[row, index]
            column += 1
        if parts[0]:
            column = _copy_tail(cinert, row, 10, out, column)
        if parts[1]:
            column = _copy_tail(cvel, row, 6, out, column)
        if parts[2]:
            for index in range(6, nv):
                out[column] = qfrc_actuator[row, index]
                column += 1
        if parts[3]:
            column = _copy_tail(cfrc_ext, row, 6, out, column)
        z = qpos[row, 2]
        healthy = z_low < z and z < z_high
        survive_reward = (1.0 if healthy else 0.0) * healthy_reward
        ctrl_cost = ctrl_weight * square_sum_of_row(ctrl[row], 0, nu, 0.0)
        contact_cost = contact_weight * square_sum_of_row(
            cfrc_ext[row].reshape(nbody * 6), 0, nbody * 6, 0.0
        )
        contact_cost = _clipped(contact_cost, cost_low, cost_high)
        terms[0, row] = survive_reward
        terms[1, row] = -ctrl_cost
        terms[2, row] = -contact_cost
        terms[3, row] = ctrl_cost + contact_cost
        terms[4, row] = qpos[row, 0]
        terms[5, row] = qpos[row, 1]
        flags[0, row] = healthy
        flags[1, row] = (not healthy) and terminate
