"""The :class:`Box` space: arrays of real numbers between (possibly infinite) bounds."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from palaestra import error, logger
from palaestra.spaces.space import Space

_NUMERIC_KINDS = ("i", "u", "f", "b")


def array_short_repr(arr: np.ndarray) -> str:
    """Show a constant array as its single value, any other array in full.

    Example:
        >>> array_short_repr(np.full(3, 2.0, dtype=np.float32))
        '2.0'
        >>> array_short_repr(np.array([1, 2]))
        '[1 2]'
    """
    if arr.size != 0 and np.min(arr) == np.max(arr):
        return str(np.min(arr))
    return str(arr)


def is_float_integer(var: object) -> bool:
    """Return whether ``var`` is a real scalar (python or numpy), excluding ``bool``.

    Example:
        >>> is_float_integer(1.5), is_float_integer(True), is_float_integer([1])
        (True, False, False)
    """
    return isinstance(var, (int, float, np.integer, np.floating)) and not isinstance(var, bool)


def dtype_limits(dtype: np.dtype) -> tuple[float, float]:
    """Return the smallest and largest finite values representable in a numeric ``dtype``.

    Example:
        >>> dtype_limits(np.dtype(np.uint8))
        (0, 255)
    """
    if dtype.kind == "b":
        return 0, 1
    if dtype.kind == "f":
        info = np.finfo(dtype)
        return float(info.min), float(info.max)
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _infer_shape(low: Any, high: Any, shape: Sequence[int] | None) -> tuple[int, ...]:
    if shape is not None:
        if not isinstance(shape, Iterable):
            raise TypeError(f"Expected Box shape to be an iterable, actual type={type(shape)}")
        if not all(isinstance(dim, (int, np.integer)) for dim in shape):
            raise TypeError(
                "Expected all Box shape elements to be integer, "
                f"actual type={tuple(type(dim) for dim in shape)}"
            )
        return tuple(int(dim) for dim in shape)
    if isinstance(low, np.ndarray) and isinstance(high, np.ndarray):
        if low.shape != high.shape:
            raise ValueError(
                f"Box low.shape and high.shape don't match, low.shape={low.shape}, "
                f"high.shape={high.shape}"
            )
        return low.shape
    if isinstance(low, np.ndarray):
        return low.shape
    if isinstance(high, np.ndarray):
        return high.shape
    if is_float_integer(low) and is_float_integer(high):
        return (1,)
    raise ValueError(
        "Box shape is not specified, therefore inferred from low and high. Expected low and high "
        f"to be np.ndarray, integer, or float.Actual types low={type(low)}, high={type(high)}"
    )


class _BoundSide:
    """The rules that differ between the lower and the upper bound of a Box."""

    def __init__(self, name: str, sign: int) -> None:
        self.name = name
        self.sign = sign  # -1 for the lower bound, +1 for the upper bound

    def is_infinite(self, value: Any) -> Any:
        return np.isneginf(value) if self.sign < 0 else np.isposinf(value)

    def beyond(self, value: Any, limit: float) -> Any:
        return value < limit if self.sign < 0 else value > limit

    def dtype_kinds_text(self) -> str:
        """Name the dtypes a bound may have (Gymnasium's high message omits ``bool``)."""
        return "floating, integer, or bool" if self.sign < 0 else "floating or integer"

    def infinity_text(self) -> str:
        return "-np.inf" if self.sign < 0 else "np.inf"


_LOW = _BoundSide("low", -1)
_HIGH = _BoundSide("high", +1)


def _cast_bound(
    value: Any, side: _BoundSide, shape: tuple[int, ...], dtype: np.dtype
) -> tuple[np.ndarray, np.ndarray]:
    """Validate one bound and return it cast to ``dtype`` with its finiteness mask."""
    limit = dtype_limits(dtype)[0 if side.sign < 0 else 1]
    if is_float_integer(value):
        return _cast_scalar_bound(value, side, shape, dtype, limit)
    if not isinstance(value, np.ndarray):
        raise ValueError(
            f"Box {side.name} must be a np.ndarray, integer, or float, actual type={type(value)}"
        )
    if value.dtype.kind not in _NUMERIC_KINDS:
        raise ValueError(
            f"Box {side.name} must be a {side.dtype_kinds_text()} dtype, actual dtype={value.dtype}"
        )
    return _cast_array_bound(value, side, dtype, limit)


def _out_of_dtype_range(value: Any, side: _BoundSide, limit: float) -> ValueError:
    return ValueError(
        f"Box {side.name} is out of bounds of the dtype range, {side.name}={value}, "
        f"{'min' if side.sign < 0 else 'max'} dtype={limit}; pick a wider dtype"
    )


def _reject_nan(value: Any, side: _BoundSide) -> None:
    if np.any(np.isnan(value)):
        raise ValueError(f"No {side.name} value can be equal to `np.nan`, {side.name}={value}")


def _cast_scalar_bound(
    value: Any, side: _BoundSide, shape: tuple[int, ...], dtype: np.dtype, limit: float
) -> tuple[np.ndarray, np.ndarray]:
    _reject_nan(value, side)
    is_finite = np.full(shape, not side.is_infinite(value))
    if side.is_infinite(value):
        value = _replace_infinity(value, side, dtype, limit)
    elif side.beyond(value, limit):
        raise _out_of_dtype_range(value, side, limit)
    return np.full(shape, value, dtype=dtype), is_finite


def _cast_array_bound(
    value: np.ndarray, side: _BoundSide, dtype: np.dtype, limit: float
) -> tuple[np.ndarray, np.ndarray]:
    _reject_nan(value, side)
    infinite = side.is_infinite(value)
    if np.any(infinite):
        replacement = _replace_infinity(value[infinite], side, dtype, limit, shown=value)
    elif value.dtype != dtype and np.any(side.beyond(value, limit)):
        raise _out_of_dtype_range(value, side, limit)
    both_float = value.dtype.kind == "f" and dtype.kind == "f"
    if both_float and np.finfo(dtype).precision < np.finfo(value.dtype).precision:
        logger.warn(
            f"Box {side.name}'s precision lowered by casting to {dtype}, "
            f"current {side.name}.dtype={value.dtype}"
        )
    if not np.any(infinite) or dtype.kind == "f":
        return value.astype(dtype), ~infinite
    # Write the integer extreme after casting: int64's extremes do not survive a float round trip.
    bound = np.where(infinite, 0, value).astype(dtype)
    bound[infinite] = replacement
    return bound, ~infinite


def _replace_infinity(
    value: Any, side: _BoundSide, dtype: np.dtype, limit: float, shown: Any = None
) -> Any:
    """Stand in the dtype's extreme value for an infinite bound where the dtype allows it.

    ``shown`` is the whole bound the error prints (the infinite entries alone by default).
    """
    if dtype.kind == "i":
        return limit
    if dtype.kind in ("u", "b"):
        raise ValueError(
            f"Box unsigned int dtype don't support `{side.infinity_text()}`, "
            f"{side.name}={value if shown is None else shown}; "
            "use a finite bound or a signed/float dtype"
        )
    return value


class Box(Space[npt.NDArray[Any]]):
    """A (possibly unbounded) box in R^n: arrays with element-wise bounds.

    Bounds may be scalars (broadcast to ``shape``) or arrays (whose shape is used when
    ``shape`` is omitted). Infinite bounds are allowed for float dtypes; for signed integer
    dtypes they become the dtype's extreme values.

    Args:
        low: the lower bound(s).
        high: the upper bound(s).
        shape: the element shape; inferred from array bounds (or ``(1,)``) when omitted.
        dtype: an integer, floating or bool dtype.
        seed: seed or generator for sampling.

    Raises:
        ValueError: for a missing or non-numeric dtype, malformed or NaN bounds, bounds not
            representable in ``dtype``, shape mismatches, or ``low > high``.
        TypeError: for a malformed ``shape``.

    Example:
        >>> Box(-1.0, 1.0, (3,))
        Box(-1.0, 1.0, (3,), float32)
        >>> Box(np.array([0, 0]), np.array([1, 2]), dtype=np.int64)
        Box(0, [1 2], (2,), int64)
    """

    def __init__(
        self,
        low: Any,
        high: Any,
        shape: Sequence[int] | None = None,
        dtype: npt.DTypeLike = np.float32,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        if dtype is None:
            raise ValueError("Box dtype must be explicitly provided, cannot be None.")
        self.dtype = np.dtype(dtype)
        if self.dtype.kind not in _NUMERIC_KINDS:
            raise ValueError(
                f"Invalid Box dtype ({self.dtype}), must be an integer, floating, or bool dtype"
            )
        self._shape = _infer_shape(low, high, shape)
        self.low, self.bounded_below = _cast_bound(low, _LOW, self._shape, self.dtype)
        self.high, self.bounded_above = _cast_bound(high, _HIGH, self._shape, self.dtype)
        for name, bound in (("low", self.low), ("high", self.high)):
            if bound.shape != self._shape:
                raise ValueError(
                    f"Box {name}.shape doesn't match provided shape, {name}.shape={bound.shape}, "
                    f"shape={self._shape}"
                )
        if np.any(self.low > self.high):
            raise ValueError(
                "Box all low values must be less than or equal to high (some values break "
                f"this), low={self.low}, high={self.high}"
            )
        self.low_repr: str | None = None
        self.high_repr: str | None = None
        super().__init__(self._shape, self.dtype, seed)

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of every element."""
        return self._shape

    @property
    def is_np_flattenable(self) -> bool:
        """Always ``True``: a Box flattens to a 1-D Box."""
        return True

    def is_bounded(self, manner: Literal["both", "below", "above"] = "both") -> bool:
        """Return whether every element is bounded in the given ``manner``.

        Raises:
            ValueError: if ``manner`` is not ``"both"``, ``"below"`` or ``"above"``.

        Example:
            >>> box = Box(0.0, np.inf, (2,))
            >>> box.is_bounded("below"), box.is_bounded("above"), box.is_bounded()
            (True, False, False)
        """
        below = bool(np.all(self.bounded_below))
        above = bool(np.all(self.bounded_above))
        if manner == "both":
            return below and above
        if manner == "below":
            return below
        if manner == "above":
            return above
        raise ValueError(f"manner is not in {{'below', 'above', 'both'}}, actual value: {manner}")

    def sample(self, mask: None = None, probability: None = None) -> npt.NDArray[Any]:
        """Draw a random element of the box.

        Each entry is uniform where bounded on both sides, a shifted exponential where bounded
        on one side and standard normal where unbounded; integer dtypes are then floored.

        Raises:
            palaestra.error.Error: if a mask or probability is given (Box supports neither).

        Example:
            >>> Box(0, 3, (4,), dtype=np.int64, seed=0).sample()
            array([2, 1, 0, 0])
        """
        if mask is not None:
            raise error.Error(f"Box.sample cannot be provided a mask, actual value: {mask}")
        if probability is not None:
            raise error.Error(
                f"Box.sample cannot be provided a probability mask, actual value: {probability}"
            )
        is_float = self.dtype.kind == "f"
        # Integer boxes include ``high``: draw in [low, high + 1) and floor.
        high = self.high if is_float else self.high.astype("int64") + 1
        below, above = self.bounded_below, self.bounded_above
        if below.all() and above.all():
            # Same draws as the general path (empty draws leave the generator untouched).
            draws = self.np_random.uniform(low=self.low, high=high, size=self.shape)
        else:
            draws = self._draw_by_region(high)
        if not is_float:
            draws = np.floor(draws)
        return self._cast_draws(draws)

    def _draw_by_region(self, high: np.ndarray) -> np.ndarray:
        """Draw each entry from the distribution its kind of boundedness calls for."""
        below, above = self.bounded_below, self.bounded_above
        draws = np.empty(self.shape)
        region = ~below & ~above
        draws[region] = self.np_random.normal(size=np.count_nonzero(region))
        region = below & ~above
        draws[region] = self.np_random.exponential(size=np.count_nonzero(region)) + self.low[region]
        region = ~below & above
        draws[region] = high[region] - self.np_random.exponential(size=np.count_nonzero(region))
        region = below & above
        draws[region] = self.np_random.uniform(
            low=self.low[region], high=high[region], size=np.count_nonzero(region)
        )
        return draws

    def _cast_draws(self, draws: np.ndarray) -> np.ndarray:
        if np.issubdtype(self.dtype, np.integer):
            info = np.iinfo(self.dtype)
            lowest, highest = int(info.min), int(info.max)
            if self.dtype == np.int64:
                # float64 cannot hold int64's extremes exactly; stay clear of them.
                lowest, highest = lowest + 2, highest - 2
            draws = draws.clip(min=lowest, max=highest)
        sample = draws.astype(self.dtype)
        if self.dtype == np.int64:
            sample = sample.clip(min=self.low, max=self.high)
        return sample

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` has the Box's shape, a castable dtype and lies within bounds.

        Non-array input is converted with a warning.

        Example:
            >>> np.zeros(2, dtype=np.float32) in Box(-1.0, 1.0, (2,))
            True
        """
        if not isinstance(x, np.ndarray):
            logger.warn("Casting input x to numpy array.")
            try:
                x = np.asarray(x, dtype=self.dtype)
            except (ValueError, TypeError, OverflowError):
                return False
        return bool(
            np.can_cast(x.dtype, self.dtype)
            and x.shape == self.shape
            and np.all(x >= self.low)
            and np.all(x <= self.high)
        )

    def to_jsonable(self, sample_n: Iterable[np.ndarray]) -> list[list]:
        """Convert a batch of samples to nested lists.

        Example:
            >>> Box(0.0, 1.0, (2,)).to_jsonable([np.array([0.5, 1.0])])
            [[0.5, 1.0]]
        """
        return [sample.tolist() for sample in sample_n]

    def from_jsonable(self, sample_n: Iterable[float | list]) -> list[np.ndarray]:
        """Convert nested lists back to arrays of the Box's dtype.

        Example:
            >>> Box(0.0, 1.0, (2,)).from_jsonable([[0.5, 1.0]])
            [array([0.5, 1. ], dtype=float32)]
        """
        return [np.asarray(sample, dtype=self.dtype) for sample in sample_n]

    def __repr__(self) -> str:
        if self.low_repr is None:
            self.low_repr = array_short_repr(self.low)
        if self.high_repr is None:
            self.high_repr = array_short_repr(self.high)
        return f"Box({self.low_repr}, {self.high_repr}, {self.shape}, {self.dtype})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Box)
            and self.shape == other.shape
            and self.dtype == other.dtype
            and np.allclose(self.low, other.low)
            and np.allclose(self.high, other.high)
        )

    def __setstate__(self, state: Iterable[tuple[str, Any]] | Mapping[str, Any]) -> None:
        super().__setstate__(state)
        if not hasattr(self, "low_repr"):
            self.low_repr = array_short_repr(self.low)
        if not hasattr(self, "high_repr"):
            self.high_repr = array_short_repr(self.high)
