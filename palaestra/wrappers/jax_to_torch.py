"""Drive a JAX environment with PyTorch tensors (the ``jax`` and ``torch`` extras).

Example:
    >>> import torch
    >>> jax_to_torch(torch_to_jax(torch.zeros(2))).dtype
    torch.float32
"""

from __future__ import annotations

import functools

from palaestra.core import Env
from palaestra.error import DependencyNotInstalled
from palaestra.utils import RecordConstructorArgs
from palaestra.wrappers.array_conversion import ArrayConversion, array_conversion, module_namespace

try:
    import jax.numpy as jnp
except ImportError as error:
    raise DependencyNotInstalled(
        'JAX is not installed, so JaxToTorch cannot be used; run `pip install "palaestra[jax]"`.'
    ) from error
try:
    import torch
except ImportError as error:
    raise DependencyNotInstalled(
        "PyTorch is not installed, so JaxToTorch cannot be used; "
        'run `pip install "palaestra[torch]"`.'
    ) from error

__all__ = ["JaxToTorch", "jax_to_torch", "torch_to_jax", "Device"]

Device = str | torch.device

torch_to_jax = functools.partial(array_conversion, xp=module_namespace(jnp))
torch_to_jax.__doc__ = "Convert torch tensors (and containers of them) to JAX arrays."

jax_to_torch = functools.partial(array_conversion, xp=module_namespace(torch))
jax_to_torch.__doc__ = "Convert JAX arrays (and containers of them) to torch tensors."


class JaxToTorch(ArrayConversion):
    """Accept torch actions and return torch observations and infos for a JAX environment.

    Args:
        env: a JAX-based environment.
        device: the device returned tensors are put on (``None`` for the default).

    Example:
        >>> JaxToTorch.__mro__[1].__name__
        'ArrayConversion'
    """

    def __init__(self, env: Env, device: Device | None = None):
        RecordConstructorArgs.__init__(self, device=device)
        super().__init__(env=env, env_xp=jnp, target_xp=torch, target_device=device)
        self.device = device
