"""Reacher-v5: move a two-joint arm's fingertip to a random target.

The reward is minus the fingertip's distance to the target minus a control cost.

Example:
    >>> env = ReacherEnv()
    >>> env.observation_space.shape, env.action_space.shape
    ((10,), (2,))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco._task import MujocoTaskEnv, norm, square_sum
from palaestra.spaces import Box
from palaestra.utils.ezpickle import EzPickle

__all__ = ["ReacherEnv"]

DEFAULT_CAMERA_CONFIG = {"trackbodyid": 0}


class ReacherEnv(MujocoTaskEnv):
    """The Reacher, version 5 (Gymnasium's arguments and defaults).

    Args:
        xml_file: the model (a built-in name or a path to an MJCF file).
        frame_skip: physics steps per step (0.01 s each).
        default_camera_config: the free camera's attributes.
        reward_dist_weight: weight of the distance term.
        reward_control_weight: weight of the squared controls.
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = ReacherEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True

    Raises:
        OSError: if ``xml_file`` does not exist.
    """

    read_fields = ("qpos", "qvel", "xpos")
    sub_env_parameters = ("reward_dist_weight", "reward_control_weight")
    # How many coordinates (x, y, z) of the fingertip-to-target vector are observed.
    _observed_target_axes = 2

    def __init__(
        self,
        xml_file: str = "reacher.xml",
        frame_skip: int = 2,
        default_camera_config: dict[str, float] = DEFAULT_CAMERA_CONFIG,
        reward_dist_weight: float = 1,
        reward_control_weight: float = 1,
        **kwargs: Any,
    ):
        EzPickle.__init__(
            self,
            xml_file,
            frame_skip,
            default_camera_config,
            reward_dist_weight,
            reward_control_weight,
            **kwargs,
        )
        self._reward_dist_weight = reward_dist_weight
        self._reward_control_weight = reward_control_weight
        self._start(
            xml_file,
            frame_skip,
            default_camera_config,
            kwargs,
            observation_space=Box(low=-np.inf, high=np.inf, shape=(10,), dtype=np.float64),
        )
        self._fingertip = self.model.body("fingertip").id
        self._target = self.model.body("target").id

    def _to_target(self, data: Any) -> np.ndarray:
        return data.xpos[..., self._fingertip, :] - data.xpos[..., self._target, :]

    def _observe(self, data: Any) -> np.ndarray:
        theta = data.qpos[..., :2]
        return np.concatenate(
            [
                np.cos(theta),
                np.sin(theta),
                data.qpos[..., 2:],
                data.qvel[..., :2],
                self._to_target(data)[..., : self._observed_target_axes],
            ],
            axis=-1,
        )

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        reward_dist = -norm(self._to_target(data)) * self._reward_dist_weight
        reward_ctrl = -square_sum(action) * self._reward_control_weight
        info = {"reward_dist": reward_dist, "reward_ctrl": reward_ctrl}
        return reward_dist + reward_ctrl, False, info

    def _reset_state(self, np_random: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        qpos = np_random.uniform(low=-0.1, high=0.1, size=self.model.nq) + self.init_qpos
        # A goal drawn uniformly from the disc of radius 0.2 (by rejection).
        while True:
            goal = np_random.uniform(low=-0.2, high=0.2, size=2)
            if np.linalg.norm(goal) < 0.2:
                break
        self.goal = goal
        qpos[-2:] = goal
        qvel = self.init_qvel + np_random.uniform(low=-0.005, high=0.005, size=self.model.nv)
        qvel[-2:] = 0
        return qpos, qvel
