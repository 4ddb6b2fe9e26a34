"""Argument handling shared by the sync and async vector envs: seeds, reset masks, spaces."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from palaestra.spaces import Space
from palaestra.spaces.utils import is_space_dtype_shape_equiv
from palaestra.vector.utils import batch_differing_spaces, batch_space, iterate
from palaestra.vector.vector_env import AutoresetMode

ObservationMode = str | tuple[Space[Any], Space[Any]]


def autoreset_mode_from(value: str | AutoresetMode) -> AutoresetMode:
    """Return ``value`` as an :class:`AutoresetMode` (given as the enum or its value string).

    Raises:
        ValueError: if ``value`` names no mode.

    Example:
        >>> autoreset_mode_from("Disabled")
        <AutoresetMode.DISABLED: 'Disabled'>
    """
    if isinstance(value, AutoresetMode):
        return value
    try:
        return AutoresetMode(value)
    except ValueError as e:
        valid = [mode.value for mode in AutoresetMode]
        raise ValueError(
            f"{value!r} is not a valid AutoresetMode; use an `AutoresetMode` member or one of "
            f"{valid}."
        ) from e


def seeds_per_env(seed: int | Sequence[int | None] | None, num_envs: int) -> list[int | None]:
    """Expand a vector ``reset`` seed to one seed per sub-environment.

    ``None`` gives ``None`` for each, an int ``s`` gives ``s, s + 1, ...``, a sequence is
    taken as is.

    Raises:
        ValueError: if a sequence's length is not ``num_envs``.

    Example:
        >>> seeds_per_env(7, 3)
        [7, 8, 9]
    """
    if seed is None:
        return [None] * num_envs
    if isinstance(seed, (int, np.integer)):
        return [int(seed) + i for i in range(num_envs)]
    seeds = list(seed)
    if len(seeds) != num_envs:
        raise ValueError(
            "If seeds are passed as a list the length must match "
            f"num_envs={num_envs} but got length={len(seeds)}."
        )
    return seeds


def split_reset_mask(
    options: dict[str, Any] | None, num_envs: int
) -> tuple[np.ndarray | None, dict[str, Any] | None]:
    """Take ``"reset_mask"`` out of reset ``options``, validated; the caller's dict is untouched.

    Returns:
        ``(mask or None, options without the mask)``.

    Raises:
        TypeError: if the mask is not a numpy array of dtype ``bool``.
        ValueError: if its shape is not ``(num_envs,)`` or it selects no sub-env.

    Example:
        >>> split_reset_mask({"reset_mask": np.array([True, False]), "x": 1}, 2)
        (array([ True, False]), {'x': 1})
    """
    if options is None or "reset_mask" not in options:
        return None, options
    mask = options["reset_mask"]
    rest = {key: value for key, value in options.items() if key != "reset_mask"}
    if not isinstance(mask, np.ndarray):
        raise TypeError(f"`options['reset_mask']` must be a numpy array, got {type(mask)}")
    if mask.shape != (num_envs,):
        raise ValueError(
            f"`options['reset_mask']` must have shape `({num_envs},)`, got {mask.shape}"
        )
    if mask.dtype != np.bool_:
        raise TypeError(f"`options['reset_mask']` must have `dtype=np.bool_`, got {mask.dtype}")
    if not np.any(mask):
        raise ValueError(
            "`options['reset_mask']` must contain a boolean array with at least one True "
            f"value, got reset_mask={mask}"
        )
    return mask, rest


def observation_spaces_for(
    mode: ObservationMode,
    first_space: Space[Any],
    all_spaces: Callable[[], list[Space[Any]]],
    num_envs: int,
) -> tuple[Space[Any], Space[Any]]:
    """Return ``(single_observation_space, observation_space)`` for an ``observation_mode``.

    Args:
        mode: ``"same"`` (``n`` copies of the first sub-env's space), ``"different"`` (the
            sub-envs' spaces batched with ``batch_differing_spaces``) or a pair
            ``(observation_space, single_observation_space)`` in Gymnasium's order.
        first_space: the first sub-env's observation space.
        all_spaces: returns every sub-env's observation space (only called for "different").
        num_envs: the number of sub-envs.

    Raises:
        TypeError: if a pair holds something other than two spaces.
        ValueError: for any other ``mode``.
    """
    if isinstance(mode, tuple) and len(mode) == 2:
        batched, single = mode
        if not isinstance(batched, Space) or not isinstance(single, Space):
            raise TypeError(
                "Expected both elements of observation_mode to be Spaces, got "
                f"{type(batched)} and {type(single)}"
            )
        return single, batched
    if isinstance(mode, str) and mode == "same":
        return first_space, batch_space(first_space, num_envs)
    if isinstance(mode, str) and mode == "different":
        return first_space, batch_differing_spaces(all_spaces())
    raise ValueError(
        "Invalid `observation_mode`, expected: 'same' or 'different' or tuple of single and "
        f"batch observation space, actual got {mode}"
    )


def observation_space_fits(mode: ObservationMode, single: Space[Any], env: Space[Any]) -> bool:
    """Whether a sub-env's observation space ``env`` fits ``single`` under ``mode``.

    "same" needs equal spaces; other modes need equal shapes and dtypes.
    """
    if isinstance(mode, str) and mode == "same":
        return env == single
    return is_space_dtype_shape_equiv(env, single)


def observation_misfit(
    vector_env: str, mode: ObservationMode, index: int, space: Space[Any], single: Space[Any]
) -> str:
    """Explain why sub-env ``index``'s observation space ``space`` does not fit ``single``.

    Args:
        vector_env: the vector env's class name, which starts the message.
        mode: the ``observation_mode`` the space was checked under.
        index: the sub-env's index.
        space: the sub-env's observation space.
        single: the vector env's ``single_observation_space``.

    Example:
        >>> from palaestra.spaces import Discrete
        >>> observation_misfit("SyncVectorEnv", "same", 1, Discrete(3), Discrete(2))[:45]
        "SyncVectorEnv(..., observation_mode='same') h"
    """
    # Gymnasium's SyncVectorEnv and AsyncVectorEnv word these differently; each starts with
    # its class's text, then names the sub-environment.
    detail = (
        f"Sub-environment {index} has observation_space={space}, single_observation_space={single}."
    )
    if isinstance(mode, str) and mode == "same":
        if vector_env == "AsyncVectorEnv":
            return (
                "AsyncVectorEnv(..., observation_mode='same') however some of the "
                "sub-environments observation spaces are not equivalent. If this is "
                f"intentional, use `observation_mode='different'` instead. {detail}"
            )
        return (
            f"{vector_env}(..., observation_mode='same') however the sub-environments "
            f"observation spaces are not equivalent. single_observation_space={single}, "
            f"sub-environment observation_space={space}. If this is intentional, use "
            f"`observation_mode='different'` instead. {detail}"
        )
    if vector_env == "AsyncVectorEnv":
        return (
            "AsyncVectorEnv(..., observation_mode='different' or custom space) however the "
            "sub-environment's observation spaces do not share a common shape and dtype. "
            f"{detail}"
        )
    return (
        f"{vector_env}(..., observation_mode='different' or custom space) however the "
        "sub-environments observation spaces do not share a common shape and dtype, "
        f"single_observation_space={single}, sub-environment observation space={space}. "
        f"{detail}"
    )


def action_misfit(
    index: int, space: Space[Any], single: Space[Any], vector_env: str = "SyncVectorEnv"
) -> str:
    """Explain that sub-env ``index``'s action space ``space`` differs from ``single``.

    The message starts with the text Gymnasium's ``vector_env`` class gives.

    Example:
        >>> from palaestra.spaces import Discrete
        >>> action_misfit(1, Discrete(3), Discrete(2))[:55]
        "Sub-environment action space doesn't make the `single_a"
    """
    detail = (
        f"Sub-environment {index} has action_space={space}, different from "
        f"`single_action_space={single}`."
    )
    if vector_env == "AsyncVectorEnv":
        return (
            f"Some environments have an action space different from `{single}`. In order to "
            f"batch actions, the action spaces from all environments must be equal. {detail}"
        )
    return (
        "Sub-environment action space doesn't make the `single_action_space`, "
        f"action_space={space}, single_action_space={single}. {detail} In order to batch "
        "actions, the action spaces from all environments must be equal."
    )


def actions_per_env(action_space: Space[Any], actions: Any, num_envs: int) -> list[Any]:
    """Split a batch of actions into one action per sub-environment.

    Raises:
        ValueError: if the batch does not hold exactly ``num_envs`` actions.

    Example:
        >>> from palaestra.spaces import MultiDiscrete
        >>> actions_per_env(MultiDiscrete([2, 2]), np.array([1, 0]), 2)
        [np.int64(1), np.int64(0)]
    """
    split = list(iterate(action_space, actions))
    if len(split) != num_envs:
        raise ValueError(
            f"Expected a batch of {num_envs} actions (an element of action_space="
            f"{action_space}), got {len(split)}: {actions!r}"
        )
    return split


def values_per_env(values: Any, num_envs: int) -> list[Any] | tuple[Any, ...]:
    """One value per sub-env for ``set_attr``: a list/tuple as is, anything else repeated.

    Raises:
        ValueError: if a list/tuple's length is not ``num_envs``.

    Example:
        >>> values_per_env(0.5, 3)
        [0.5, 0.5, 0.5]
    """
    if not isinstance(values, (list, tuple)):
        return [values] * num_envs
    if len(values) != num_envs:
        raise ValueError(
            "Values must be a list or tuple with length equal to the number of environments. "
            f"Got `{len(values)}` values for {num_envs} environments."
        )
    return values
