"""InvertedDoublePendulum-v5: balance two stacked poles on a cart by pushing the cart.

The reward is a survival bonus minus penalties on the tip's distance from upright and on
the hinges' speeds; the episode ends when the tip drops to 1 m.

Example:
    >>> env = InvertedDoublePendulumEnv()
    >>> env.observation_space.shape, env.action_space.shape
    ((9,), (1,))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco._task import MujocoTaskEnv, col, pow_square
from palaestra.spaces import Box
from palaestra.utils.ezpickle import EzPickle

__all__ = ["InvertedDoublePendulumEnv"]

# Gymnasium defines this camera but builds v5 with no camera configuration by default.
DEFAULT_CAMERA_CONFIG = {
    "trackbodyid": 0,
    "distance": 4.1225,
    "lookat": np.array((0.0, 0.0, 0.12250000000000005)),
}


class InvertedDoublePendulumEnv(MujocoTaskEnv):
    """The InvertedDoublePendulum, version 5 (Gymnasium's arguments and defaults).

    Args:
        xml_file: the model (a built-in name or a path to an MJCF file).
        frame_skip: physics steps per step (0.01 s each).
        default_camera_config: the free camera's attributes.
        healthy_reward: reward per step while the tip is above 1 m.
        reset_noise_scale: scale of the initial-state noise.
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = InvertedDoublePendulumEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True

    Raises:
        OSError: if ``xml_file`` does not exist.
    """

    read_fields = ("qpos", "qvel", "site_xpos", "qfrc_constraint")
    sub_env_parameters = ("healthy_reward", "reset_noise_scale")
    # How many leading entries of qfrc_constraint are observed (None: all).
    _observed_constraint_forces: int | None = 1

    def __init__(
        self,
        xml_file: str = "inverted_double_pendulum.xml",
        frame_skip: int = 5,
        default_camera_config: dict[str, float | np.ndarray] | None = None,
        healthy_reward: float = 10.0,
        reset_noise_scale: float = 0.1,
        **kwargs: Any,
    ):
        EzPickle.__init__(
            self,
            xml_file,
            frame_skip,
            default_camera_config,
            healthy_reward,
            reset_noise_scale,
            **kwargs,
        )
        self._healthy_reward = healthy_reward
        self._reset_noise_scale = reset_noise_scale
        self._start(
            xml_file,
            frame_skip,
            default_camera_config,
            kwargs,
            observation_space=Box(low=-np.inf, high=np.inf, shape=(9,), dtype=np.float64),
        )

    def _observe(self, data: Any) -> np.ndarray:
        return np.concatenate(
            [
                data.qpos[..., :1],
                np.sin(data.qpos[..., 1:]),
                np.cos(data.qpos[..., 1:]),
                np.clip(data.qvel, -10, 10),
                np.clip(data.qfrc_constraint, -10, 10)[..., : self._observed_constraint_forces],
            ],
            axis=-1,
        )

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        x, y = data.site_xpos[..., 0, 0], data.site_xpos[..., 0, 2]
        terminated = y <= 1
        v1, v2 = col(data.qvel, 1), col(data.qvel, 2)
        # Squared as Gymnasium squares numpy scalars.
        dist_penalty = 0.01 * pow_square(x) + pow_square(y - 2)
        vel_penalty = 1e-3 * pow_square(v1) + 5e-3 * pow_square(v2)
        alive_bonus = self._healthy_reward * (~terminated).astype(np.int64)
        reward = alive_bonus - dist_penalty - vel_penalty
        info = {
            "reward_survive": alive_bonus,
            "distance_penalty": -dist_penalty,
            "velocity_penalty": -vel_penalty,
        }
        return reward, terminated, info

    def _reset_state(self, np_random: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return self._noisy_state(np_random, normal_qvel=True)
