"""Stateless observation wrappers: each applies one fixed function to every observation.

Example:
    >>> import palaestra as gym
    >>> env = gym.wrappers.RescaleObservation(gym.make("Pendulum-v1"), min_obs=-1.0, max_obs=1.0)
    >>> env.observation_space
    Box(-1.0, 1.0, (3,), float32)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.core import ActType, Env, ObservationWrapper, ObsType, WrapperObsType
from palaestra.utils import RecordConstructorArgs
from palaestra.wrappers.utils import AreaResizer, rescale_box

__all__ = [
    "TransformObservation",
    "FilterObservation",
    "FlattenObservation",
    "GrayscaleObservation",
    "ResizeObservation",
    "ReshapeObservation",
    "RescaleObservation",
    "DtypeObservation",
    "DiscretizeObservation",
    "AddRenderObservation",
]

# ITU-R BT.709 luma coefficients for red, green and blue.
LUMA_WEIGHTS = np.array([0.2125, 0.7154, 0.0721])


class TransformObservation(
    ObservationWrapper[WrapperObsType, ActType, ObsType], RecordConstructorArgs
):
    """Apply ``func`` to every observation, optionally declaring the new observation space.

    Args:
        env: the environment to wrap.
        func: maps an observation of ``env`` to the new observation.
        observation_space: the space of the new observations; ``None`` keeps ``env``'s.

    Example:
        >>> import palaestra as gym
        >>> env = TransformObservation(gym.make("CartPole-v1"), lambda obs: obs * 0, None)
        >>> env.reset(seed=0)[0]
        array([ 0.,  0.,  0., -0.], dtype=float32)
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        func: Callable[[ObsType], Any],
        observation_space: spaces.Space[WrapperObsType] | None,
    ):
        RecordConstructorArgs.__init__(self, func=func, observation_space=observation_space)
        ObservationWrapper.__init__(self, env)
        if observation_space is not None:
            self.observation_space = observation_space
        self.func = func

    def observation(self, observation: ObsType) -> Any:
        """Return ``func(observation)``."""
        return self.func(observation)


def _dict_filter(env: Env, filter_keys: Sequence[Any]) -> tuple[spaces.Space, Callable]:
    space = env.observation_space
    if not all(isinstance(key, str) for key in filter_keys):
        raise TypeError(f"All filter keys must be strings for a Dict space, got {filter_keys}")
    missing = [key for key in filter_keys if key not in space.spaces]
    if missing:
        raise ValueError(
            "All the `filter_keys` must be included in the observation space.\n"
            f"Filter keys: {filter_keys}\n"
            f"Observation keys: {list(space.spaces.keys())}\n"
            f"Missing keys: {missing}"
        )
    new_space = spaces.Dict({key: space[key] for key in filter_keys}, sort_keys=space.sort_keys)
    if len(new_space) == 0:
        raise ValueError("The observation space is empty due to filtering all of the keys.")
    return new_space, lambda obs: {key: obs[key] for key in filter_keys}


def _tuple_filter(env: Env, filter_keys: Sequence[Any]) -> tuple[spaces.Space, Callable]:
    space = env.observation_space
    if not all(isinstance(key, int) for key in filter_keys):
        raise TypeError(f"All filter keys must be integers for a Tuple space, got {filter_keys}")
    if len(set(filter_keys)) != len(filter_keys):
        raise ValueError(f"Duplicate keys exist, filter_keys: {filter_keys}")
    out_of_range = [key for key in filter_keys if key > 0 and key >= len(space)]
    if out_of_range:
        raise ValueError(
            "All the `filter_keys` must be included in the length of the observation space.\n"
            f"Filter keys: {filter_keys}, length of observation: {len(space)}, "
            f"missing indexes: {out_of_range}"
        )
    new_space = spaces.Tuple(space[key] for key in filter_keys)
    if len(new_space) == 0:
        raise ValueError("The observation space is empty due to filtering all keys.")
    return new_space, lambda obs: tuple(obs[key] for key in filter_keys)


