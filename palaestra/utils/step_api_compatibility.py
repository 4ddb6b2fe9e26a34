"""Convert ``step`` results between the old ``done`` API and ``terminated``/``truncated``.

Old code (Gym < 0.26) returns ``(obs, reward, done, info)`` and marks a time-limit cut with
``info["TimeLimit.truncated"]``; the current API returns ``(obs, reward, terminated,
truncated, info)``. These helpers translate either way, for single and vector envs (vector
infos may be a dict of arrays or a list of per-env dicts).

Example:
    >>> convert_to_terminated_truncated_step_api((0, 1.0, True, {"TimeLimit.truncated": True}))
    (0, 1.0, False, True, {})
    >>> convert_to_done_step_api((0, 1.0, False, True, {}))
    (0, 1.0, True, {'TimeLimit.truncated': True})
"""

from __future__ import annotations

from typing import Any, SupportsFloat, TypeVar

import numpy as np

__all__ = [
    "DoneStepType",
    "TerminatedTruncatedStepType",
    "convert_to_done_step_api",
    "convert_to_terminated_truncated_step_api",
    "step_api_compatibility",
]

ObsType = TypeVar("ObsType")

DoneStepType = tuple[
    ObsType, SupportsFloat | np.ndarray, bool | np.ndarray, dict[str, Any] | list[dict[str, Any]]
]
"""``(obs, reward, done, info)``, the step result of the old API."""

TerminatedTruncatedStepType = tuple[
    ObsType,
    SupportsFloat | np.ndarray,
    bool | np.ndarray,
    bool | np.ndarray,
    dict[str, Any] | list[dict[str, Any]],
]
"""``(obs, reward, terminated, truncated, info)``, the step result of the current API."""

_TRUNCATED_KEY = "TimeLimit.truncated"


def _check_length(step_returns: tuple, allowed: tuple[int, ...]) -> None:
    assert len(step_returns) in allowed, (
        f"expected a step result of {' or '.join(map(str, allowed))} items, "
        f"got {len(step_returns)}: {step_returns!r}"
    )


def convert_to_terminated_truncated_step_api(
    step_returns: DoneStepType | TerminatedTruncatedStepType, is_vector_env: bool = False
) -> TerminatedTruncatedStepType:
    """Turn an old-API step result into ``(obs, reward, terminated, truncated, info)``.

    ``info["TimeLimit.truncated"]`` (popped from the info) becomes ``truncated``; a ``done``
    that was not a truncation becomes ``terminated``. A 5-tuple is returned unchanged.

    Args:
        step_returns: the step result, with 4 or 5 items.
        is_vector_env: whether the result is batched (arrays of flags, vector infos).

    Raises:
        AssertionError: if ``step_returns`` has neither 4 nor 5 items.

    Example:
        >>> convert_to_terminated_truncated_step_api((0, 1.0, True, {}))
        (0, 1.0, True, False, {})
    """
    if len(step_returns) == 5:
        return step_returns
    _check_length(step_returns, (4, 5))
    observations, rewards, dones, infos = step_returns
    if not is_vector_env:
        truncated = infos.pop(_TRUNCATED_KEY, False)
        return observations, rewards, dones and not truncated, dones and truncated, infos
    if isinstance(infos, list):
        truncated = np.array([info.pop(_TRUNCATED_KEY, False) for info in infos])
    else:
        truncated = infos.pop(_TRUNCATED_KEY, np.zeros(len(dones), dtype=bool))
    terminated = np.logical_and(dones, np.logical_not(truncated))
    return observations, rewards, terminated, np.logical_and(dones, truncated), infos


def convert_to_done_step_api(
    step_returns: TerminatedTruncatedStepType | DoneStepType, is_vector_env: bool = False
) -> DoneStepType:
    """Turn a ``(obs, reward, terminated, truncated, info)`` result into the old ``done`` API.

    ``done = terminated or truncated``, and ``info["TimeLimit.truncated"]`` records a
    truncation that was not also a termination. A 4-tuple is returned unchanged.

    Args:
        step_returns: the step result, with 4 or 5 items.
        is_vector_env: whether the result is batched (arrays of flags, vector infos).

    Raises:
        AssertionError: if ``step_returns`` has neither 4 nor 5 items.

    Example:
        >>> convert_to_done_step_api((0, 1.0, True, True, {}))
        (0, 1.0, True, {'TimeLimit.truncated': False})
    """
    if len(step_returns) == 4:
        return step_returns
    _check_length(step_returns, (4, 5))
    observations, rewards, terminated, truncated, infos = step_returns
    if not is_vector_env:
        if terminated or truncated:
            infos[_TRUNCATED_KEY] = truncated and not terminated
        return observations, rewards, terminated or truncated, infos
    if isinstance(infos, list):
        for index, info in enumerate(infos):
            if terminated[index] or truncated[index]:
                info[_TRUNCATED_KEY] = truncated[index] and not terminated[index]
    dones = np.logical_or(terminated, truncated)
    if not isinstance(infos, list) and np.any(dones):
        infos[_TRUNCATED_KEY] = np.logical_and(truncated, np.logical_not(terminated))
    return observations, rewards, dones, infos


def step_api_compatibility(
    step_returns: TerminatedTruncatedStepType | DoneStepType,
    output_truncation_bool: bool = True,
    is_vector_env: bool = False,
) -> TerminatedTruncatedStepType | DoneStepType:
    """Return a step result in the API asked for, whichever API it came in.

    Args:
        step_returns: the step result, with 4 or 5 items.
        output_truncation_bool: return ``(obs, reward, terminated, truncated, info)`` when
            true (the default), else ``(obs, reward, done, info)``.
        is_vector_env: whether the result is batched.

    Raises:
        AssertionError: if ``step_returns`` has neither 4 nor 5 items.

    Example:
        >>> step_api_compatibility((0, 1.0, True, False, {}), output_truncation_bool=False)
        (0, 1.0, True, {'TimeLimit.truncated': False})
    """
    if output_truncation_bool:
        return convert_to_terminated_truncated_step_api(step_returns, is_vector_env)
    return convert_to_done_step_api(step_returns, is_vector_env)
