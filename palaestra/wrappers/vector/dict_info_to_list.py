"""Conversion of a vector env's batched info dict into one info dict per sub-env.

Example:
    >>> import palaestra as gym
    >>> envs = DictInfoToList(gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync"))
    >>> envs.reset(seed=0)[1]
    [{}, {}]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.core import ActType, ObsType
from palaestra.vector.vector_env import ArrayType, VectorEnv, VectorWrapper

__all__ = ["DictInfoToList"]


def _check_length(value: Any, num_envs: int) -> None:
    if len(value) != num_envs:
        raise AssertionError(
            f"Expects {value} to have length equal to the num-envs ({num_envs}), "
            f"actual length is {len(value)}"
        )


def info_dict_to_list(infos: dict[str, Any], num_envs: int) -> list[dict[str, Any]]:
    """Split a batched info dict into ``num_envs`` per-sub-env dicts.

    A key ``k`` goes to the sub-envs whose mask ``infos["_k"]`` is True (to all of them if
    there is no mask); nested dicts are split recursively; the masks themselves are dropped.

    Args:
        infos: the batched info dict.
        num_envs: the number of sub-envs.

    Raises:
        AssertionError: if a value is neither a dict nor a numpy array, or a value or mask
            does not have one entry per sub-env (Gymnasium's exception type for both).

    Example:
        >>> info_dict_to_list({"x": np.array([1, 2]), "_x": np.array([True, False])}, 2)
        [{'x': np.int64(1)}, {}]
    """
    per_env: list[dict[str, Any]] = [{} for _ in range(num_envs)]
    for key, value in infos.items():
        if key.startswith("_"):
            continue
        if isinstance(value, dict):
            values = info_dict_to_list(value, num_envs)
        elif isinstance(value, np.ndarray):
            values = value
        else:
            raise AssertionError(
                f"Batched info values must be numpy arrays or dicts, got {type(value)} for "
                f"key {key!r}"
            )
        _check_length(values, num_envs)
        mask = infos.get(f"_{key}")
        if mask is not None:
            _check_length(mask, num_envs)
        for index in range(num_envs):
            if mask is None or mask[index]:
                per_env[index][key] = values[index]
    return per_env


class DictInfoToList(VectorWrapper[ObsType, ActType, ObsType, ActType, ArrayType]):
    """Return ``info`` as a list of per-sub-env dicts instead of one batched dict.

    Args:
        env: the vector env to wrap.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = DictInfoToList(envs)
        >>> _ = envs.reset(seed=0)
        >>> envs.step(np.array([0, 1]))[4]
        [{}, {}]
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType]) -> None:
        super().__init__(env)

    def step(
        self, actions: ActType
    ) -> tuple[ObsType, ArrayType, ArrayType, ArrayType, list[dict[str, Any]]]:
        """Step the vector env and split its info."""
        observation, reward, terminated, truncated, infos = self.env.step(actions)
        return observation, reward, terminated, truncated, self._split(infos)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, list[dict[str, Any]]]:
        """Reset the vector env and split its info."""
        obs, infos = self.env.reset(seed=seed, options=options)
        return obs, self._split(infos)

    def _split(self, infos: Any) -> list[dict[str, Any]]:
        if not isinstance(infos, dict):
            raise AssertionError(f"DictInfoToList expects the info to be a dict, got {type(infos)}")
        return info_dict_to_list(infos, self.num_envs)