class FilterObservation(TransformObservation[WrapperObsType, ActType, ObsType]):
    """Keep only some entries of a ``Dict`` (by key) or ``Tuple`` (by index) observation.

    Args:
        env: an environment with a ``Dict`` or ``Tuple`` observation space.
        filter_keys: the keys (``Dict``) or indices (``Tuple``) to keep, in the output order.

    Raises:
        TypeError: if ``filter_keys`` is not a sequence, or its items have the wrong type.
        ValueError: for missing keys, out-of-range or duplicate indices, an empty result, or
            an observation space that is neither ``Dict`` nor ``Tuple``.

    Example:
        >>> class Pair(Env):
        ...     observation_space = spaces.Dict(a=spaces.Discrete(2), b=spaces.Discrete(3))
        >>> FilterObservation(Pair(), filter_keys=["b"]).observation_space
        Dict('b': Discrete(3))
    """

    def __init__(self, env: Env[ObsType, ActType], filter_keys: Sequence[str | int]):
        if not isinstance(filter_keys, Sequence):
            raise TypeError(
                f"Expects `filter_keys` to be a Sequence, actual type: {type(filter_keys)}"
            )
        RecordConstructorArgs.__init__(self, filter_keys=filter_keys)
        if isinstance(env.observation_space, spaces.Dict):
            new_space, func = _dict_filter(env, filter_keys)
        elif isinstance(env.observation_space, spaces.Tuple):
            new_space, func = _tuple_filter(env, filter_keys)
        else:
            raise ValueError(
                "FilterObservation wrapper is only usable with `Dict` and `Tuple` observations, "
                f"actual type: {type(env.observation_space)}"
            )
        TransformObservation.__init__(self, env=env, func=func, observation_space=new_space)
        self.filter_keys = filter_keys


class FlattenObservation(TransformObservation[WrapperObsType, ActType, ObsType]):
    """Flatten observations into a 1-D array (see :func:`palaestra.spaces.flatten`).

    Args:
        env: an environment whose observation space can be flattened.

    Example:
        >>> import palaestra as gym
        >>> env = FlattenObservation(gym.make("CartPole-v1"))
        >>> env.observation_space.shape
        (4,)
    """

    def __init__(self, env: Env[ObsType, ActType]):
        RecordConstructorArgs.__init__(self)
        space = env.observation_space
        TransformObservation.__init__(
            self,
            env=env,
            func=lambda obs: spaces.flatten(space, obs),
            observation_space=spaces.flatten_space(space),
        )


def _require_image_box(env: Env, wrapper: str) -> spaces.Box:
    if not isinstance(env.observation_space, spaces.Box):
        raise TypeError(
            f"{wrapper} requires a Box observation space, got {type(env.observation_space)}"
        )
    return env.observation_space


def _to_grayscale(image: np.ndarray) -> np.ndarray:
    return np.sum(np.multiply(image, LUMA_WEIGHTS), axis=-1).astype(np.uint8)


def _to_grayscale_keep_dim(image: np.ndarray) -> np.ndarray:
    return np.expand_dims(_to_grayscale(image), axis=-1)


class GrayscaleObservation(TransformObservation[WrapperObsType, ActType, ObsType]):
    """Convert ``(H, W, 3)`` uint8 RGB images to grayscale (luma, truncated to uint8).

    Args:
        env: an environment with a ``Box(0, 255, (H, W, 3), uint8)`` observation space.
        keep_dim: keep a trailing channel axis of size 1 (``(H, W, 1)``) instead of ``(H, W)``.

    Raises:
        TypeError: if the observation space is not a ``Box``.
        ValueError: if it is not a 3-channel uint8 image with bounds 0 and 255.

    Example:
        >>> class Camera(Env):
        ...     observation_space = spaces.Box(0, 255, (4, 6, 3), np.uint8)
        >>> GrayscaleObservation(Camera(), keep_dim=True).observation_space
        Box(0, 255, (4, 6, 1), uint8)
    """

    def __init__(self, env: Env[ObsType, ActType], keep_dim: bool = False):
        space = _require_image_box(env, "GrayscaleObservation")
        if len(space.shape) != 3 or space.shape[-1] != 3:
            raise ValueError(
                f"GrayscaleObservation requires an image with 3 channels, got shape {space.shape}"
            )
        if not (np.all(space.low == 0) and np.all(space.high == 255) and space.dtype == np.uint8):
            raise ValueError(
                "GrayscaleObservation requires observation bounds 0 to 255 and dtype uint8"
            )
        RecordConstructorArgs.__init__(self, keep_dim=keep_dim)
        self.keep_dim = keep_dim
        if keep_dim:
            new_shape = (*space.shape[:2], 1)
            func = _to_grayscale_keep_dim
        else:
            new_shape = space.shape[:2]
            func = _to_grayscale
        TransformObservation.__init__(
            self,
            env=env,
            func=func,
            observation_space=spaces.Box(0, 255, shape=new_shape, dtype=np.uint8),
        )


