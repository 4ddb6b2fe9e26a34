"""Helpers shared by the wrappers: running statistics, neutral observations, box rescaling.

Example:
    >>> import numpy as np
    >>> rms = RunningMeanStd(shape=(2,))
    >>> rms.update(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> rms.mean.round(3)
    array([2., 3.])
"""

from __future__ import annotations

from collections.abc import Callable
from functools import singledispatch
from typing import Any

import numpy as np

from palaestra import spaces
from palaestra.error import CustomSpaceError, InvalidProbability
from palaestra.utils.library_name import library_name

__all__ = [
    "RunningMeanStd",
    "check_chance",
    "update_mean_var_count_from_moments",
    "create_zero_array",
    "rescale_box",
    "area_weights",
    "AreaResizer",
]


def check_chance(name: str, value: float, error: type[Exception] = InvalidProbability) -> None:
    """Check that a per-step or per-pixel chance lies in the half-open interval [0, 1).

    Args:
        name: how the message names the argument (each wrapper keeps Gymnasium's wording).
        value: the chance.
        error: the exception type to raise (the wrappers keep Gymnasium's types).

    Raises:
        InvalidProbability: (or ``error``) if ``value`` is outside [0, 1).

    Example:
        >>> check_chance("p", 0.25)
        >>> check_chance("p", 1.0)
        Traceback (most recent call last):
        ...
        palaestra.error.InvalidProbability: p should be in the interval [0,1). Received 1.0
    """
    if not 0 <= value < 1:
        raise error(f"{name} should be in the interval [0,1). Received {value}")


