"""Swimmer-v5: make a three-link swimmer swim forward (+x) in a viscous fluid.

The reward is forward speed minus a control cost; episodes never terminate.

Example:
    >>> env = SwimmerEnv()
    >>> env.observation_space.shape, env.action_space.shape
    ((8,), (2,))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco._task import ForwardRunnerEnv, col, control_cost, norm
from palaestra.utils.ezpickle import EzPickle

__all__ = ["SwimmerEnv", "swimmer_observe", "swimmer_outcome"]


def swimmer_observe(settings: Any, data: Any) -> np.ndarray:
    """Return the joint positions (less x and y by default) and velocities."""
    skipped = 2 if settings.exclude_current_positions_from_observation else 0
    return np.concatenate((data.qpos[..., skipped:], data.qvel), axis=-1)


def swimmer_outcome(settings: Any, data: Any, before: Any, action: Any) -> Any:
    """Return the step's observation, reward, termination and info values (version 5)."""
    after = data.qpos[..., 0:2]
    xy_velocity = (after - before) / settings.dt
    x_velocity, y_velocity = col(xy_velocity, 0), col(xy_velocity, 1)
    forward_reward = settings.forward_reward_weight * x_velocity
    ctrl_cost = control_cost(settings.ctrl_cost_weight, action)
    info = (
        col(data.qpos, 0),
        col(data.qpos, 1),
        norm(data.qpos[..., 0:2]),
        x_velocity,
        y_velocity,
        forward_reward,
        -ctrl_cost,
    )
    return swimmer_observe(settings, data), forward_reward - ctrl_cost, False, info


class SwimmerEnv(ForwardRunnerEnv):
    """The Swimmer, version 5 (Gymnasium's arguments and defaults).

    Args:
        xml_file: the model (a built-in name or a path to an MJCF file).
        frame_skip: physics steps per step (0.01 s each).
        default_camera_config: the free camera's attributes.
        forward_reward_weight: weight of the forward speed.
        ctrl_cost_weight: weight of the squared controls.
        reset_noise_scale: scale of the initial-state noise.
        exclude_current_positions_from_observation: leave x and y out of observations.
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = SwimmerEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True

    Raises:
        OSError: if ``xml_file`` does not exist.
    """

    observe_function = staticmethod(swimmer_observe)
    step_outcome = staticmethod(swimmer_outcome)
    outcome_helpers = (swimmer_observe,)
    info_keys = (
        "x_position",
        "y_position",
        "distance_from_origin",
        "x_velocity",
        "y_velocity",
        "reward_forward",
        "reward_ctrl",
    )
    settings_names = (
        "dt",
        "_forward_reward_weight",
        "_ctrl_cost_weight",
        "_exclude_current_positions_from_observation",
    )
    sub_env_parameters = ("forward_reward_weight", "ctrl_cost_weight", "reset_noise_scale")

    def __init__(
        self,
        xml_file: str = "swimmer.xml",
        frame_skip: int = 4,
        default_camera_config: dict[str, float] | None = None,
        forward_reward_weight: float = 1.0,
        ctrl_cost_weight: float = 1e-4,
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
        self._setup(*arguments, kwargs, position_axes=2)

    def _progress(self, data: Any) -> np.ndarray:
        return data.qpos[..., 0:2].copy()

    def _reset_state(self, np_random: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return self._noisy_state(np_random)

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {
            "x_position": col(data.qpos, 0),
            "y_position": col(data.qpos, 1),
            "distance_from_origin": norm(data.qpos[..., 0:2]),
        }
