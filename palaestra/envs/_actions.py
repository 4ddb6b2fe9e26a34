"""One conversion of a single environment's action: a list or tuple becomes an array."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["as_array_action"]


def as_array_action(action: Any) -> Any:
    """Return a list or tuple action as the numpy array it spells; any other action as is.

    Gymnasium's continuous-control environments step ``[0.1] * 6`` as they step the array,
    because their arithmetic converts it; ours read array attributes (``ndim``, ``shape``)
    directly, so they convert first, before anything advances.

    Example:
        >>> as_array_action([0.1, 0.2])
        array([0.1, 0.2])
        >>> as_array_action(3)
        3
    """
    if isinstance(action, (list, tuple)):
        return np.asarray(action)
    return action
