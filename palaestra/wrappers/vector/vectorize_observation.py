"""Observation wrappers for vector envs: batch functions and single-env wrappers applied per env.

Example:
    >>> import palaestra as gym
    >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
    >>> envs = DtypeObservation(envs, dtype=np.float64)
    >>> envs.reset(seed=0)[0].dtype
    dtype('float64')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from copy import deepcopy
from typing import Any

import numpy as np

from palaestra import logger
from palaestra.core import ActType, Env, ObsType, WrapperObsType
from palaestra.spaces import Space
from palaestra.vector.episodes import SAME_STEP, autoreset_mode
from palaestra.vector.utils import batch_space, concatenate, create_empty_array, iterate
from palaestra.vector.vector_env import ArrayType, VectorEnv, VectorObservationWrapper
from palaestra.wrappers import transform_observation

__all__ = [
    "TransformObservation",
    "VectorizeTransformObservation",
    "FilterObservation",
    "FlattenObservation",
    "GrayscaleObservation",
    "ResizeObservation",
    "ReshapeObservation",
    "RescaleObservation",
    "DtypeObservation",
]


class SpacesOnlyEnv(Env):
    """A stand-in environment that only has spaces, for building single-env wrappers on.

    The vectorizing wrappers construct a single-env wrapper on top of it to borrow the
    wrapper's space transformation and function, without stepping anything.

    Args:
        observation_space: the observation space to expose, if any.
        action_space: the action space to expose, if any.

    Example:
        >>> from palaestra.spaces import Discrete
        >>> SpacesOnlyEnv(observation_space=Discrete(3)).observation_space
        Discrete(3)
    """

    def __init__(
        self, observation_space: Space | None = None, action_space: Space | None = None
    ) -> None:
        if observation_space is not None:
            self.observation_space = observation_space
        if action_space is not None:
            self.action_space = action_space


def warn_if_not_batched(env: VectorEnv, kind: str, batched: Space, single: Space) -> None:
    """Warn when a wrapper's batched space is not the batch of its single-env space.

    Args:
        env: the wrapped vector env (gives ``num_envs`` and names it in the message).
        kind: ``"observation"`` or ``"action"``.
        batched: the batched space.
        single: the single-env space.

    Example:
        >>> import palaestra as gym
        >>> from palaestra.spaces import Discrete, MultiDiscrete
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> warn_if_not_batched(envs, "action", MultiDiscrete([2, 2]), Discrete(2))
    """
    expected = batch_space(single, env.num_envs)
    if batched != expected:
        logger.warn(
            f"For {env}, the {kind} space and the batched single {kind} space don't match as "
            f"expected, {kind}_space={batched}, batched single_{kind}_space={expected}"
        )


def set_new_spaces(
    wrapper: VectorEnv, kind: str, batched: Space | None, single: Space | None
) -> None:
    """Give a transforming vector wrapper its new ``kind`` spaces, then check they agree.

    A single-env space given alone also sets the batched space to its batch; with neither,
    the inner env's spaces are kept.

    Args:
        wrapper: the vector wrapper, already wrapping its env.
        kind: ``"observation"`` or ``"action"``.
        batched: the new batched space, or ``None``.
        single: the new single-env space, or ``None``.

    Example:
        >>> import palaestra as gym
        >>> from palaestra.spaces import Discrete
        >>> from palaestra.vector import VectorWrapper
        >>> envs = VectorWrapper(gym.make_vec("CartPole-v1", 2, vectorization_mode="sync"))
        >>> set_new_spaces(envs, "action", None, Discrete(3))
        >>> envs.action_space
        MultiDiscrete([3 3])
    """
    if single is not None:
        setattr(wrapper, f"single_{kind}_space", single)
    if batched is None and single is not None:
        batched = batch_space(single, wrapper.num_envs)
    if batched is not None:
        setattr(wrapper, f"{kind}_space", batched)
    warn_if_not_batched(
        wrapper.env,
        kind,
        getattr(wrapper, f"{kind}_space"),
        getattr(wrapper, f"single_{kind}_space"),
    )


def transform_each(
    func: Callable[[Any], Any],
    batch_space_in: Space,
    single_space_out: Space,
    batch: Any,
    out: Any | None,
) -> Any:
    """Apply ``func`` to each sub-env's element of ``batch`` and batch the results.

    Args:
        func: the single-env transformation.
        batch_space_in: the batched space ``batch`` belongs to.
        single_space_out: the single-env space of the results.
        batch: the batch to transform.
        out: a buffer to batch into, returned as a copy; ``None`` overwrites ``batch`` in place
            (the results must then share its space).

    Example:
        >>> from palaestra.spaces import Box
        >>> space = Box(0, 9, (2,))
        >>> transform_each(lambda x: x + 1, batch_space(space, 2), space, np.zeros((2, 2)), None)
        array([[1., 1.],
               [1., 1.]])
    """
    transformed = tuple(func(element) for element in iterate(batch_space_in, batch))
    if out is None:
        return concatenate(single_space_out, transformed, batch)
    return deepcopy(concatenate(single_space_out, transformed, out))


class TransformObservation(VectorObservationWrapper[WrapperObsType, ActType, ObsType, ArrayType]):
    """Apply ``func`` to every batch of observations.

    Args:
        env: the vector env to wrap.
        func: maps a batch of observations to the new batch.
        observation_space: the new batched space (``None`` keeps or derives it).
        single_observation_space: the new single-env space; given alone, the batched space
            is derived from it.

    Raises:
        ValueError: if the vector env autoresets in ``SAME_STEP`` mode.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = TransformObservation(envs, lambda obs: obs * 0)
        >>> float(envs.reset(seed=0)[0].sum())
        0.0
    """

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, ArrayType],
        func: Callable[[ObsType], WrapperObsType],
        observation_space: Space | None = None,
        single_observation_space: Space | None = None,
    ) -> None:
        super().__init__(env)
        set_new_spaces(self, "observation", observation_space, single_observation_space)
        self.func = func

    def observations(self, observations: ObsType) -> WrapperObsType:
        """Return ``func(observations)``."""
        return self.func(observations)


class VectorizeTransformObservation(
    VectorObservationWrapper[WrapperObsType, ActType, ObsType, ArrayType]
):
    """Apply a single-env observation wrapper's function to each sub-env's observation.

    The single-env wrapper is built once on a stand-in env with the single observation space;
    its space becomes the new single space and is batched for the new batched space.
    Subclasses whose transformation is elementwise set ``batch_transform`` to apply it to the
    whole batch at once: the same numbers, without a Python loop over sub-envs.

    Args:
        env: the vector env to wrap.
        wrapper: a :class:`~palaestra.wrappers.TransformObservation` subclass.
        kwargs: the wrapper's constructor arguments.

    Raises:
        ValueError: if the vector env autoresets in ``SAME_STEP`` mode.
        TypeError: if ``metadata["autoreset_mode"]`` is not an ``AutoresetMode``.

    Example:
        >>> import palaestra as gym
        >>> from palaestra.wrappers import ReshapeObservation as SingleReshape
        >>> envs = gym.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
        >>> envs = VectorizeTransformObservation(envs, SingleReshape, shape=(2, 2))
        >>> envs.observation_space.shape
        (3, 2, 2)
    """

    batch_transform: Callable[[Any], Any] | None = None

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, ArrayType],
        wrapper: type[transform_observation.TransformObservation],
        **kwargs: Any,
    ) -> None:
        super().__init__(env)
        self.autoreset_mode = autoreset_mode(env)
        self.wrapper = wrapper(SpacesOnlyEnv(self.env.single_observation_space), **kwargs)
        self.single_observation_space = self.wrapper.observation_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        # An unchanged space lets the transformed observations overwrite the batch in place.
        self.same_out = self.observation_space == self.env.observation_space
        self.out = create_empty_array(self.single_observation_space, self.num_envs)

    def step(
        self, actions: ActType
    ) -> tuple[WrapperObsType, ArrayType, ArrayType, ArrayType, dict[str, Any]]:
        """Step the inner env and transform the observations (and any ``final_obs``)."""
        obs, rewards, terminations, truncations, infos = self.env.step(actions)
        obs = self.observations(obs)
        if self.autoreset_mode is SAME_STEP and "final_obs" in infos:
            final_obs = infos["final_obs"]
            for index, has_final in enumerate(infos["_final_obs"]):
                if has_final:
                    final_obs[index] = self.wrapper.observation(final_obs[index])
        return obs, rewards, terminations, truncations, infos

    def observations(self, observations: ObsType) -> WrapperObsType:
        """Transform each sub-env's observation and batch the results."""
        if self.batch_transform is not None:
            return self.batch_transform(observations)
        return transform_each(
            self.wrapper.observation,
            self.env.observation_space,
            self.single_observation_space,
            observations,
            None if self.same_out else self.out,
        )


