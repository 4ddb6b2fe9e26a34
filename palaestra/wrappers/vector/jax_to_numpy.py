"""Drive a JAX vector env with numpy arrays (the ``jax`` extra).

Example:
    >>> JaxToNumpy.__mro__[1].__name__
    'ArrayConversion'
"""

from __future__ import annotations

import numpy as np

from palaestra.utils import RecordConstructorArgs
from palaestra.vector.vector_env import VectorEnv
from palaestra.wrappers.jax_to_numpy import jnp
from palaestra.wrappers.vector.array_conversion import ArrayConversion

__all__ = ["JaxToNumpy"]


class JaxToNumpy(ArrayConversion):
    """Accept numpy actions and return numpy batches for a JAX vector env.

    Args:
        env: a JAX-based vector env.

    Example:
        >>> JaxToNumpy.__init__.__defaults__ is None
        True
    """

    def __init__(self, env: VectorEnv):
        RecordConstructorArgs.__init__(self)
        super().__init__(env, env_xp=jnp, target_xp=np)
