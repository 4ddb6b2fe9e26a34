"""InvertedPendulum-v5: keep a pole upright on a cart by pushing the cart.

The reward is 1 per step; the episode ends when the pole tilts beyond 0.2 rad.

Example:
    >>> env = InvertedPendulumEnv()
    >>> env.observation_space.shape, env.action_space.shape
    ((4,), (1,))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco._task import MujocoTaskEnv
from palaestra.spaces import Box
from palaestra.utils.ezpickle import EzPickle

__all__ = ["InvertedPendulumEnv"]

DEFAULT_CAMERA_CONFIG = {"trackbodyid": 0, "distance": 2.04}


class InvertedPendulumEnv(MujocoTaskEnv):
    """The InvertedPendulum, version 5 (Gymnasium's arguments and defaults).

    The reward is the int 1 while the pole stays up, 0 on the step it falls.

    Args:
        xml_file: the model (a built-in name or a path to an MJCF file).
        frame_skip: physics steps per step (0.02 s each).
        default_camera_config: the free camera's attributes.
        reset_noise_scale: scale of the initial-state noise.
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = InvertedPendulumEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True

    Raises:
        OSError: if ``xml_file`` does not exist.
    """

    sub_env_parameters = ("reset_noise_scale",)

    def __init__(
        self,
        xml_file: str = "inverted_pendulum.xml",
        frame_skip: int = 2,
        default_camera_config: dict[str, float | int] = DEFAULT_CAMERA_CONFIG,
        reset_noise_scale: float = 0.01,
        **kwargs: Any,
    ):
        EzPickle.__init__(
            self, xml_file, frame_skip, default_camera_config, reset_noise_scale, **kwargs
        )
        self._reset_noise_scale = reset_noise_scale
        self._start(
            xml_file,
            frame_skip,
            default_camera_config,
            kwargs,
            observation_space=Box(low=-np.inf, high=np.inf, shape=(4,), dtype=np.float64),
        )
        self.observation_structure = {"qpos": self.data.qpos.size, "qvel": self.data.qvel.size}

    def _observe(self, data: Any) -> np.ndarray:
        return np.concatenate([data.qpos, data.qvel], axis=-1)

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        observation = self._observe(data)
        if observation.ndim == 1:
            # One env: Python flags and an int reward, as Gymnasium's step returns them.
            terminated = bool(not np.isfinite(observation).all() or np.abs(observation[1]) > 0.2)
            reward: Any = int(not terminated)
        else:
            finite = np.isfinite(observation).all(axis=-1)
            terminated = ~finite | (np.abs(observation[:, 1]) > 0.2)
            reward = (~terminated).astype(np.int64)
        return reward, terminated, {"reward_survive": reward}

    def _reset_state(self, np_random: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return self._noisy_state(np_random)
