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

import importlib
from types import ModuleType
from typing import Any

from palaestra.core import ActType, ObsType, WrapperActType, WrapperObsType
from palaestra.utils import RecordConstructorArgs
from palaestra.vector.vector_env import VectorEnv, VectorWrapper
from palaestra.wrappers.array_conversion import (
    Device,
    array_conversion,
    module_name_to_namespace,
    module_namespace,
    namespace_name,
)

__all__ = ["ArrayConversion"]


class ArrayConversion(
    VectorWrapper[WrapperObsType, WrapperActType, ObsType, ActType, Any], RecordConstructorArgs
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
        self._env_xp = module_namespace(env_xp)
        self._target_xp = module_namespace(target_xp)
        self._env_device = env_device
        self._target_device = target_device

    def _to_env(self, value: Any) -> Any:
        return array_conversion(value, xp=self._env_xp, device=self._env_device)

    def _to_target(self, value: Any) -> Any:
        return array_conversion(value, xp=self._target_xp, device=self._target_device)

    def step(self, actions: WrapperActType) -> tuple[WrapperObsType, Any, Any, Any, dict[str, Any]]:
        """Convert the actions, step the vector env and convert everything it returns."""
        return self._to_target(self.env.step(self._to_env(actions)))

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[WrapperObsType, dict[str, Any]]:
        """Convert the options, reset the vector env and convert the observations and infos."""
        if options:
            options = self._to_env(options)
        return self._to_target(self.env.reset(seed=seed, options=options))

    def __getstate__(self) -> dict[str, Any]:
        # Modules do not pickle: store the libraries by name.
        state = dict(self.__dict__)
        state["_env_xp"] = namespace_name(self._env_xp)
        state["_target_xp"] = namespace_name(self._target_xp)
        state["_saved_kwargs"] = {
            key: namespace_name(value) if isinstance(value, ModuleType) else value
            for key, value in self._saved_kwargs.items()
        }
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        state["_env_xp"] = module_name_to_namespace(state["_env_xp"])
        state["_target_xp"] = module_name_to_namespace(state["_target_xp"])
        state["_saved_kwargs"] = {
            key: importlib.import_module(value) if key.endswith("_xp") else value
            for key, value in state["_saved_kwargs"].items()
        }
        self.__dict__.update(state)
