"""Step and reset infos of a natively batched env, batched as a sync vector env batches them.

A :class:`~palaestra.vector.native.NativeVectorEnv` whose hooks give infos (its
``gives_infos``) hands its ``advance``'s per-row infos and its ``reset_infos`` here: the
results equal, key for key and row for row, what ``SyncVectorEnv`` builds from each
sub-environment's own info dict with :func:`~palaestra.vector.vector_env.add_info`, in every
autoreset mode (a restarted row carries its reset info instead of its step info; in
``SAME_STEP`` an ended row carries ``final_obs``, ``final_info`` and its reset info).

Example:
    >>> import numpy as np
    >>> infos = batched_infos({"x": np.array([1.0, 2.0])}, 2)
    >>> restart_rows_info(infos, {"y": np.array([5.0])}, np.array([1]), 2)
    >>> infos
    {'x': array([1., 0.]), '_x': array([ True, False]), 'y': array([0., 5.]), '_y': array([False,  True])}
"""  # noqa: E501

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.vector.vector_env import add_info, add_rows_info

__all__ = ["batched_infos", "move_to_final", "restart_rows_info"]


def batched_infos(info: dict[str, Any], num_envs: int) -> dict[str, Any]:
    """Batch a step's infos (one value per row for every key, all rows stepped).

    A value that is a fresh array of its own (the result of the step's arithmetic, met once)
    is kept; anything else (views of the env's state, scalars) is copied, so that the infos
    handed out do not change when the batch steps on. The masks are the rows of one array,
    allocated at once.

    Example:
        >>> batched_infos({"x": np.array([1.0, 2.0])}, 2)
        {'x': array([1., 2.]), '_x': array([ True,  True])}
    """
    infos: dict[str, Any] = {}
    masks = np.ones((len(info), num_envs), dtype=np.bool_)
    kept: set[int] = set()
    for mask, (key, value) in zip(masks, info.items()):
        if (
            type(value) is np.ndarray
            and value.base is None
            and value.shape[:1] == (num_envs,)
            and id(value) not in kept
        ):
            kept.add(id(value))
        else:
            value = np.array(value)
        infos[key] = value
        infos[f"_{key}"] = mask
    return infos


def _clear_rows(infos: dict[str, Any], rows: np.ndarray, keep: Any = ()) -> None:
    """Drop ``rows`` from every key of a batched info (value zeroed, mask cleared).

    A key that no row supplies any more is dropped; keys in ``keep`` are left alone.
    """
    for key in [key for key in infos if not key.startswith("_") and key not in keep]:
        mask = infos[f"_{key}"]
        mask[rows] = False
        if not mask.any():
            del infos[key], infos[f"_{key}"]
        else:
            infos[key][rows] = 0


def restart_rows_info(
    infos: dict[str, Any], reset_info: dict[str, Any], rows: np.ndarray, num_envs: int
) -> None:
    """Give ``rows`` their reset info (values batched over ``rows``) instead of their step info.

    The same result as clearing the rows, then :func:`add_rows_info` of their reset infos.
    """
    # Unless every row restarts, add_rows_info below overwrites the rows' values of the keys
    # that reset_info has, and their masks stay.
    _clear_rows(infos, rows, keep=() if len(rows) == num_envs else reset_info)
    add_rows_info(infos, reset_info, rows, num_envs)


def _row_of_batch(infos: dict[str, Any], row: int) -> dict[str, Any]:
    """Return the info one sub-env's own step returned, out of a batched info."""
    single = {}
    for key, value in infos.items():
        if not key.startswith("_") and infos[f"_{key}"][row]:
            item = value[row]
            single[key] = item.copy() if isinstance(item, np.ndarray) else item
    return single


def move_to_final(
    infos: dict[str, Any], observations: np.ndarray, ended_rows: np.ndarray, num_envs: int
) -> None:
    """Move each ended row's step info and observation to ``final_info`` and ``final_obs``.

    In place, before the rows reset in a ``SAME_STEP`` step (their reset infos are then
    added with :func:`add_rows_info`), as a sync vector env builds that step's infos.
    """
    finals = [(observations[row].copy(), _row_of_batch(infos, row)) for row in ended_rows]
    _clear_rows(infos, ended_rows)
    for row, (final_obs, final_info) in zip(ended_rows, finals):
        add_info(infos, {"final_obs": final_obs, "final_info": final_info}, int(row), num_envs)
