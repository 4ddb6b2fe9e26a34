"""Conversion of a vector env's batches between array libraries (the array API).

Example:
    >>> import numpy as np
    >>> import palaestra as gym
    >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
    >>> envs = ArrayConversion(envs, env_xp=np, target_xp=np)
    >>> envs.reset(seed=0)[0].shape
    (2, 4)
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from palaestra.core import ActType, ObsType, WrapperActType, WrapperObsType
from palaestra.utils import RecordConstructorArgs
from palaestra.vector.vector_env import VectorEnv, VectorWrapper
from palaestra.wrappers.array_conversion import Device, _LibraryBridge

__all__ = ["ArrayConversion"]


class ArrayConversion(
    _LibraryBridge,
    VectorWrapper[WrapperObsType, WrapperActType, ObsType, ActType, Any],
    RecordConstructorArgs,
):
    """Let an agent using one array library drive a vector env using another.

    Actions and reset options go from ``target_xp`` into ``env_xp``; observations, rewards,
    terminations, truncations and infos come back as ``target_xp`` arrays. The wrapper
    pickles by library name.

    Args:
        env: the vector env to wrap.
        env_xp: the env's array library (a module such as ``numpy``).
        target_xp: the agent's array library.
        env_device: the device the env's arrays go to (``None`` for the default).
        target_device: the device the agent's arrays go to (``None`` for the default).

    Raises:
        ValueError: if a module is not an array-API compatible library.

    Example:
        >>> import numpy as np
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = ArrayConversion(envs, env_xp=np, target_xp=np)
        >>> _ = envs.reset(seed=0)
        >>> envs.step(np.array([0, 1]))[1]
        array([1., 1.])
    """

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, Any],
        env_xp: ModuleType,
        target_xp: ModuleType,
        env_device: Device | None = None,
        target_device: Device | None = None,
    ) -> None:
        RecordConstructorArgs.__init__(
            self,
            _disable_deepcopy=True,
            env_xp=env_xp,
            target_xp=target_xp,
            env_device=env_device,
            target_device=target_device,
        )
        VectorWrapper.__init__(self, env)
        self._setup_bridge(env_xp, target_xp, env_device, target_device)

    def step(self, actions: WrapperActType) -> tuple[WrapperObsType, Any, Any, Any, dict[str, Any]]:
        """Convert the actions, step the vector env and convert everything it returns."""
        return self._to_target(self.env.step(self._to_env(actions)))
