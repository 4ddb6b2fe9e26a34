"""Any palaestra vector environment as a Stable-Baselines3 ``VecEnv``.

SB3 resets an ended sub-env inside the step that ended it and hands the last observation
over as ``info["terminal_observation"]``. A ``SameStep`` palaestra vector env does exactly
that (its ``final_obs`` becomes the terminal observation); with the other autoreset modes the
ended rows are reset right after the step with a ``reset_mask``. Infos become SB3's list of
per-env dicts (only the sub-envs that supplied a key get it), with ``TimeLimit.truncated``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from palaestra.compat._spaces import to_gymnasium_space
from palaestra.error import DependencyNotInstalled
from palaestra.vector import AutoresetMode, VectorEnv
from palaestra.vector.episodes import autoreset_mode
from palaestra.vector.utils import iterate

try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv
except ImportError as e:
    raise DependencyNotInstalled(
        "Stable-Baselines3 is not installed; sb3_vec_env needs it: run "
        '`pip install "palaestra[sb3]"`'
    ) from e

__all__ = ["SB3VecEnv", "split_infos"]

_FINAL_KEYS = ("final_obs", "_final_obs", "final_info", "_final_info")


def _copy(observation: Any) -> Any:
    """Return a copy of a batched observation (SB3 keeps the previous one while stepping)."""
    if isinstance(observation, dict):
        return {key: _copy(value) for key, value in observation.items()}
    if isinstance(observation, tuple):
        return tuple(_copy(value) for value in observation)
    return np.array(observation, copy=True)


def _item(value: Any) -> Any:
    """Return a numpy scalar as a Python scalar, anything else unchanged."""
    return value.item() if isinstance(value, np.generic) else value


def split_infos(info: dict[str, Any], num_envs: int) -> list[dict[str, Any]]:
    """Turn a vector info (arrays plus ``_key`` masks) into one dict per sub-env.

    A sub-env gets a key only where its mask is set (nested dicts recurse); the
    ``final_obs``/``final_info`` entries of ``SameStep`` envs are left out.

    Args:
        info: the vector env's info.
        num_envs: the number of sub-envs.

    Example:
        >>> split_infos({"x": np.array([1, 2]), "_x": np.array([False, True])}, 2)
        [{}, {'x': 2}]
    """
    infos: list[dict[str, Any]] = [{} for _ in range(num_envs)]
    for key, value in info.items():
        if key in _FINAL_KEYS or (isinstance(key, str) and key.startswith("_")):
            continue
        mask = info.get(f"_{key}")
        indices: Iterable[int] = range(num_envs) if mask is None else np.flatnonzero(mask)
        if isinstance(value, dict):
            nested = split_infos(value, num_envs)
            for i in indices:
                infos[i][key] = nested[i]
        else:
            for i in indices:
                infos[i][key] = _item(value[i])
    return infos


class SB3VecEnv(VecEnv):
    """A palaestra vector env behind Stable-Baselines3's ``VecEnv`` interface.

    Seeds set with ``seed()`` and options with ``set_options()`` apply at the next
    ``reset()``, as in SB3's ``DummyVecEnv``. ``get_attr``/``set_attr``/``env_method`` go to
    the sub-envs where the vector env has them (sync, async, pool) and to the vector env
    itself for natively batched ones (an attribute is then the same for every index).

    Args:
        envs: the palaestra vector environment.

    Raises:
        TypeError: ``envs`` is not a palaestra vector env.

    Example:
        >>> import numpy as np
        >>> import palaestra
        >>> venv = SB3VecEnv(palaestra.make_vec("CartPole-v1", 2))
        >>> _ = venv.seed(0)
        >>> observations = venv.reset()
        >>> observations, rewards, dones, infos = venv.step(np.array([0, 1]))
        >>> rewards, dones
        (array([1., 1.], dtype=float32), array([False, False]))
        >>> infos
        [{'TimeLimit.truncated': False}, {'TimeLimit.truncated': False}]
        >>> venv.close()
    """

    def __init__(self, envs: VectorEnv[Any, Any, Any]):
        if not isinstance(envs, VectorEnv):
            raise TypeError(
                f"sb3_vec_env expects a palaestra vector env (e.g. palaestra.make_vec(...)), "
                f"got {type(envs)}."
            )
        self.envs = envs
        mode = autoreset_mode(envs, default=AutoresetMode.NEXT_STEP)
        self._same_step = mode is AutoresetMode.SAME_STEP
        self._actions: Any = None
        super().__init__(
            envs.num_envs,
            to_gymnasium_space(envs.single_observation_space),
            to_gymnasium_space(envs.single_action_space),
        )

    def _seed_argument(self) -> int | list[int | None] | None:
        seeds = list(self._seeds)
        if all(seed is None for seed in seeds):
            return None
        first = seeds[0]
        if first is not None and seeds == [first + i for i in range(self.num_envs)]:
            return first
        return seeds

    def _options_argument(self) -> dict[str, Any] | None:
        options = [dict(option) for option in self._options]
        if not any(options):
            return None
        if any(option != options[0] for option in options):
            raise ValueError(
                f"The sub-envs of a palaestra vector env reset with one options dict, got "
                f"different ones per env: {options}. Call set_options with a single dict."
            )
        return options[0]

    def reset(self) -> Any:
        """Reset every sub-env (with the seeds and options set since the last reset)."""
        observations, info = self.envs.reset(
            seed=self._seed_argument(), options=self._options_argument()
        )
        self.reset_infos = split_infos(info, self.num_envs)
        self._reset_seeds()
        self._reset_options()
        return _copy(observations)

    def step_async(self, actions: np.ndarray) -> None:
        """Store ``actions`` for :meth:`step_wait`."""
        self._actions = actions

    def step_wait(self) -> tuple[Any, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step every sub-env; ended ones are reset and report ``terminal_observation``."""
        observations, rewards, terminations, truncations, info = self.envs.step(self._actions)
        dones = np.logical_or(terminations, truncations)
        infos = split_infos(info, self.num_envs)
        time_limited = np.logical_and(truncations, np.logical_not(terminations))
        for i, flag in enumerate(time_limited.tolist()):
            infos[i]["TimeLimit.truncated"] = flag
        ended = np.flatnonzero(dones)
        if ended.size:
            observations = self._finish_episodes(ended, dones, observations, info, infos)
        return _copy(observations), np.asarray(rewards, dtype=np.float32), dones, infos

    def _finish_episodes(
        self,
        ended: np.ndarray,
        dones: np.ndarray,
        observations: Any,
        info: dict[str, Any],
        infos: list[dict[str, Any]],
    ) -> Any:
        if self._same_step:
            final_obs = info["final_obs"]
            final_infos = split_infos(info.get("final_info", {}), self.num_envs)
            for i in ended:
                infos[i].update(final_infos[i])
                infos[i]["terminal_observation"] = final_obs[i]
            return observations
        last = list(iterate(self.envs.observation_space, observations))
        for i in ended:
            infos[i]["terminal_observation"] = _copy(last[i])
        observations, reset_info = self.envs.reset(options={"reset_mask": dones})
        reset_infos = split_infos(reset_info, self.num_envs)
        for i in ended:
            self.reset_infos[i] = reset_infos[i]
        return observations

    def close(self) -> None:
        """Close the palaestra vector env."""
        self.envs.close()

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return [int(i) for i in indices]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """Return attribute ``attr_name`` of the chosen sub-envs."""
        chosen = self._indices(indices)
        if attr_name == "render_mode":
            return [self.envs.render_mode for _ in chosen]
        if hasattr(self.envs, "get_attr"):
            values = self.envs.get_attr(attr_name)
            return [values[i] for i in chosen]
        value = getattr(self.envs, attr_name)
        return [value for _ in chosen]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set attribute ``attr_name`` of the chosen sub-envs to ``value``."""
        chosen = self._indices(indices)
        if hasattr(self.envs, "set_attr"):
            if len(chosen) == self.num_envs:
                self.envs.set_attr(attr_name, value)
                return
            values = list(self.envs.get_attr(attr_name))
            for i in chosen:
                values[i] = value
            self.envs.set_attr(attr_name, values)
            return
        if len(chosen) != self.num_envs:
            raise ValueError(
                f"{type(self.envs).__name__} is natively batched: its attribute "
                f"{attr_name!r} is shared by all sub-envs, so it cannot be set for indices "
                f"{chosen} only. Pass indices=None."
            )
        setattr(self.envs, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        """Call ``method_name`` on the sub-envs and return the chosen ones' results."""
        chosen = self._indices(indices)
        if hasattr(self.envs, "call"):
            results = self.envs.call(method_name, *method_args, **method_kwargs)
            return [results[i] for i in chosen]
        result = getattr(self.envs, method_name)(*method_args, **method_kwargs)
        return [result for _ in chosen]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        """Whether each chosen sub-env's wrapper stack contains ``wrapper_class``."""
        sub_envs = getattr(self.envs.unwrapped, "envs", None)
        result = []
        for i in self._indices(indices):
            env = None if sub_envs is None else sub_envs[i]
            wrapped = False
            while env is not None:
                if isinstance(env, wrapper_class):
                    wrapped = True
                    break
                env = getattr(env, "env", None)
            result.append(wrapped)
        return result

    def get_images(self) -> list[Any]:
        """Return the sub-envs' ``rgb_array`` frames (the vector env's ``render()``)."""
        frames = self.envs.render()
        return [] if frames is None else list(frames)
