"""Drive a JAX environment with numpy arrays (the ``jax`` extra).

Example:
    >>> import numpy as np
    >>> numpy_to_jax(np.zeros(2)).dtype
    dtype('float32')
"""

from __future__ import annotations

import functools

import numpy as np

from palaestra.core import Env
from palaestra.error import DependencyNotInstalled
from palaestra.utils import RecordConstructorArgs
from palaestra.wrappers.array_conversion import ArrayConversion, array_conversion, module_namespace

try:
    import jax.numpy as jnp
except ImportError as error:
    raise DependencyNotInstalled(
        'JAX is not installed, so JaxToNumpy cannot be used; run `pip install "palaestra[jax]"`.'
    ) from error

__all__ = ["JaxToNumpy", "jax_to_numpy", "numpy_to_jax"]

jax_to_numpy = functools.partial(array_conversion, xp=module_namespace(np))
jax_to_numpy.__doc__ = "Convert JAX arrays (and containers of them) to numpy arrays."

numpy_to_jax = functools.partial(array_conversion, xp=module_namespace(jnp))
numpy_to_jax.__doc__ = "Convert numpy arrays (and containers of them) to JAX arrays."


class JaxToNumpy(ArrayConversion):
    """Accept numpy actions and return numpy observations and infos for a JAX environment.

    Args:
        env: a JAX-based environment.

    Example:
        >>> JaxToNumpy.__mro__[1].__name__
        'ArrayConversion'
    """

    def __init__(self, env: Env):
        RecordConstructorArgs.__init__(self)
        super().__init__(env=env, env_xp=jnp, target_xp=np)