def _check_resize_shape(shape: Any) -> None:
    if not isinstance(shape, tuple):
        raise TypeError(f"ResizeObservation requires shape to be a tuple, got {type(shape)}")
    if len(shape) != 2:
        raise ValueError(f"ResizeObservation requires shape tuple of length 2, got {shape}")
    if not all(np.issubdtype(type(size), np.integer) for size in shape):
        raise TypeError(f"ResizeObservation requires shape elements to be integers, got {shape}")
    if not all(size > 0 for size in shape):
        raise ValueError(
            f"ResizeObservation requires shape elements to be greater than 0, got {shape}"
        )


def _opencv_resizer(new_shape: tuple[int, ...]) -> Callable[[np.ndarray], np.ndarray] | None:
    try:
        import cv2
    except ImportError:
        return None
    width_height = (new_shape[1], new_shape[0])

    def resize(image: np.ndarray) -> np.ndarray:
        # OpenCV drops a channel axis of size 1, so the shape is restored afterwards.
        resized = cv2.resize(image, width_height, interpolation=cv2.INTER_AREA)
        return resized.reshape(new_shape)

    return resize


class ResizeObservation(TransformObservation[WrapperObsType, ActType, ObsType]):
    """Resize ``(H, W)`` or ``(H, W, C)`` uint8 images to ``shape`` by area averaging.

    OpenCV is optional (Gymnasium requires it). When ``cv2`` is installed it does the work
    (``INTER_AREA``, 2-12x faster, and then identical to Gymnasium); otherwise a pure numpy
    :class:`~palaestra.wrappers.utils.AreaResizer` does: each output pixel is the mean of the
    input area it covers, rounded half up. The two agree within one grey level when
    shrinking (exactly when halving; OpenCV rounds some exact halves down), while enlarging
    repeats pixels (blending at the seams) where OpenCV interpolates.
    ``backend`` says which one is in use.

    Args:
        env: an environment with a ``Box(0, 255, ..., uint8)`` image observation space.
        shape: the new ``(height, width)``.

    Raises:
        TypeError: if the space is not a ``Box``, or ``shape`` is not a tuple of integers.
        ValueError: if the space is not a 2-D/3-D uint8 image with bounds 0 and 255, or
            ``shape`` does not have two positive entries.

    Example:
        >>> class Camera(Env):
        ...     observation_space = spaces.Box(0, 255, (8, 8, 3), np.uint8)
        >>> ResizeObservation(Camera(), shape=(4, 2)).observation_space
        Box(0, 255, (4, 2, 3), uint8)
    """

    def __init__(self, env: Env[ObsType, ActType], shape: tuple[int, int]):
        space = _require_image_box(env, "ResizeObservation")
        if len(space.shape) not in {2, 3}:
            raise ValueError(
                f"ResizeObservation requires a 2D or 3D image, got shape {space.shape}"
            )
        if not (np.all(space.low == 0) and np.all(space.high == 255)):
            raise ValueError("ResizeObservation requires observation bounds 0 to 255")
        if space.dtype != np.uint8:
            raise ValueError(
                f"ResizeObservation requires observation dtype uint8, got {space.dtype}"
            )
        _check_resize_shape(shape)

        self.shape: tuple[int, int] = tuple(shape)
        new_space = spaces.Box(0, 255, shape=self.shape + space.shape[2:], dtype=np.uint8)
        resize = _opencv_resizer(new_space.shape)
        self.backend = "opencv" if resize is not None else "numpy"
        if resize is None:
            resize = AreaResizer(space.shape[:2], self.shape)
        RecordConstructorArgs.__init__(self, shape=shape)
        TransformObservation.__init__(
            self,
            env=env,
            func=resize,
            observation_space=new_space,
        )


