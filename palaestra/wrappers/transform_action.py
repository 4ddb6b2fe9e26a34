"""Stateless action wrappers: each maps every action through one fixed function.

Example:
    >>> import palaestra as gym
    >>> env = gym.wrappers.RescaleAction(gym.make("Pendulum-v1"), min_action=-1.0, max_action=1.0)
    >>> env.action_space
    Box(-1.0, 1.0, (1,), float32)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.core import ActionWrapper, ActType, Env, ObsType, WrapperActType
from palaestra.error import InvalidBound
from palaestra.utils import RecordConstructorArgs
from palaestra.wrappers.transform_observation import bin_counts, finite_flat_bounds
from palaestra.wrappers.utils import rescale_box

__all__ = ["TransformAction", "ClipAction", "RescaleAction", "DiscretizeAction"]


class TransformAction(ActionWrapper[ObsType, WrapperActType, ActType], RecordConstructorArgs):
    """Apply ``func`` to every action before it reaches the environment.

    Args:
        env: the environment to wrap.
        func: maps an action of the new action space to one of ``env``'s.
        action_space: the new action space; ``None`` keeps ``env``'s.

    Example:
        >>> import palaestra as gym
        >>> env = TransformAction(gym.make("CartPole-v1"), lambda action: 1 - action, None)
        >>> env.action(0)
        1
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        func: Callable[[WrapperActType], ActType],
        action_space: spaces.Space[WrapperActType] | None,
    ):
        RecordConstructorArgs.__init__(self, func=func, action_space=action_space)
        ActionWrapper.__init__(self, env)
        if action_space is not None:
            self.action_space = action_space
        self.func = func

    def action(self, action: WrapperActType) -> ActType:
        """Return ``func(action)``."""
        return self.func(action)


def _require_box_actions(env: Env, wrapper: str) -> spaces.Box:
    if not isinstance(env.action_space, spaces.Box):
        raise TypeError(f"{wrapper} requires a Box action space, got {type(env.action_space)}")
    return env.action_space


class ClipAction(TransformAction[ObsType, WrapperActType, ActType]):
    """Clip actions into the ``Box`` action space; the wrapper accepts any real action.

    Args:
        env: an environment with a ``Box`` action space.

    Raises:
        TypeError: if the action space is not a ``Box``.

    Example:
        >>> import palaestra as gym
        >>> env = ClipAction(gym.make("Pendulum-v1"))
        >>> env.action_space, env.action(np.array([5.0]))
        (Box(-inf, inf, (1,), float32), array([2.]))
    """

    def __init__(self, env: Env[ObsType, ActType]):
        space = _require_box_actions(env, "ClipAction")
        RecordConstructorArgs.__init__(self)
        TransformAction.__init__(
            self,
            env=env,
            func=lambda action: np.clip(action, space.low, space.high),
            action_space=spaces.Box(-np.inf, np.inf, shape=space.shape, dtype=space.dtype),
        )


class RescaleAction(TransformAction[ObsType, WrapperActType, ActType]):
    """Accept actions in ``[min_action, max_action]`` and map them affinely onto the env's box.

    Args:
        env: an environment with a ``Box`` action space.
        min_action: the new lower bound (number or array of the action shape).
        max_action: the new upper bound (number or array of the action shape).

    Raises:
        TypeError: if the action space is not a ``Box`` or a bound has the wrong type.
        ValueError: for mismatched shapes, ``min_action > max_action`` or changed infinite
            bounds.
        InvalidBound: if ``min_action == max_action`` somewhere (no inverse map).

    Example:
        >>> import palaestra as gym
        >>> env = RescaleAction(gym.make("Pendulum-v1"), min_action=0.0, max_action=1.0)
        >>> env.action(np.array([1.0], dtype=np.float32))
        array([2.], dtype=float32)
    """

    def __init__(self, env: Env[ObsType, ActType], min_action: Any, max_action: Any):
        space = _require_box_actions(env, "RescaleAction")
        RecordConstructorArgs.__init__(self, min_action=min_action, max_action=max_action)
        new_space, _, backward = rescale_box(space, min_action, max_action)
        if np.any(new_space.low == new_space.high):
            raise InvalidBound(
                f"Min action ({min_action}) must be strictly smaller than max action "
                f"({max_action}); where they are equal the rescaling cannot be inverted"
            )
        TransformAction.__init__(self, env=env, func=backward, action_space=new_space)


class DiscretizeAction(TransformAction[ObsType, WrapperActType, ActType]):
    """Act with bin indices on a bounded ``Box`` action space; each bin acts at its centre.

    Args:
        env: an environment with a finite ``Box`` action space.
        bins: bins per dimension, one count for all or one per flattened dimension.
        multidiscrete: act with a ``MultiDiscrete`` vector of per-dimension indices instead of
            one ``Discrete`` index (row-major over the dimensions).

    Raises:
        TypeError: if the action space is not a ``Box``.
        ValueError: for infinite bounds or a ``bins`` sequence of the wrong length.

    Example:
        >>> import palaestra as gym
        >>> env = DiscretizeAction(gym.make("Pendulum-v1"), bins=4)
        >>> env.action_space, env.action(3)
        (Discrete(4), array([1.5], dtype=float32))
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        bins: int | tuple[int, ...],
        multidiscrete: bool = False,
    ):
        if not isinstance(env.action_space, spaces.Box):
            raise TypeError("DiscretizeAction is only compatible with Box continuous actions.")
        self.low, self.high = finite_flat_bounds(env.action_space, "action")
        self.n_dims = int(self.low.size)
        self.multidiscrete = multidiscrete
        RecordConstructorArgs.__init__(self, bins=bins, multidiscrete=multidiscrete)
        ActionWrapper.__init__(self, env)

        self.bins = bin_counts(bins, self.n_dims)
        self.bin_centers = []
        for low, high, count in zip(self.low, self.high, self.bins):
            edges = np.linspace(low, high, count + 1)
            self.bin_centers.append(0.5 * (edges[:-1] + edges[1:]))
        if multidiscrete:
            self.action_space = spaces.MultiDiscrete(self.bins)
        else:
            self.action_space = spaces.Discrete(np.prod(self.bins))

    def action(self, act: Any) -> ActType:
        """Return the centre of the bin that ``act`` indexes, in the env's action shape."""
        if self.multidiscrete:
            indices = np.asarray(act, dtype=int)
        else:
            indices = np.unravel_index(act, self.bins)
        centers = [
            centers[min(max(index, 0), count - 1)]
            for centers, index, count in zip(self.bin_centers, indices, self.bins)
        ]
        inner = self.env.action_space
        return np.array(centers, dtype=inner.dtype).reshape(inner.shape)

    def revert_action(self, action: Any) -> Any:
        """Find the bin index (or indices) whose centre is nearest to a continuous ``action``.

        Example:
            >>> import palaestra as gym
            >>> DiscretizeAction(gym.make("Pendulum-v1"), bins=4).revert_action([1.4])
            np.int64(3)
        """
        flat = np.ravel(action)
        indices = [
            np.argmin(np.abs(centers - value)) for centers, value in zip(self.bin_centers, flat)
        ]
        if self.multidiscrete:
            return np.array(indices, dtype=int)
        return np.ravel_multi_index(indices, self.bins)