class RunningMeanStd:
    """Running mean, variance and count of a stream of batches (Chan et al.'s parallel update).

    The statistics are plain attributes (``mean``, ``var``, ``count``) that can be read,
    assigned, pickled, or saved and restored as a whole with :meth:`get_state` /
    :meth:`set_state`, so a policy is evaluated with the normalization it was trained with.

    Args:
        epsilon: the initial count, a tiny pseudo-count that keeps the first update defined.
        shape: the shape of one sample.
        dtype: the dtype of ``mean`` and ``var``.

    Example:
        >>> rms = RunningMeanStd()
        >>> rms.update(np.array([1.0, 3.0]))
        >>> float(rms.mean.round(4)), float(rms.var.round(4)), round(rms.count, 4)
        (2.0, 1.0001, 2.0001)
    """

    def __init__(self, epsilon: float = 1e-4, shape: tuple[int, ...] = (), dtype: Any = np.float64):
        self.mean = np.zeros(shape, dtype=dtype)
        self.var = np.ones(shape, dtype=dtype)
        self.count = epsilon

    def update(self, x: np.ndarray) -> None:
        """Fold a batch of samples (stacked along the first axis) into the statistics.

        Args:
            x: an array of shape ``(batch, *shape)``.
        """
        self.update_from_moments(np.mean(x, axis=0), np.var(x, axis=0), x.shape[0])

    def update_from_moments(self, batch_mean: Any, batch_var: Any, batch_count: int) -> None:
        """Fold a batch given by its mean, variance and size into the statistics.

        Args:
            batch_mean: the batch's mean.
            batch_var: the batch's (population) variance.
            batch_count: the number of samples in the batch.
        """
        self.mean, self.var, self.count = update_mean_var_count_from_moments(
            self.mean, self.var, self.count, batch_mean, batch_var, batch_count
        )

    def get_state(self) -> dict[str, Any]:
        """Return a copy of the statistics, ``{"mean", "var", "count"}``, for saving.

        Example:
            >>> RunningMeanStd(shape=(1,)).get_state()
            {'mean': array([0.]), 'var': array([1.]), 'count': 0.0001}
        """
        return {"mean": np.copy(self.mean), "var": np.copy(self.var), "count": self.count}

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore statistics saved by :meth:`get_state`.

        Args:
            state: a mapping with the keys ``"mean"``, ``"var"`` and ``"count"``.

        Raises:
            KeyError: if a key is missing.
            ValueError: if ``mean`` or ``var`` does not have this object's shape.

        Example:
            >>> rms = RunningMeanStd()
            >>> rms.set_state({"mean": 1.5, "var": 4.0, "count": 10})
            >>> float(rms.mean), float(rms.var), rms.count
            (1.5, 4.0, 10)
        """
        missing = [key for key in ("mean", "var", "count") if key not in state]
        if missing:
            raise KeyError(
                f"Running statistics state is missing {missing}; expected the keys "
                "'mean', 'var' and 'count' as returned by `get_state()`."
            )
        mean = np.asarray(state["mean"], dtype=self.mean.dtype)
        var = np.asarray(state["var"], dtype=self.var.dtype)
        for name, value in (("mean", mean), ("var", var)):
            if value.shape != self.mean.shape:
                raise ValueError(
                    f"Running statistics `{name}` has shape {value.shape}, expected "
                    f"{self.mean.shape}; restore state saved from a matching space."
                )
        self.mean, self.var, self.count = np.copy(mean), np.copy(var), state["count"]

    def __repr__(self) -> str:
        return f"RunningMeanStd(mean={self.mean!r}, var={self.var!r}, count={self.count!r})"


def update_mean_var_count_from_moments(
    mean: Any, var: Any, count: float, batch_mean: Any, batch_var: Any, batch_count: float
) -> tuple[Any, Any, float]:
    """Combine running moments with a batch's moments.

    Args:
        mean: the running mean.
        var: the running variance.
        count: the running count.
        batch_mean: the batch's mean.
        batch_var: the batch's variance.
        batch_count: the batch's size.

    Returns:
        ``(new_mean, new_var, new_count)``.

    Example:
        >>> update_mean_var_count_from_moments(np.zeros(1), np.zeros(1), 1, np.full(1, 2.0), 0, 1)
        (array([1.]), array([1.]), 2)
    """
    delta = batch_mean - mean
    total = count + batch_count
    new_mean = mean + delta * batch_count / total
    sum_of_squares = (
        var * count + batch_var * batch_count + np.square(delta) * count * batch_count / total
    )
    return new_mean, sum_of_squares / total, total


@singledispatch
def create_zero_array(space: spaces.Space) -> Any:
    """Build a neutral element of ``space``: zeros, moved inside bounds that exclude zero.

    Used as padding (frame stacking) and as the placeholder of delayed observations.

    Args:
        space: any built-in space.

    Raises:
        CustomSpaceError: for a custom ``Space`` subclass with no registered implementation.
        TypeError: if ``space`` is not a space at all.

    Example:
        >>> create_zero_array(spaces.Box(1.0, 2.0, shape=(2,)))
        array([1., 1.], dtype=float32)
        >>> create_zero_array(spaces.Discrete(3, start=-1))
        np.int64(-1)
    """
    if isinstance(space, spaces.Space):
        raise CustomSpaceError(
            f"Space of type `{type(space)}` has no `create_zero_array` implementation; "
            f"register one with `create_zero_array.register({type(space).__name__})`."
        )
    raise TypeError(
        f"The space provided to `create_zero_array` is not a {library_name()} Space instance, "
        f"type: {type(space)}, {space}"
    )


@create_zero_array.register(spaces.Box)
def _box_zero(space: spaces.Box) -> np.ndarray:
    zeros = np.zeros(space.shape, dtype=space.dtype)
    zeros = np.where(space.low > 0, space.low, zeros)
    return np.where(space.high < 0, space.high, zeros)


@create_zero_array.register(spaces.Discrete)
def _discrete_zero(space: spaces.Discrete) -> Any:
    return space.start


@create_zero_array.register(spaces.MultiDiscrete)
def _multi_discrete_zero(space: spaces.MultiDiscrete) -> np.ndarray:
    return np.array(space.start, copy=True, dtype=space.dtype)


@create_zero_array.register(spaces.MultiBinary)
def _multi_binary_zero(space: spaces.MultiBinary) -> np.ndarray:
    return np.zeros(space.shape, dtype=space.dtype)


@create_zero_array.register(spaces.Tuple)
def _tuple_zero(space: spaces.Tuple) -> tuple[Any, ...]:
    return tuple(create_zero_array(subspace) for subspace in space.spaces)


@create_zero_array.register(spaces.Dict)
def _dict_zero(space: spaces.Dict) -> dict[str, Any]:
    return {key: create_zero_array(subspace) for key, subspace in space.spaces.items()}


@create_zero_array.register(spaces.Sequence)
def _sequence_zero(space: spaces.Sequence) -> Any:
    return create_zero_array(space.stacked_feature_space) if space.stack else ()


@create_zero_array.register(spaces.Text)
def _text_zero(space: spaces.Text) -> str:
    return space.characters[0] * space.min_length


@create_zero_array.register(spaces.Graph)
def _graph_zero(space: spaces.Graph) -> spaces.GraphInstance:
    from palaestra.vector.utils import batch_space

    nodes = create_zero_array(batch_space(space.node_space, 1))
    if space.edge_space is None:
        return spaces.GraphInstance(nodes=nodes, edges=None, edge_links=None)
    edges = create_zero_array(batch_space(space.edge_space, 1))
    return spaces.GraphInstance(
        nodes=nodes, edges=edges, edge_links=np.zeros((1, 2), dtype=np.int64)
    )


@create_zero_array.register(spaces.OneOf)
def _one_of_zero(space: spaces.OneOf) -> tuple[int, Any]:
    return 0, create_zero_array(space.spaces[0])


def _as_bound_array(value: Any, shape: tuple[int, ...], name: str) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        if not (np.issubdtype(type(value), np.integer) or np.issubdtype(type(value), np.floating)):
            raise TypeError(
                f"Expected {name} to be an integer, float, or numpy array, got {type(value)}"
            )
        value = np.full(shape, value)
    if value.shape != shape:
        raise ValueError(f"Expected {name}.shape to be {shape}, got {value.shape}")
    return value


def _check_rescale_bounds(box: spaces.Box, new_min: np.ndarray, new_max: np.ndarray) -> None:
    for new, old in ((new_min, box.low), (new_max, box.high)):
        infinite = np.isinf(new) | np.isinf(old)
        if not np.all((new == old)[infinite]):
            raise ValueError(
                "For unbounded components, the target bounds must match the original "
                "infinity bounds."
            )
    if not np.all(new_min <= new_max):
        raise ValueError(
            f"Expected new_min to be less than or equal to new_max, got {new_min} and {new_max}"
        )
    if not np.all(box.low <= box.high):
        raise ValueError(
            f"Expected box.low to be less than or equal to box.high, got {box.low} and {box.high}"
        )


def _wide_float() -> Any:
    # Extended precision keeps `high - low` exact for huge float64 bounds where it exists.
    return getattr(np, "float128", np.float64)


def rescale_box(
    box: spaces.Box, new_min: Any, new_max: Any
) -> tuple[spaces.Box, Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]:
    """Build the affine map from ``box`` onto ``[new_min, new_max]``, and its inverse.

    Components that are unbounded on a side keep that side; such a side must stay infinite.

    Args:
        box: the original box.
        new_min: the new lower bound, a number or an array of ``box.shape``.
        new_max: the new upper bound, a number or an array of ``box.shape``.

    Returns:
        ``(new_box, forward, backward)``: ``forward`` maps ``box`` values into ``new_box``,
        ``backward`` maps them back.

    Raises:
        TypeError: if ``box`` is not a ``Box`` or a bound is not a number or an array.
        ValueError: if a bound has the wrong shape, changes an infinite side, or
            ``new_min > new_max``.

    Example:
        >>> new_box, forward, backward = rescale_box(spaces.Box(0.0, 10.0), -1.0, 1.0)
        >>> forward(np.array([5.0], dtype=np.float32)), backward(np.array([1.0]))
        (array([0.], dtype=float32), array([10.]))
    """
    if not isinstance(box, spaces.Box):
        raise TypeError(f"Expected box to be a Box space, got {type(box)}")
    new_min = _as_bound_array(new_min, box.shape, "new_min")
    new_max = _as_bound_array(new_max, box.shape, "new_max")
    _check_rescale_bounds(box, new_min, new_max)

    min_finite, max_finite = np.isfinite(new_min), np.isfinite(new_max)
    both_finite = min_finite & max_finite
    old_width = np.array(box.high[both_finite], dtype=_wide_float()) - np.array(
        box.low[both_finite], dtype=_wide_float()
    )
    gradient = np.ones_like(new_min, dtype=box.dtype)
    gradient[both_finite] = (new_max[both_finite] - new_min[both_finite]) / old_width
    intercept = np.zeros_like(new_min, dtype=box.dtype)
    # A finite lower bound anchors the map; a finite upper bound alone only shifts it.
    intercept[max_finite] = new_max[max_finite] - box.high[max_finite]
    intercept[min_finite] = new_min[min_finite] - gradient[min_finite] * box.low[min_finite]

    new_box = spaces.Box(low=new_min, high=new_max, shape=box.shape, dtype=box.dtype)

    def forward(value: np.ndarray) -> np.ndarray:
        return gradient * value + intercept

    def backward(value: np.ndarray) -> np.ndarray:
        return (value - intercept) / gradient

    return new_box, forward, backward


def area_weights(in_size: int, out_size: int) -> np.ndarray:
    """Build the ``(out_size, in_size)`` matrix that resamples an image axis by area averaging.

    Output pixel ``i`` covers the input interval ``[i * s, (i + 1) * s)`` with
    ``s = in_size / out_size``; its value is the mean of the input over that interval, each
    input pixel weighted by how much of it the interval covers. Shrinking by an integer factor
    is therefore the plain block mean (OpenCV's ``INTER_AREA``); enlarging repeats pixels,
    blending the two neighbours where an output pixel straddles a boundary.

    Args:
        in_size: the number of input pixels along the axis.
        out_size: the number of output pixels along the axis.

    Example:
        >>> area_weights(4, 2)
        array([[0.5, 0.5, 0. , 0. ],
               [0. , 0. , 0.5, 0.5]])
    """
    scale = in_size / out_size
    starts = np.arange(out_size)[:, None] * scale
    pixels = np.arange(in_size)[None, :]
    overlap = np.minimum(starts + scale, pixels + 1) - np.maximum(starts, pixels)
    return np.clip(overlap, 0.0, None) / scale


class AreaResizer:
    """Resize ``(H, W)`` or ``(H, W, C)`` uint8 images to a fixed size by area averaging.

    Each output pixel is the mean of the input area it covers (see :func:`area_weights`),
    rounded half up; this is OpenCV's ``INTER_AREA`` when shrinking, within one grey level
    (OpenCV rounds some exact halves down). Shrinking by integer factors sums whole blocks in
    integer arithmetic (exact); other sizes apply the two weight matrices as float32 matrix
    products.

    Args:
        in_size: the input ``(height, width)``.
        out_size: the output ``(height, width)``.

    Example:
        >>> image = np.arange(16, dtype=np.uint8).reshape(4, 4)
        >>> AreaResizer((4, 4), (2, 2))(image)
        array([[ 3,  5],
               [11, 13]], dtype=uint8)
    """

    def __init__(self, in_size: tuple[int, int], out_size: tuple[int, int]):
        (in_h, in_w), (out_h, out_w) = in_size, out_size
        self.out_size = (out_h, out_w)
        self.block = None
        if in_h % out_h == 0 and in_w % out_w == 0:
            self.block = (in_h // out_h, in_w // out_w)
        self.row_weights = area_weights(in_h, out_h).astype(np.float32)
        self.col_weights_t = np.ascontiguousarray(area_weights(in_w, out_w).T, dtype=np.float32)

    def __call__(self, image: np.ndarray) -> np.ndarray:
        """Return ``image`` resized, as uint8 with the channel axis (if any) kept."""
        if self.block is not None:
            return self._block_mean(image)
        return self._weighted(image)

    def _block_mean(self, image: np.ndarray) -> np.ndarray:
        (out_h, out_w), (block_h, block_w) = self.out_size, self.block
        # Adding the block's slices one by one is several times faster than a strided sum.
        rows = image.astype(np.uint32).reshape(out_h, block_h, -1)
        row_sums = rows[:, 0].copy()
        for offset in range(1, block_h):
            row_sums += rows[:, offset]
        cols = row_sums.reshape(out_h, out_w, block_w, *image.shape[2:])
        sums = cols[:, :, 0].copy()
        for offset in range(1, block_w):
            sums += cols[:, :, offset]
        count = block_h * block_w
        return ((sums + count // 2) // count).astype(np.uint8)

    def _weighted(self, image: np.ndarray) -> np.ndarray:
        height, width = image.shape[:2]
        out_h, out_w = self.out_size
        channels = image.shape[2:]
        rows = self.row_weights @ image.reshape(height, -1).astype(np.float32)
        # Put width last in one contiguous 2-D block, so both passes are single BLAS calls.
        rows = np.ascontiguousarray(np.moveaxis(rows.reshape(out_h, width, -1), 1, -1))
        resized = (rows.reshape(-1, width) @ self.col_weights_t).reshape(out_h, -1, out_w)
        resized = np.moveaxis(resized, -1, 1).reshape(out_h, out_w, *channels)
        return np.clip(np.floor(resized + 0.5), 0, 255).astype(np.uint8)