class ReshapeObservation(TransformObservation[WrapperObsType, ActType, ObsType]):
    """Reshape ``Box`` observations (and the space's bounds) to ``shape``.

    Args:
        env: an environment with a ``Box`` observation space.
        shape: the new shape; its product must equal the old one's, ``-1`` infers an axis.

    Raises:
        TypeError: if the space is not a ``Box`` or ``shape`` is not a tuple of integers.
        ValueError: if the sizes differ or an entry is neither positive nor ``-1``.

    Example:
        >>> class Grid(Env):
        ...     observation_space = spaces.Box(0.0, 1.0, (2, 3))
        >>> ReshapeObservation(Grid(), shape=(6,)).observation_space
        Box(0.0, 1.0, (6,), float32)
    """

    def __init__(self, env: Env[ObsType, ActType], shape: int | tuple[int, ...]):
        space = _require_image_box(env, "ReshapeObservation")
        if np.prod(shape) != np.prod(space.shape):
            raise ValueError(
                "ReshapeObservation requires the product of the new shape to match the "
                f"original shape: {shape} has a different size than {space.shape}"
            )
        if not isinstance(shape, tuple):
            raise TypeError(f"ReshapeObservation requires shape to be a tuple, got {type(shape)}")
        if not all(np.issubdtype(type(size), np.integer) for size in shape):
            raise TypeError(
                f"ReshapeObservation requires shape elements to be integers, got {shape}"
            )
        if not all(size > 0 or size == -1 for size in shape):
            raise ValueError(
                f"ReshapeObservation requires shape elements to be greater than 0 or -1, "
                f"got {shape}"
            )
        new_space = spaces.Box(
            low=np.reshape(np.ravel(space.low), shape),
            high=np.reshape(np.ravel(space.high), shape),
            shape=shape,
            dtype=space.dtype,
        )
        self.shape = shape
        RecordConstructorArgs.__init__(self, shape=shape)
        TransformObservation.__init__(
            self, env=env, func=lambda obs: np.reshape(obs, shape), observation_space=new_space
        )


class RescaleObservation(TransformObservation[WrapperObsType, ActType, ObsType]):
    """Map ``Box`` observations affinely onto ``[min_obs, max_obs]``.

    Args:
        env: an environment with a ``Box`` observation space.
        min_obs: the new lower bound (number or array of the space's shape).
        max_obs: the new upper bound (number or array of the space's shape).

    Raises:
        TypeError: if the space is not a ``Box`` or a bound has the wrong type.
        ValueError: for mismatched shapes, ``min_obs > max_obs``, or changed infinite bounds.

    Example:
        >>> class Gauge(Env):
        ...     observation_space = spaces.Box(0.0, 10.0, (1,))
        >>> RescaleObservation(Gauge(), 0.0, 1.0).observation(np.array([5.0], np.float32))
        array([0.5], dtype=float32)
    """

    def __init__(self, env: Env[ObsType, ActType], min_obs: Any, max_obs: Any):
        space = _require_image_box(env, "RescaleObservation")
        RecordConstructorArgs.__init__(self, min_obs=min_obs, max_obs=max_obs)
        new_space, forward, _ = rescale_box(space, min_obs, max_obs)
        TransformObservation.__init__(self, env=env, func=forward, observation_space=new_space)


def _dtype_space(space: spaces.Space, dtype: Any) -> spaces.Space:
    if isinstance(space, spaces.Box):
        return spaces.Box(low=space.low, high=space.high, shape=space.shape, dtype=dtype)
    if isinstance(space, spaces.Discrete):
        return spaces.Box(low=space.start, high=space.start + space.n - 1, shape=(), dtype=dtype)
    if isinstance(space, spaces.MultiDiscrete):
        return spaces.MultiDiscrete(space.nvec, dtype=dtype, start=space.start)
    return spaces.Box(low=0, high=1, shape=space.shape, dtype=dtype)


