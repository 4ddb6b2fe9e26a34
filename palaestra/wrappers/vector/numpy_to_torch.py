"""Drive a numpy vector env with PyTorch tensors (the ``torch`` extra).

Example:
    >>> import palaestra as gym
    >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
    >>> NumpyToTorch(envs).reset(seed=0)[0].shape
    torch.Size([2, 4])
"""

from __future__ import annotations

import numpy as np

from palaestra.utils import RecordConstructorArgs
from palaestra.vector.vector_env import VectorEnv
from palaestra.wrappers.numpy_to_torch import Device, torch
from palaestra.wrappers.vector.array_conversion import ArrayConversion

__all__ = ["NumpyToTorch"]


class NumpyToTorch(ArrayConversion):
    """Accept torch actions and return torch batches (observations, rewards, flags, infos).

    Args:
        env: a numpy-based vector env.
        device: the device returned tensors are put on (``None`` keeps them on the CPU).

    Example:
        >>> import palaestra as gym
        >>> envs = NumpyToTorch(gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync"))
        >>> _ = envs.reset(seed=0)
        >>> envs.step(torch.tensor([0, 1]))[1]
        tensor([1., 1.], dtype=torch.float64)
    """

    def __init__(self, env: VectorEnv, device: Device | None = None):
        RecordConstructorArgs.__init__(self, device=device)
        super().__init__(env, env_xp=np, target_xp=torch, target_device=device)
        self.device = device