def batched(func: Callable[[Any], Any], dtype: Any) -> Callable[[np.ndarray], np.ndarray]:
    """Lift an elementwise array function to batches, returning a fresh array of ``dtype``.

    Args:
        func: a function whose result on a stacked batch equals the stack of its results.
        dtype: the dtype of the batched space the results belong to.

    Example:
        >>> batched(lambda x: x * 2, np.float32)(np.ones((2, 3), dtype=np.float64)).dtype
        dtype('float32')
    """
    return lambda batch: np.array(func(batch), dtype=dtype, copy=True)


class FilterObservation(VectorizeTransformObservation[WrapperObsType, ActType, ObsType, ArrayType]):
    """Keep only some keys (``Dict``) or indices (``Tuple``) of each sub-env's observation.

    Args:
        env: the vector env to wrap.
        filter_keys: see :class:`palaestra.wrappers.FilterObservation`.

    Example:
        >>> from palaestra import spaces
        >>> from palaestra.vector import SyncVectorEnv
        >>> class Pair(Env):
        ...     observation_space = spaces.Dict(a=spaces.Discrete(2), b=spaces.Discrete(3))
        ...     action_space = spaces.Discrete(2)
        >>> envs = FilterObservation(SyncVectorEnv([Pair, Pair]), filter_keys=["b"])
        >>> envs.observation_space
        Dict('b': MultiDiscrete([3 3]))
    """

    def __init__(
        self, env: VectorEnv[ObsType, ActType, ArrayType], filter_keys: Sequence[str | int]
    ) -> None:
        super().__init__(env, transform_observation.FilterObservation, filter_keys=filter_keys)