class DtypeObservation(TransformObservation[WrapperObsType, ActType, ObsType]):
    """Cast observations to ``dtype``; ``Discrete`` and ``MultiBinary`` become ``Box`` spaces.

    Args:
        env: an environment with a ``Box``, ``Discrete``, ``MultiDiscrete`` or ``MultiBinary``
            observation space.
        dtype: the new dtype.

    Raises:
        TypeError: for any other observation space.

    Example:
        >>> import palaestra as gym
        >>> DtypeObservation(gym.make("CartPole-v1"), np.float64).observation_space.dtype
        dtype('float64')
    """

    def __init__(self, env: Env[ObsType, ActType], dtype: Any):
        castable = (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)
        if not isinstance(env.observation_space, castable):
            raise TypeError(
                "DtypeObservation requires a Box, Discrete, MultiDiscrete, or MultiBinary "
                f"space, got {type(env.observation_space)}"
            )
        self.dtype = dtype
        new_space = _dtype_space(env.observation_space, dtype)
        RecordConstructorArgs.__init__(self, dtype=dtype)
        TransformObservation.__init__(
            self, env=env, func=lambda obs: new_space.dtype.type(obs), observation_space=new_space
        )


def bin_counts(bins: int | tuple[int, ...], n_dims: int) -> np.ndarray:
    """Expand ``bins`` (one count for all, or one per dimension) to one count per dimension.

    Args:
        bins: an integer, or a sequence with one count per dimension.
        n_dims: the number of dimensions.

    Raises:
        ValueError: if a sequence's length is not ``n_dims``.

    Example:
        >>> bin_counts(3, 2)
        array([3, 3])
    """
    if isinstance(bins, int):
        return np.array([bins] * n_dims)
    if len(bins) != n_dims:
        raise ValueError(f"bins must match action dimensions: expected {n_dims}, got {len(bins)}")
    return np.array(bins)


def finite_flat_bounds(space: spaces.Box, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Return the flattened bounds of a ``Box``, which must be finite to be discretized.

    Args:
        space: the box.
        kind: ``"observation"`` or ``"action"``, for the error message.

    Raises:
        ValueError: if a bound is infinite.

    Example:
        >>> finite_flat_bounds(spaces.Box(0.0, 1.0, (2,)), "action")
        (array([0., 0.], dtype=float32), array([1., 1.], dtype=float32))
    """
    low, high = np.ravel(space.low), np.ravel(space.high)
    if np.any(np.isinf(low)) or np.any(np.isinf(high)):
        raise ValueError(
            f"Discretization requires {kind} space to be finite. Found: low={low}, high={high}"
        )
    return low, high


class DiscretizeObservation(
    TransformObservation[WrapperObsType, ActType, ObsType], RecordConstructorArgs
):
    """Turn a bounded ``Box`` observation into bin indices (uniform bins per dimension).

    Args:
        env: an environment with a finite ``Box`` observation space.
        bins: bins per dimension, one count for all or one per flattened dimension.
        multidiscrete: observe a ``MultiDiscrete`` vector of per-dimension indices instead of
            one ``Discrete`` index (row-major over the dimensions).

    Raises:
        TypeError: if the space is not a ``Box``.
        ValueError: for infinite bounds or a ``bins`` sequence of the wrong length.

    Example:
        >>> class Gauge(Env):
        ...     observation_space = spaces.Box(0.0, 1.0, (2,))
        >>> env = DiscretizeObservation(Gauge(), bins=4)
        >>> env.observation_space, env.observation(np.array([0.3, 0.9]))
        (Discrete(16), 7)
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        bins: int | tuple[int, ...],
        multidiscrete: bool = False,
    ):
        if not isinstance(env.observation_space, spaces.Box):
            raise TypeError(
                "DiscretizeObservation is only compatible with Box continuous observations."
            )
        self.low, self.high = finite_flat_bounds(env.observation_space, "observation")
        self.n_dims = int(self.low.size)
        self.multidiscrete = multidiscrete
        RecordConstructorArgs.__init__(self, bins=bins, multidiscrete=multidiscrete)

        self.bins = bin_counts(bins, self.n_dims)
        self.bin_edges = [
            np.linspace(low, high, count + 1)[1:-1]
            for low, high, count in zip(self.low, self.high, self.bins)
        ]
        if multidiscrete:
            space: spaces.Space[Any] = spaces.MultiDiscrete(self.bins)
        else:
            space = spaces.Discrete(np.prod(self.bins))
        TransformObservation.__init__(self, env, func=self._bin_index, observation_space=space)

    def _bin_index(self, observation: ObsType) -> Any:
        """Return the bin index (or indices) of ``observation``."""
        # Values at the upper bound belong to the last bin, not one past it.
        clipped = np.clip(np.ravel(observation), self.low, self.high - 1e-8)
        indices = [int(np.digitize(value, edges)) for value, edges in zip(clipped, self.bin_edges)]
        if self.multidiscrete:
            return np.array(indices, dtype=np.int64)
        return int(np.ravel_multi_index(indices, self.bins))

    def revert_observation(self, obs: Any) -> tuple[np.ndarray, np.ndarray]:
        """Return the lower and upper corners of the cell that ``obs`` indexes.

        Args:
            obs: an index (or indices, with ``multidiscrete``) from this wrapper.

        Example:
            >>> class Gauge(Env):
            ...     observation_space = spaces.Box(0.0, 1.0, (1,))
            >>> DiscretizeObservation(Gauge(), bins=4).revert_observation(1)
            (array([0.25], dtype=float32), array([0.5], dtype=float32))
        """
        if self.multidiscrete:
            indices = np.asarray(obs, dtype=int)
        else:
            indices = np.unravel_index(obs, self.bins)
        edges = [
            np.linspace(low, high, count + 1)
            for low, high, count in zip(self.low, self.high, self.bins)
        ]
        dtype = self.env.observation_space.dtype
        lows = np.array([edge[index] for edge, index in zip(edges, indices)], dtype=dtype)
        highs = np.array([edge[index + 1] for edge, index in zip(edges, indices)], dtype=dtype)
        return lows, highs


