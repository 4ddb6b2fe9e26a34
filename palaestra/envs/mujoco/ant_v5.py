"""Ant-v5: make a four-legged ant run forward (+x) by torquing its eight hinges.

Observations are the torso height and orientation, the joint angles, all velocities and,
by default, the clipped external contact forces on each body. The reward is forward speed
plus a survival bonus minus control and contact costs; the episode ends when the torso
leaves ``healthy_z_range`` (unless ``terminate_when_unhealthy=False``).

Example:
    >>> env = AntEnv()
    >>> env.observation_space.shape, env.action_space.shape
    ((105,), (8,))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.mujoco._task import (
    MujocoTaskEnv,
    SquaredControlCost,
    SurvivalBonus,
    all_along_last,
    clip,
    col,
    control_cost,
    flat_tail,
    norm,
    square_sum,
)
from palaestra.utils.ezpickle import EzPickle

__all__ = ["AntEnv", "ant_contact_forces", "ant_is_healthy", "ant_observe", "ant_outcome"]

DEFAULT_CAMERA_CONFIG = {"distance": 4.0}


def ant_contact_forces(settings: Any, data: Any) -> np.ndarray:
    """Return the bodies' external contact forces clipped to ``contact_force_range``."""
    low, high = settings.contact_force_range
    return clip(data.cfrc_ext, low, high)


def ant_is_healthy(settings: Any, data: Any) -> Any:
    """Whether the state is finite and the torso within ``healthy_z_range``."""
    low, high = settings.healthy_z_range
    z = col(data.qpos, 2)
    finite = all_along_last(np.isfinite(data.qpos)) & all_along_last(np.isfinite(data.qvel))
    return finite & (low <= z) & (z <= high)


def ant_observe_forces(settings: Any, data: Any, forces: np.ndarray) -> np.ndarray:
    """Return the observation, given the clipped contact forces."""
    skipped = 2 if settings.exclude_current_positions_from_observation else 0
    tail = flat_tail(forces[..., 1:, :])
    if not settings.include_cfrc_ext_in_observation:
        tail = tail[..., :0]
    return np.concatenate((data.qpos[..., skipped:], data.qvel, tail), axis=-1)


def ant_observe(settings: Any, data: Any) -> np.ndarray:
    """Return the torso height and orientation, joint angles, velocities, contact forces."""
    return ant_observe_forces(settings, data, ant_contact_forces(settings, data))


def ant_outcome(settings: Any, data: Any, before: Any, action: Any) -> Any:
    """Return the step's observation, reward, termination and info values."""
    # The clipped contact forces, once for the observation and the contact cost.
    forces = ant_contact_forces(settings, data)
    xy_velocity = (data.xpos[..., settings.main_body_id, :2] - before) / settings.dt
    x_velocity, y_velocity = col(xy_velocity, 0), col(xy_velocity, 1)
    healthy = ant_is_healthy(settings, data)
    forward_reward = x_velocity * settings.forward_reward_weight
    healthy_reward = healthy * settings.healthy_reward
    rewards = forward_reward + healthy_reward
    ctrl_cost = control_cost(settings.ctrl_cost_weight, action)
    contact_cost = settings.contact_cost_weight * square_sum(forces, axes=2)
    reward = rewards - (ctrl_cost + contact_cost)
    terminated = ~healthy & settings.terminate_when_unhealthy
    info = (
        col(data.qpos, 0),
        col(data.qpos, 1),
        norm(data.qpos[..., 0:2]),
        x_velocity,
        y_velocity,
        forward_reward,
        -ctrl_cost,
        -contact_cost,
        healthy_reward,
    )
    return ant_observe_forces(settings, data, forces), reward, terminated, info