class FlattenObservation(
    VectorizeTransformObservation[WrapperObsType, ActType, ObsType, ArrayType]
):
    """Flatten each sub-env's observation (see :class:`palaestra.wrappers.FlattenObservation`).

    Args:
        env: the vector env to wrap.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> FlattenObservation(envs).single_observation_space
        Box([-4.8 ...], [4.8 ...], (4,), float32)
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType]) -> None:
        super().__init__(env, transform_observation.FlattenObservation)


class GrayscaleObservation(
    VectorizeTransformObservation[WrapperObsType, ActType, ObsType, ArrayType]
):
    """Convert each sub-env's RGB image to grayscale.

    Args:
        env: the vector env to wrap.
        keep_dim: see :class:`palaestra.wrappers.GrayscaleObservation`.

    Example:
        >>> from palaestra import spaces
        >>> from palaestra.vector import SyncVectorEnv
        >>> class Camera(Env):
        ...     observation_space = spaces.Box(0, 255, (4, 6, 3), np.uint8)
        ...     action_space = spaces.Discrete(2)
        >>> GrayscaleObservation(SyncVectorEnv([Camera, Camera])).observation_space
        Box(0, 255, (2, 4, 6), uint8)
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType], keep_dim: bool = False) -> None:
        super().__init__(env, transform_observation.GrayscaleObservation, keep_dim=keep_dim)
        # The luma sum runs over the last axis, so it is the same on a batch of images.
        self.batch_transform = batched(self.wrapper.func, np.uint8)


class ResizeObservation(VectorizeTransformObservation[WrapperObsType, ActType, ObsType, ArrayType]):
    """Resize each sub-env's image by area averaging.

    Args:
        env: the vector env to wrap.
        shape: see :class:`palaestra.wrappers.ResizeObservation`.

    Example:
        >>> from palaestra import spaces
        >>> from palaestra.vector import SyncVectorEnv
        >>> class Camera(Env):
        ...     observation_space = spaces.Box(0, 255, (8, 8, 3), np.uint8)
        ...     action_space = spaces.Discrete(2)
        >>> ResizeObservation(SyncVectorEnv([Camera, Camera]), shape=(4, 2)).observation_space
        Box(0, 255, (2, 4, 2, 3), uint8)
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType], shape: tuple[int, ...]) -> None:
        super().__init__(env, transform_observation.ResizeObservation, shape=shape)


class ReshapeObservation(
    VectorizeTransformObservation[WrapperObsType, ActType, ObsType, ArrayType]
):
    """Reshape each sub-env's ``Box`` observation.

    Args:
        env: the vector env to wrap.
        shape: see :class:`palaestra.wrappers.ReshapeObservation`.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> ReshapeObservation(envs, shape=(4, 1)).observation_space.shape
        (2, 4, 1)
    """

    def __init__(
        self, env: VectorEnv[ObsType, ActType, ArrayType], shape: int | tuple[int, ...]
    ) -> None:
        super().__init__(env, transform_observation.ReshapeObservation, shape=shape)
        batch_shape = self.observation_space.shape
        self.batch_transform = batched(
            lambda batch: np.reshape(batch, batch_shape), self.observation_space.dtype
        )


class RescaleObservation(
    VectorizeTransformObservation[WrapperObsType, ActType, ObsType, ArrayType]
):
    """Map each sub-env's ``Box`` observation affinely onto ``[min_obs, max_obs]``.

    Args:
        env: the vector env to wrap.
        min_obs: see :class:`palaestra.wrappers.RescaleObservation`.
        max_obs: see :class:`palaestra.wrappers.RescaleObservation`.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("Pendulum-v1", num_envs=2, vectorization_mode="sync")
        >>> RescaleObservation(envs, -1.0, 1.0).single_observation_space
        Box(-1.0, 1.0, (3,), float32)
    """

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, ArrayType],
        min_obs: float | np.floating | np.integer | np.ndarray,
        max_obs: float | np.floating | np.integer | np.ndarray,
    ) -> None:
        super().__init__(
            env, transform_observation.RescaleObservation, min_obs=min_obs, max_obs=max_obs
        )
        # The affine map broadcasts over the batch axis.
        self.batch_transform = batched(self.wrapper.func, self.observation_space.dtype)


class DtypeObservation(VectorizeTransformObservation[WrapperObsType, ActType, ObsType, ArrayType]):
    """Cast each sub-env's observation to ``dtype``.

    Args:
        env: the vector env to wrap.
        dtype: see :class:`palaestra.wrappers.DtypeObservation`.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> DtypeObservation(envs, np.float64).single_observation_space.dtype
        dtype('float64')
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType], dtype: Any) -> None:
        super().__init__(env, transform_observation.DtypeObservation, dtype=dtype)
        self.batch_transform = batched(self.wrapper.func, self.observation_space.dtype)
