"""The batching helpers of :mod:`palaestra.vector.utils`, for the spaces that batch themselves.

``Sequence(stack=True)``, ``Graph`` and :func:`palaestra.spaces.utils.flatten` batch with the
vector helpers, which themselves import this package: they are imported on first use, here.
"""

from __future__ import annotations

from types import ModuleType

__all__ = ["vector_utils"]


def vector_utils() -> ModuleType:
    """Return :mod:`palaestra.vector.utils`, importing it on first use.

    Example:
        >>> vector_utils().batch_space.__name__
        'batch_space'
    """
    from palaestra.vector import utils

    return utils