class AntEnv(SurvivalBonus, SquaredControlCost, MujocoTaskEnv):
    """The Ant, version 5 (Gymnasium's arguments and defaults).

    Args:
        xml_file: the model (a built-in name or a path to an MJCF file).
        frame_skip: physics steps per step (0.01 s each).
        default_camera_config: the free camera's attributes.
        forward_reward_weight: weight of the forward speed in the reward.
        ctrl_cost_weight: weight of the squared controls.
        contact_cost_weight: weight of the squared clipped contact forces.
        healthy_reward: reward per step while healthy.
        main_body: the body whose motion is rewarded (id or name).
        terminate_when_unhealthy: end the episode when unhealthy.
        healthy_z_range: torso heights that count as healthy.
        contact_force_range: the range contact forces are clipped to.
        reset_noise_scale: scale of the initial-state noise.
        exclude_current_positions_from_observation: leave x and y out of observations.
        include_cfrc_ext_in_observation: include the contact forces in observations.
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments
            (``render_mode``, ``width``, ``height``, ``camera_id``, ``camera_name``,
            ``max_geom``, ``visual_options``).

    Example:
        >>> env = AntEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True

    Raises:
        OSError: if ``xml_file`` does not exist.
    """

    read_fields = ("qpos", "qvel", "xpos", "cfrc_ext")
    reads_contact_forces = True
    observe_function = staticmethod(ant_observe)
    step_outcome = staticmethod(ant_outcome)
    outcome_helpers = (ant_contact_forces, ant_is_healthy, ant_observe_forces)
    info_keys = (
        "x_position",
        "y_position",
        "distance_from_origin",
        "x_velocity",
        "y_velocity",
        "reward_forward",
        "reward_ctrl",
        "reward_contact",
        "reward_survive",
    )
    settings_names = (
        "dt",
        "_main_body_id",
        "_forward_reward_weight",
        "_ctrl_cost_weight",
        "_contact_cost_weight",
        "_healthy_reward",
        "_terminate_when_unhealthy",
        "_healthy_z_range",
        "_contact_force_range",
        "_exclude_current_positions_from_observation",
        "_include_cfrc_ext_in_observation",
    )
    sub_env_parameters = (
        "forward_reward_weight",
        "ctrl_cost_weight",
        "contact_cost_weight",
        "healthy_reward",
        "reset_noise_scale",
    )

    def __init__(
        self,
        xml_file: str = "ant.xml",
        frame_skip: int = 5,
        default_camera_config: dict[str, float | int] = DEFAULT_CAMERA_CONFIG,
        forward_reward_weight: float = 1,
        ctrl_cost_weight: float = 0.5,
        contact_cost_weight: float = 5e-4,
        healthy_reward: float = 1.0,
        main_body: int | str = 1,
        terminate_when_unhealthy: bool = True,
        healthy_z_range: tuple[float, float] = (0.2, 1.0),
        contact_force_range: tuple[float, float] = (-1.0, 1.0),
        reset_noise_scale: float = 0.1,
        exclude_current_positions_from_observation: bool = True,
        include_cfrc_ext_in_observation: bool = True,
        **kwargs: Any,
    ):
        EzPickle.__init__(
            self,
            xml_file,
            frame_skip,
            default_camera_config,
            forward_reward_weight,
            ctrl_cost_weight,
            contact_cost_weight,
            healthy_reward,
            main_body,
            terminate_when_unhealthy,
            healthy_z_range,
            contact_force_range,
            reset_noise_scale,
            exclude_current_positions_from_observation,
            include_cfrc_ext_in_observation,
            **kwargs,
        )
        self._forward_reward_weight = forward_reward_weight
        self._ctrl_cost_weight = ctrl_cost_weight
        self._contact_cost_weight = contact_cost_weight
        self._healthy_reward = healthy_reward
        self._terminate_when_unhealthy = terminate_when_unhealthy
        self._healthy_z_range = healthy_z_range
        self._contact_force_range = contact_force_range
        self._main_body = main_body
        self._reset_noise_scale = reset_noise_scale
        self._exclude_current_positions_from_observation = (
            exclude_current_positions_from_observation
        )
        self._include_cfrc_ext_in_observation = include_cfrc_ext_in_observation
        self._start(xml_file, frame_skip, default_camera_config, kwargs)
        self._main_body_id = self.model.body(main_body).id
        self._set_state_observation(
            2 * exclude_current_positions_from_observation,
            cfrc_ext=self.data.cfrc_ext[1:].size * include_cfrc_ext_in_observation,
        )

    @property
    def contact_forces(self) -> np.ndarray:
        """The bodies' external contact forces clipped to ``contact_force_range``."""
        return self._contact_forces(self.data)

    @property
    def contact_cost(self) -> Any:
        """``contact_cost_weight`` times the sum of squared clipped contact forces."""
        return self._contact_cost(self.data)

    @property
    def is_healthy(self) -> bool:
        """Whether the state is finite and the torso within ``healthy_z_range``."""
        return bool(self._is_healthy(self.data))

    def _contact_forces(self, data: Any) -> np.ndarray:
        return ant_contact_forces(self.settings(), data)

    def _contact_cost(self, data: Any) -> Any:
        return self._contact_cost_weight * square_sum(self._contact_forces(data), axes=2)

    def _is_healthy(self, data: Any) -> Any:
        return ant_is_healthy(self.settings(), data)

    def _progress(self, data: Any) -> np.ndarray:
        return data.xpos[..., self._main_body_id, :2].copy()

    def compiled_supports(self, settings: Any) -> bool:
        """Not a contact force bound of zero: numpy's clip may order its signed-zero ties."""
        low, high = settings.contact_force_range
        return low != 0 and high != 0

    def _reset_state(self, np_random: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return self._noisy_state(np_random, normal_qvel=True)

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {
            "x_position": col(data.qpos, 0),
            "y_position": col(data.qpos, 1),
            "distance_from_origin": norm(data.qpos[..., 0:2]),
        }
