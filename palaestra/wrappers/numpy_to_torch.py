"""Drive a numpy environment with PyTorch tensors (the ``torch`` extra).

Example:
    >>> import palaestra as gym
    >>> env = NumpyToTorch(gym.make("CartPole-v1"))
    >>> obs, info = env.reset(seed=0)
    >>> obs.dtype, obs.shape
    (torch.float32, torch.Size([4]))
"""

from __future__ import annotations

import functools

import numpy as np

from palaestra.core import Env
from palaestra.error import DependencyNotInstalled
from palaestra.utils import RecordConstructorArgs
from palaestra.wrappers.array_conversion import ArrayConversion, array_conversion, module_namespace

try:
    import torch
except ImportError as error:
    raise DependencyNotInstalled(
        "PyTorch is not installed, so NumpyToTorch cannot be used; "
        'run `pip install "palaestra[torch]"`.'
    ) from error

__all__ = ["NumpyToTorch", "numpy_to_torch", "torch_to_numpy", "Device"]

Device = str | torch.device

numpy_to_torch = functools.partial(array_conversion, xp=module_namespace(torch))
numpy_to_torch.__doc__ = "Convert numpy arrays (and containers of them) to torch tensors."

torch_to_numpy = functools.partial(array_conversion, xp=module_namespace(np))
torch_to_numpy.__doc__ = "Convert torch tensors (and containers of them) to numpy arrays."


class NumpyToTorch(ArrayConversion):
    """Accept torch actions and return torch observations and infos for a numpy environment.

    Dtypes are preserved (float64 stays float64); dict, tuple and nested observations are
    converted leaf by leaf; rewards and flags become Python ``float`` and ``bool``.

    Args:
        env: a numpy-based environment.
        device: the device returned tensors are put on (``None`` keeps them on the CPU).

    Example:
        >>> import palaestra as gym
        >>> env = NumpyToTorch(gym.make("CartPole-v1"), device="cpu")
        >>> _ = env.reset(seed=0)
        >>> obs, reward, terminated, truncated, info = env.step(torch.tensor(1))
        >>> obs.device, reward, terminated
        (device(type='cpu'), 1.0, False)
    """

    def __init__(self, env: Env, device: Device | None = None):
        RecordConstructorArgs.__init__(self, device=device)
        super().__init__(env=env, env_xp=np, target_xp=torch, target_device=device)
        self.device = device
