"""Pusher-v5: push a cylinder to a goal with a seven-joint arm.

The reward is minus the arm tip's distance to the cylinder (weighted), minus the cylinder's
distance to the goal, minus a control cost.

Example:
    >>> env = PusherEnv()
    >>> env.observation_space.shape, env.action_space.shape
    ((23,), (7,))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco._task import MujocoTaskEnv, norm, square_sum
from palaestra.spaces import Box
from palaestra.utils.ezpickle import EzPickle

__all__ = ["PusherEnv"]

DEFAULT_CAMERA_CONFIG = {"trackbodyid": -1, "distance": 4.0}


class PusherEnv(MujocoTaskEnv):
    """The Pusher, version 5 (Gymnasium's arguments and defaults).

    Args:
        xml_file: the model (a built-in name or a path to an MJCF file).
        frame_skip: physics steps per step (0.01 s each).
        default_camera_config: the free camera's attributes.
        reward_near_weight: weight of the tip-to-cylinder distance.
        reward_dist_weight: weight of the cylinder-to-goal distance.
        reward_control_weight: weight of the squared controls.
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = PusherEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True

    Raises:
        OSError: if ``xml_file`` does not exist.
    """

    read_fields = ("qpos", "qvel", "xpos")
    sub_env_parameters = ("reward_near_weight", "reward_dist_weight", "reward_control_weight")

    def __init__(
        self,
        xml_file: str = "pusher_v5.xml",
        frame_skip: int = 5,
        default_camera_config: dict[str, float | int] = DEFAULT_CAMERA_CONFIG,
        reward_near_weight: float = 0.5,
        reward_dist_weight: float = 1,
        reward_control_weight: float = 0.1,
        **kwargs: Any,
    ):
        EzPickle.__init__(
            self,
            xml_file,
            frame_skip,
            default_camera_config,
            reward_near_weight,
            reward_dist_weight,
            reward_control_weight,
            **kwargs,
        )
        self._reward_near_weight = reward_near_weight
        self._reward_dist_weight = reward_dist_weight
        self._reward_control_weight = reward_control_weight
        self._start(
            xml_file,
            frame_skip,
            default_camera_config,
            kwargs,
            observation_space=Box(low=-np.inf, high=np.inf, shape=(23,), dtype=np.float64),
        )
        self._bodies = tuple(self.model.body(name).id for name in ("tips_arm", "object", "goal"))

    def _observe(self, data: Any) -> np.ndarray:
        tips, puck, goal = (data.xpos[..., body, :] for body in self._bodies)
        return np.concatenate([data.qpos[..., :7], data.qvel[..., :7], tips, puck, goal], axis=-1)

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        tips, puck, goal = (data.xpos[..., body, :] for body in self._bodies)
        reward_near = -norm(puck - tips) * self._reward_near_weight
        reward_dist = -norm(puck - goal) * self._reward_dist_weight
        reward_ctrl = -square_sum(action) * self._reward_control_weight
        reward = reward_dist + reward_ctrl + reward_near
        info = {"reward_dist": reward_dist, "reward_ctrl": reward_ctrl, "reward_near": reward_near}
        return reward, False, info

    def _reset_state(self, np_random: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        # As Gymnasium's, the initial positions are written into init_qpos itself.
        qpos = self.init_qpos
        self.goal_pos = np.asarray([0, 0])
        while True:
            self.cylinder_pos = np.concatenate(
                [
                    np_random.uniform(low=-0.3, high=0, size=1),
                    np_random.uniform(low=-0.2, high=0.2, size=1),
                ]
            )
            if np.linalg.norm(self.cylinder_pos - self.goal_pos) > 0.17:
                break
        qpos[-4:-2] = self.cylinder_pos
        qpos[-2:] = self.goal_pos
        qvel = self.init_qvel + np_random.uniform(low=-0.005, high=0.005, size=self.model.nv)
        qvel[-4:] = 0
        return qpos.copy(), qvel
