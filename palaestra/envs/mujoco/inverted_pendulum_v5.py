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

from palaestra.envs.mujoco._task import MujocoTaskEnv, all_along_last, as_int, col
from palaestra.spaces import Box
from palaestra.utils.ezpickle import EzPickle

__all__ = ["InvertedPendulumEnv", "inverted_pendulum_observe", "inverted_pendulum_outcome"]

DEFAULT_CAMERA_CONFIG = {"trackbodyid": 0, "distance": 2.04}


def inverted_pendulum_observe(settings: Any, data: Any) -> np.ndarray:
    """Return the cart position, pole angle and their velocities."""
    return np.concatenate((data.qpos, data.qvel), axis=-1)


def inverted_pendulum_outcome(settings: Any, data: Any, before: Any, action: Any) -> Any:
    """Return the step's observation, reward (1 while the pole is up), termination, info."""
    observation = inverted_pendulum_observe(settings, data)
    finite = all_along_last(np.isfinite(observation))
    terminated = ~finite | (np.abs(col(observation, 1)) > 0.2)
    reward = as_int(~terminated)
    return observation, reward, terminated, (reward,)


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

    observe_function = staticmethod(inverted_pendulum_observe)
    step_outcome = staticmethod(inverted_pendulum_outcome)
    outcome_helpers = (inverted_pendulum_observe,)
    info_keys = ("reward_survive",)
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

    def _observe_outcome(self, data: Any, before: Any, action: Any) -> Any:
        observation, reward, terminated, info = super()._observe_outcome(data, before, action)
        if observation.ndim == 1:
            # One env: a Python flag and int reward, as Gymnasium's step returns them.
            terminated = bool(terminated)
            info = {key: int(value) for key, value in info.items()}
            reward = reward if isinstance(reward, float) else int(reward)
        return observation, reward, terminated, info

    def _reset_state(self, np_random: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return self._noisy_state(np_random)
