"""Drive a JAX vector env with PyTorch tensors (the ``jax`` and ``torch`` extras).

Example:
    >>> JaxToTorch.__mro__[1].__name__
    'ArrayConversion'
"""

from __future__ import annotations

from palaestra.utils import RecordConstructorArgs
from palaestra.vector.vector_env import VectorEnv
from palaestra.wrappers.jax_to_torch import Device, jnp, torch
from palaestra.wrappers.vector.array_conversion import ArrayConversion

__all__ = ["JaxToTorch"]


class JaxToTorch(ArrayConversion):
    """Accept torch actions and return torch batches for a JAX vector env.

    Args:
        env: a JAX-based vector env.
        device: the device returned tensors are put on (``None`` for the default).

    Example:
        >>> JaxToTorch.__init__.__defaults__
        (None,)
    """

    def __init__(self, env: VectorEnv, device: Device | None = None):
        RecordConstructorArgs.__init__(self, device=device)
        super().__init__(env, env_xp=jnp, target_xp=torch, target_device=device)
        self.device = device
