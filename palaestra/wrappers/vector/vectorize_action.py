"""Action wrappers for vector envs: batch functions and single-env wrappers applied per env.

Example:
    >>> import palaestra as gym
    >>> envs = gym.make_vec("Pendulum-v1", num_envs=2, vectorization_mode="sync")
    >>> ClipAction(envs).action_space
    Box(-inf, inf, (2, 1), float32)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from palaestra.core import ActType, ObsType, WrapperActType
from palaestra.spaces import Space
from palaestra.vector.utils import batch_space, create_empty_array
from palaestra.vector.vector_env import ArrayType, VectorActionWrapper, VectorEnv
from palaestra.wrappers import transform_action
from palaestra.wrappers.vector.vectorize_observation import (
    SpacesOnlyEnv,
    batched,
    set_new_spaces,
    transform_each,
)

__all__ = ["TransformAction", "VectorizeTransformAction", "ClipAction", "RescaleAction"]


class TransformAction(VectorActionWrapper[ObsType, WrapperActType, ActType, ArrayType]):
    """Apply ``func`` to every batch of actions before it reaches the vector env.

    Args:
        env: the vector env to wrap.
        func: maps a batch of actions of the new space to one of ``env``'s.
        action_space: the new batched action space (``None`` keeps or derives it).
        single_action_space: the new single-env action space; given alone, the batched
            space is derived from it.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> TransformAction(envs, lambda actions: 1 - actions).actions(np.array([0, 1]))
        array([1, 0])
    """

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, ArrayType],
        func: Callable[[WrapperActType], ActType],
        action_space: Space | None = None,
        single_action_space: Space | None = None,
    ) -> None:
        super().__init__(env)
        set_new_spaces(self, "action", action_space, single_action_space)
        self.func = func

    def actions(self, actions: WrapperActType) -> ActType:
        """Return ``func(actions)``."""
        return self.func(actions)


class VectorizeTransformAction(VectorActionWrapper[ObsType, WrapperActType, ActType, ArrayType]):
    """Apply a single-env action wrapper's function to each sub-env's action.

    Subclasses whose transformation is elementwise set ``batch_transform`` to apply it to the
    whole batch at once: the same numbers, without a Python loop over sub-envs.

    Args:
        env: the vector env to wrap.
        wrapper: a :class:`~palaestra.wrappers.TransformAction` subclass.
        kwargs: the wrapper's constructor arguments.

    Example:
        >>> import palaestra as gym
        >>> from palaestra.wrappers import DiscretizeAction
        >>> envs = gym.make_vec("Pendulum-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = VectorizeTransformAction(envs, DiscretizeAction, bins=3)
        >>> envs.action_space, envs.actions(np.array([0, 2]))
        (MultiDiscrete([3 3]), array([[-1.3333334],
               [ 1.3333334]], dtype=float32))
    """

    batch_transform: Callable[[Any], Any] | None = None

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, ArrayType],
        wrapper: type[transform_action.TransformAction],
        **kwargs: Any,
    ) -> None:
        super().__init__(env)
        self.wrapper = wrapper(SpacesOnlyEnv(action_space=self.env.single_action_space), **kwargs)
        self.single_action_space = self.wrapper.action_space
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        # An unchanged space lets the transformed actions overwrite the batch in place.
        self.same_out = self.action_space == self.env.action_space
        self.out = create_empty_array(self.env.single_action_space, self.num_envs)

    def actions(self, actions: WrapperActType) -> ActType:
        """Transform each sub-env's action and batch the results in the inner env's space."""
        if self.batch_transform is not None:
            return self.batch_transform(actions)
        return transform_each(
            self.wrapper.action,
            self.action_space,
            self.env.single_action_space,
            actions,
            None if self.same_out else self.out,
        )


class ClipAction(VectorizeTransformAction[ObsType, WrapperActType, ActType, ArrayType]):
    """Clip each sub-env's action into its ``Box`` action space.

    Args:
        env: the vector env to wrap.

    Example:
        >>> import palaestra as gym
        >>> envs = ClipAction(gym.make_vec("Pendulum-v1", num_envs=2, vectorization_mode="sync"))
        >>> envs.actions(np.array([[5.0], [-5.0]], dtype=np.float32))
        array([[ 2.],
               [-2.]], dtype=float32)
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType]) -> None:
        super().__init__(env, transform_action.ClipAction)
        # Clipping broadcasts the single-env bounds over the batch axis.
        self.batch_transform = batched(self.wrapper.func, self.env.action_space.dtype)


class RescaleAction(VectorizeTransformAction[ObsType, WrapperActType, ActType, ArrayType]):
    """Accept each sub-env's action in ``[min_action, max_action]`` and map it onto its box.

    Args:
        env: the vector env to wrap.
        min_action: see :class:`palaestra.wrappers.RescaleAction`.
        max_action: see :class:`palaestra.wrappers.RescaleAction`.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("Pendulum-v1", num_envs=2, vectorization_mode="sync")
        >>> RescaleAction(envs, 0.0, 1.0).single_action_space
        Box(0.0, 1.0, (1,), float32)
    """

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, ArrayType],
        min_action: float | int | np.ndarray,
        max_action: float | int | np.ndarray,
    ) -> None:
        super().__init__(
            env, transform_action.RescaleAction, min_action=min_action, max_action=max_action
        )
        self.batch_transform = batched(self.wrapper.func, self.env.action_space.dtype)