class AddRenderObservation(TransformObservation[Any, ActType, ObsType], RecordConstructorArgs):
    """Add the rendered image to the observation, or replace the observation with it.

    With ``render_only`` the observation is the image, a ``Box(0, 255, frame.shape, uint8)``.
    Otherwise it is a dict: for ``Dict`` observations the image is added under
    ``render_key``; other observations become ``{obs_key: obs, render_key: image}``.
    To learn the image size the env is reset (without a seed) once on construction.

    Args:
        env: an env whose ``render()`` returns an image.
        render_only: replace the observation instead of extending it.
        render_key: the image's key in dict observations.
        obs_key: the original observation's key when it is not a dict.

    Raises:
        ValueError: if the render mode is ``None`` or ``"human"``, or ``render_key`` is
            already a key of a ``Dict`` observation space.
        TypeError: if ``render()`` does not return a numpy array.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1", render_mode="rgb_array")
        >>> env = AddRenderObservation(env, render_only=False)
        >>> obs, _ = env.reset(seed=123)
        >>> sorted(obs), obs["pixels"].shape
        (['pixels', 'state'], (400, 600, 3))
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        render_only: bool = True,
        render_key: str = "pixels",
        obs_key: str = "state",
    ):
        RecordConstructorArgs.__init__(
            self, render_only=render_only, render_key=render_key, obs_key=obs_key
        )
        if env.render_mode is None or env.render_mode == "human":
            raise ValueError(
                "AddRenderObservation requires render_mode to be not None and not 'human', "
                f"got {env.render_mode}"
            )
        env.reset()
        pixels = env.render()
        if not isinstance(pixels, np.ndarray):
            raise TypeError(
                "AddRenderObservation expects env.render() to return a numpy array, "
                f"got {type(pixels)}"
            )
        self.render_only = render_only
        self.render_key = render_key
        self.obs_key = obs_key
        space = self._space_with_pixels(
            env.observation_space, spaces.Box(0, 255, shape=pixels.shape, dtype=np.uint8)
        )
        TransformObservation.__init__(self, env, func=self._with_pixels, observation_space=space)

    def _space_with_pixels(self, inner: spaces.Space, pixel_space: spaces.Box) -> spaces.Space:
        if self.render_only:
            return pixel_space
        if isinstance(inner, spaces.Dict):
            if self.render_key in inner.spaces:
                raise ValueError(
                    f"AddRenderObservation render_key '{self.render_key}' already exists in the "
                    "observation space"
                )
            return spaces.Dict(
                {self.render_key: pixel_space, **inner.spaces}, sort_keys=inner.sort_keys
            )
        return spaces.Dict({self.obs_key: inner, self.render_key: pixel_space})

    def _with_pixels(self, observation: ObsType) -> Any:
        """Combine the env's observation with its current rendering."""
        pixels = self.render()
        if self.render_only:
            return pixels
        if isinstance(self.env.observation_space, spaces.Dict):
            return {self.render_key: pixels, **observation}
        return {self.obs_key: observation, self.render_key: pixels}
