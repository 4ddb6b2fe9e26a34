"""Array helpers shared by the dynamics modules."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

# The helpers below tell a scalar (a Python or numpy scalar, or a 0-d array) from an array by
# ``getattr(value, "ndim", 0) == 0``, written out in each: cheaper than np.ndim, and a call
# to a shared predicate would cost as much again on every step of one environment.


def components(state: np.ndarray) -> Any:
    """Split a state into its components, the inverse of :func:`stack_components`.

    One float64 state (1-D) gives Python floats: arithmetic on them costs a fraction of
    numpy-scalar arithmetic and rounds identically. One state of another dtype gives numpy
    scalars of that dtype, so that float32 arithmetic stays float32. A batch gives one array
    per component.

    Example:
        >>> components(np.array([1.0, 2.0]))
        [1.0, 2.0]
        >>> [column.tolist() for column in components(np.array([[1.0, 2.0], [3.0, 4.0]]))]
        [[1.0, 3.0], [2.0, 4.0]]
    """
    if state.ndim != 1:
        return state.T
    if state.dtype.type is np.float64:
        return state.tolist()
    size = len(state)
    getter = _ITEM_GETTERS.get(size)
    if getter is None:
        # Indexing is several times faster than iterating over a small array.
        getter = _ITEM_GETTERS[size] = operator.itemgetter(*range(size)) if size > 1 else tuple
    return getter(state)


_ITEM_GETTERS: dict[int, Callable[[np.ndarray], Any]] = {}


def stack_components(*components: Any, dtype: npt.DTypeLike = np.float64) -> np.ndarray:
    """Join state components into one state array, components on the last axis.

    Scalars give a 1-D state (the single-environment path, kept cheap); 1-D arrays give a
    ``(batch, n_components)`` array.

    Args:
        components: scalars, or 1-D arrays of one common length.
        dtype: the dtype of the result.

    Example:
        >>> stack_components(1.0, 2.0)
        array([1., 2.])
        >>> stack_components(np.array([1.0, 2.0]), np.array([3.0, 4.0])).tolist()
        [[1.0, 3.0], [2.0, 4.0]]
    """
    if getattr(components[0], "ndim", 0) == 0:
        return np.array(components, dtype=dtype)
    # Written as rows and transposed: each component stays contiguous (a column-major batch),
    # so the next step's ``state.T`` unpacks into contiguous arrays, and stacking is a copy of
    # whole blocks rather than an interleave. Row assignment casts as ``astype`` does, without
    # ``np.stack``'s Python-level checks (a few microseconds a call on small batches).
    stacked = np.empty((len(components), len(components[0])), dtype=dtype)
    for row, component in zip(stacked, components):
        row[...] = component
    return stacked.T


def select(condition: Any, if_true: Any, if_false: Any) -> Any:
    """Pick ``if_true`` where ``condition`` holds, else ``if_false``, like :func:`numpy.where`.

    A scalar condition picks without building arrays, which keeps one environment's step
    on cheap numpy scalars.

    Example:
        >>> select(np.array([True, False]), 1.0, 2.0).tolist()
        [1.0, 2.0]
        >>> select(np.False_, 1.0, 2.0)
        2.0
    """
    if getattr(condition, "ndim", 0) == 0:
        return if_true if condition else if_false
    return np.where(condition, if_true, if_false)


def any_true(condition: Any) -> bool:
    """Whether ``condition`` holds anywhere: itself for a scalar, ``any()`` for an array.

    Example:
        >>> any_true(np.array([False, True])), any_true(False)
        (True, False)
    """
    if getattr(condition, "ndim", 0) == 0:
        return bool(condition)
    return bool(condition.any())


def clip(value: Any, low: Any, high: Any) -> Any:
    """Limit ``value`` to ``[low, high]``, like :func:`numpy.clip` and with its result dtype.

    A scalar is clipped with comparisons, which costs a tenth of a ufunc call on it.

    Example:
        >>> clip(np.array([-3.0, 0.5, 3.0]), -1.0, 1.0).tolist()
        [-1.0, 0.5, 1.0]
        >>> clip(np.float32(3.0), -1.0, 1.0)
        np.float32(1.0)
    """
    if getattr(value, "ndim", 0) == 0:
        if value < low:
            return type(value)(low)
        if value > high:
            return type(value)(high)
        return value
    return np.minimum(np.maximum(value, low), high)


def rounded_like(value: Any, other: Any) -> Any:
    """Return ``value`` ready for arithmetic with ``other`` in ``other``'s precision.

    A scalar becomes a Python float, which numpy rounds to the precision of the numpy scalar
    it meets (a float32 one, say), just as it rounds Gymnasium's Python-float intermediates;
    this costs a fraction of building a numpy scalar. An array is cast to ``other``'s dtype.

    Example:
        >>> np.float32(0.5) - rounded_like(np.float64(0.1), np.float32(0.5))
        np.float32(0.4)
        >>> rounded_like(np.array([0.1]), np.zeros(2, dtype=np.float32)).dtype
        dtype('float32')
    """
    if getattr(value, "ndim", 0) == 0:
        return float(value)
    return value.astype(other.dtype, copy=False)


def as_type(value: Any, scalar_type: type) -> Any:
    """Convert ``value`` to the numpy ``scalar_type`` (e.g. ``np.float32``), rounding once.

    Scalars are converted by calling the type, several times cheaper than ``astype``.

    Example:
        >>> as_type(np.float64(0.1), np.float32)
        np.float32(0.1)
        >>> as_type(np.array([0.1]), np.float32).dtype
        dtype('float32')
    """
    if getattr(value, "ndim", 0) == 0:
        return scalar_type(value)
    return value.astype(scalar_type, copy=False)


def uniform_states(
    rng: np.random.Generator, low: float, high: float, size: int, batch_size: int | None
) -> np.ndarray:
    """Draw float64 states whose ``size`` components are all uniform in ``[low, high)``.

    The draw is one ``rng.uniform`` call of the result's shape, the order in which
    Gymnasium's environments consume their generator, so equal seeds give equal states.

    Args:
        rng: the generator to draw from.
        low: lower bound of every component.
        high: upper bound of every component.
        size: the number of components of one state.
        batch_size: ``None`` for one state of shape ``(size,)``, else ``(batch_size, size)``.

    Example:
        >>> uniform_states(np.random.default_rng(0), -0.1, 0.1, 4, batch_size=3).shape
        (3, 4)
    """
    shape = (size,) if batch_size is None else (batch_size, size)
    return rng.uniform(low=low, high=high, size=shape)
