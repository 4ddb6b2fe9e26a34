"""Arrays whose ``x ** 2`` rounds exactly as ``x ** 2`` on each numpy scalar would.

The single environments square numpy scalars with ``**``, which numpy hands to the C library's
``pow``; numpy arrays square by multiplying. The two disagree by one ulp in about 0.1% of
cases, which is enough to break seeding parity between a natively batched environment and a
sync vector env of single ones. Passing states as :class:`ScalarPowArray` to the shared
dynamics functions makes the batch square like the scalars, at the cost of a little
arithmetic: only elements whose exact square lies close to a rounding midpoint (where ``pow``
may round the other way) are recomputed with ``pow``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["ScalarPowArray", "scalar_pow_square"]

# An error-free product needs each factor split in two halves of 26 bits (Dekker).
_SPLITTER = 134217729.0
# pow's result is within 0.52 ulp of the exact square; it can only round differently from the
# correctly rounded product when the exact value lies within that margin of a midpoint.
_MIDPOINT_MARGIN = 0.48


def _near_midpoint_float64(x: np.ndarray, product: np.ndarray) -> np.ndarray:
    scaled = _SPLITTER * x
    high = scaled - (scaled - x)
    low = x - high
    residual = ((high * high - product) + 2.0 * high * low) + low * low
    return np.abs(residual) > _MIDPOINT_MARGIN * np.spacing(product)


def _near_midpoint_float32(x: np.ndarray, product: np.ndarray) -> np.ndarray:
    exact = x.astype(np.float64) * x.astype(np.float64)
    residual = exact - product.astype(np.float64)
    return np.abs(residual) > _MIDPOINT_MARGIN * np.spacing(product).astype(np.float64)


def scalar_pow_square(x: np.ndarray) -> np.ndarray:
    """Square every element of ``x`` exactly as ``element ** 2`` on a numpy scalar does.

    Args:
        x: a float64 or float32 array.

    Returns:
        A plain array of ``x``'s dtype.

    Example:
        >>> import numpy as np
        >>> values = np.random.default_rng(0).normal(size=1000)
        >>> squares = scalar_pow_square(values)
        >>> all(squares[i] == values[i] ** 2 for i in range(1000))
        True
    """
    x = np.asarray(x)
    product = x * x
    if x.dtype == np.float64:
        near = _near_midpoint_float64(x, product)
    elif x.dtype == np.float32:
        near = _near_midpoint_float32(x, product)
    else:
        return product
    flat_near = near.reshape(-1).nonzero()[0]
    if flat_near.size:
        flat_product = product.reshape(-1)
        values = x.reshape(-1)[flat_near]
        if x.dtype == np.float64:
            # Python floats square with the C library's pow, exactly as float64 numpy
            # scalars do, at half the cost; float32 scalars keep numpy's single-precision pow.
            values = values.tolist()
        flat_product[flat_near] = [value**2 for value in values]
    return product


class ScalarPowArray(np.ndarray):
    """A float array view whose ``** 2`` is :func:`scalar_pow_square`; other powers as usual.

    Results of arithmetic on it stay :class:`ScalarPowArray`, so squares deep inside a
    dynamics function are covered too.

    Example:
        >>> import numpy as np
        >>> values = np.array([0.1, 3.0]).view(ScalarPowArray)
        >>> (values**2).tolist() == [np.float64(0.1) ** 2, np.float64(3.0) ** 2]
        True
    """

    def __pow__(self, exponent: Any) -> Any:
        if isinstance(exponent, (int, float)) and exponent == 2:
            return scalar_pow_square(self.view(np.ndarray)).view(ScalarPowArray)
        return super().__pow__(exponent)
