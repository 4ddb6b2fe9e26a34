"""Array helpers shared by the dynamics modules."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


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
    if np.ndim(components[0]) == 0:
        return np.array(components, dtype=dtype)
    return np.stack(components, axis=-1).astype(dtype, copy=False)
