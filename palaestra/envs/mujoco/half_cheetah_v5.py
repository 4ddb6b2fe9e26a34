"""HalfCheetah-v5: make a planar cheetah run forward (+x) by torquing its six hinges.

Observations are the joint positions (without the torso's x by default) and velocities;
the reward is forward speed minus a control cost. Episodes never terminate.

Example:
    >>> env = HalfCheetahEnv()
    >>> env.observation_space.shape, env.action_space.shape
    ((17,), (6,))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco._task import ForwardRunnerEnv, col, control_cost
from palaestra.utils.ezpickle import EzPickle

__all__ = ["HalfCheetahEnv", "half_cheetah_observe", "half_cheetah_outcome"]

DEFAULT_CAMERA_CONFIG = {"distance": 4.0}


def half_cheetah_observe(settings: Any, data: Any) -> np.ndarray:
    """Return the joint positions (less the torso's x by default) and velocities."""
    skipped = 1 if settings.exclude_current_positions_from_observation else 0
    return np.concatenate((data.qpos[..., skipped:], data.qvel), axis=-1)


def half_cheetah_outcome(settings: Any, data: Any, before: Any, action: Any) -> Any:
    """Return the step's observation, reward, termination and info values."""
    x_position = col(data.qpos, 0)
    x_velocity = (x_position - before) / settings.dt
    forward_reward = settings.forward_reward_weight * x_velocity
    ctrl_cost = control_cost(settings.ctrl_cost_weight, action)
    info = (x_position, x_velocity, forward_reward, -ctrl_cost)
    return half_cheetah_observe(settings, data), forward_reward - ctrl_cost, False, info


class HalfCheetahEnv(ForwardRunnerEnv):
    """The HalfCheetah, version 5 (Gymnasium's arguments and defaults).

    Args:
        xml_file: the model (a built-in name or a path to an MJCF file).
        frame_skip: physics steps per step (0.01 s each).
        default_camera_config: the free camera's attributes.
        forward_reward_weight: weight of the forward speed.
        ctrl_cost_weight: weight of the squared controls.
        reset_noise_scale: scale of the initial-state noise.
        exclude_current_positions_from_observation: leave x out of observations.
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = HalfCheetahEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True

    Raises:
        OSError: if ``xml_file`` does not exist.
    """

    read_fields = ("qpos", "qvel")
    observe_function = staticmethod(half_cheetah_observe)
    step_outcome = staticmethod(half_cheetah_outcome)
    outcome_helpers = (half_cheetah_observe,)
    info_keys = ("x_position", "x_velocity", "reward_forward", "reward_ctrl")
    settings_names = (
        "dt",
        "_forward_reward_weight",
        "_ctrl_cost_weight",
        "_exclude_current_positions_from_observation",
    )
    sub_env_parameters = ("forward_reward_weight", "ctrl_cost_weight", "reset_noise_scale")

    def __init__(
        self,
        xml_file: str = "half_cheetah.xml",
        frame_skip: int = 5,
        default_camera_config: dict[str, float | int] = DEFAULT_CAMERA_CONFIG,
        forward_reward_weight: float = 1.0,
        ctrl_cost_weight: float = 0.1,
        reset_noise_scale: float = 0.1,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ):
        arguments = (
            xml_file,
            frame_skip,
            default_camera_config,
            forward_reward_weight,
            ctrl_cost_weight,
            reset_noise_scale,
            exclude_current_positions_from_observation,
        )
        EzPickle.__init__(self, *arguments, **kwargs)
        self._setup(*arguments, kwargs, position_axes=1)

    def _progress(self, data: Any) -> Any:
        return col(data.qpos, 0).copy()

    def _reset_state(self, np_random: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return self._noisy_state(np_random, normal_qvel=True)

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {"x_position": col(data.qpos, 0)}
