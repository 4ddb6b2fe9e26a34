"""Humanoid-v5: make a 3D humanoid walk forward (+x) as fast as possible without falling.

The reward is forward speed of the centre of mass plus a survival bonus minus control and
(clipped) contact costs; the episode ends when the torso leaves 1 to 2 m of height.

Example:
    >>> env = HumanoidEnv()
    >>> env.observation_space.shape, env.action_space.shape
    ((348,), (17,))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from palaestra.envs.mujoco._humanoid import HumanoidBaseEnv, mass_center
from palaestra.envs.mujoco._task import SurvivalBonus, clip, col, norm, square_sum
from palaestra.utils.ezpickle import EzPickle

__all__ = ["HumanoidEnv", "mass_center"]

DEFAULT_CAMERA_CONFIG = {
    "trackbodyid": 1,
    "distance": 4.0,
    "lookat": np.array((0.0, 0.0, 2.0)),
    "elevation": -20.0,
}


class HumanoidEnv(SurvivalBonus, HumanoidBaseEnv):
    """The Humanoid, version 5 (Gymnasium's arguments and defaults).

    Args:
        xml_file: the model (a built-in name or a path to an MJCF file).
        frame_skip: physics steps per step (0.003 s each).
        default_camera_config: the free camera's attributes.
        forward_reward_weight: weight of the centre of mass's forward speed.
        ctrl_cost_weight: weight of the squared controls.
        contact_cost_weight: weight of the squared contact forces.
        contact_cost_range: the range the contact cost is clipped to.
        healthy_reward: reward per step while healthy.
        terminate_when_unhealthy: end the episode when unhealthy.
        healthy_z_range: torso heights counted healthy.
        reset_noise_scale: scale of the initial-state noise.
        exclude_current_positions_from_observation: leave x and y out of observations.
        include_cinert_in_observation: include the bodies' inertias.
        include_cvel_in_observation: include the bodies' velocities.
        include_qfrc_actuator_in_observation: include the actuator forces.
        include_cfrc_ext_in_observation: include the contact forces.
        **kwargs: :class:`~palaestra.envs.mujoco.mujoco_env.MujocoEnv` arguments.

    Example:
        >>> env = HumanoidEnv()
        >>> observation, info = env.reset(seed=0)
        >>> observation.shape == env.observation_space.shape
        True

    Raises:
        OSError: if ``xml_file`` does not exist.
    """

    def __init__(
        self,
        xml_file: str = "humanoid.xml",
        frame_skip: int = 5,
        default_camera_config: dict[str, float | np.ndarray] = DEFAULT_CAMERA_CONFIG,
        forward_reward_weight: float = 1.25,
        ctrl_cost_weight: float = 0.1,
        contact_cost_weight: float = 5e-7,
        contact_cost_range: tuple[float, float] = (-np.inf, 10.0),
        healthy_reward: float = 5.0,
        terminate_when_unhealthy: bool = True,
        healthy_z_range: tuple[float, float] = (1.0, 2.0),
        reset_noise_scale: float = 1e-2,
        exclude_current_positions_from_observation: bool = True,
        include_cinert_in_observation: bool = True,
        include_cvel_in_observation: bool = True,
        include_qfrc_actuator_in_observation: bool = True,
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
            contact_cost_range,
            healthy_reward,
            terminate_when_unhealthy,
            healthy_z_range,
            reset_noise_scale,
            exclude_current_positions_from_observation,
            include_cinert_in_observation,
            include_cvel_in_observation,
            include_qfrc_actuator_in_observation,
            include_cfrc_ext_in_observation,
            **kwargs,
        )
        self._forward_reward_weight = forward_reward_weight
        self._ctrl_cost_weight = ctrl_cost_weight
        self._contact_cost_weight = contact_cost_weight
        self._contact_cost_range = contact_cost_range
        self._healthy_reward = healthy_reward
        self._terminate_when_unhealthy = terminate_when_unhealthy
        self._healthy_z_range = healthy_z_range
        self._reset_noise_scale = reset_noise_scale
        self._setup_observation(
            exclude_current_positions_from_observation,
            include_cinert_in_observation,
            include_cvel_in_observation,
            include_qfrc_actuator_in_observation,
            include_cfrc_ext_in_observation,
        )
        self._start(xml_file, frame_skip, default_camera_config, kwargs)
        self._finish_observation()
        self._observed_parts = np.array(
            (
                include_cinert_in_observation,
                include_cvel_in_observation,
                include_qfrc_actuator_in_observation,
                include_cfrc_ext_in_observation,
            ),
            dtype=np.bool_,
        )

    def control_cost(self, action: Any) -> Any:
        """``ctrl_cost_weight`` times the sum of squared controls (as applied, float64)."""
        return self._ctrl_cost_weight * square_sum(self.data.ctrl)

    @property
    def contact_cost(self) -> Any:
        """The clipped, weighted sum of squared contact forces."""
        return self._contact_cost(self.data)

    @property
    def is_healthy(self) -> bool:
        """Whether the torso is within ``healthy_z_range``."""
        return bool(self._is_healthy(self.data))

    def _contact_cost(self, data: Any) -> Any:
        cost = self._contact_cost_weight * square_sum(data.cfrc_ext, axes=2)
        low, high = self._contact_cost_range
        return clip(cost, low, high)

    def _is_healthy(self, data: Any) -> Any:
        low, high = self._healthy_z_range
        z = col(data.qpos, 2)
        return (low < z) & (z < high)

    def _progress(self, data: Any) -> np.ndarray:
        return self._mass_center(data)

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        xy_velocity = (self._mass_center(data) - before) / self.dt
        x_velocity, y_velocity = col(xy_velocity, 0), col(xy_velocity, 1)
        healthy = self._is_healthy(data)
        forward_reward = self._forward_reward_weight * x_velocity
        healthy_reward = healthy * self._healthy_reward
        rewards = forward_reward + healthy_reward
        ctrl_cost = self._ctrl_cost_weight * square_sum(data.ctrl)
        contact_cost = self._contact_cost(data)
        reward = rewards - (ctrl_cost + contact_cost)
        info = {
            **self._reset_info(data),
            "x_velocity": x_velocity,
            "y_velocity": y_velocity,
            "reward_survive": healthy_reward,
            "reward_forward": forward_reward,
            "reward_ctrl": -ctrl_cost,
            "reward_contact": -contact_cost,
        }
        return reward, ~healthy & self._terminate_when_unhealthy, info

    def _compiled_outcome_parts(
        self, data: Any, before: Any, actions: np.ndarray
    ) -> tuple[Callable[[list[int]], None], Callable[[], Any]] | None:
        """Split :meth:`_observe_outcome` of a batch into its compiled rows and the rest.

        As the Ant's (:meth:`palaestra.envs.mujoco.ant_v5.AntEnv._compiled_outcome_parts`):
        :func:`palaestra.envs.mujoco._kernels.humanoid_outcome` makes each row's observation
        and the terms that need no mass centre; ``outcome()`` adds the velocities from the
        mass centres in numpy. ``None`` for weights that are not Python numbers, a zero
        contact cost bound, or fields that are not C-contiguous.
        """
        key = (
            self._forward_reward_weight,
            self._ctrl_cost_weight,
            self._contact_cost_weight,
            self._contact_cost_range,
            self._healthy_reward,
            self._healthy_z_range,
        )
        settings = self._kernel_arguments_for(key, self._kernel_settings)
        fields = (data.cinert, data.cvel, data.cfrc_ext, data.ctrl)
        if settings is None or not all(field.flags.c_contiguous for field in fields):
            return None
        from palaestra.envs.mujoco._kernels import humanoid_outcome

        qpos, count = data.qpos, len(actions)
        observations = np.empty((count, *self.observation_space.shape))
        terms = np.empty((6, count))
        flags = np.empty((2, count), dtype=np.bool_)
        inputs = (
            qpos,
            data.qvel,
            data.cinert,
            data.cvel,
            data.qfrc_actuator,
            data.cfrc_ext,
            data.ctrl,
            settings,
            2 * self._exclude_current_positions_from_observation,
            self._observed_parts,
            self._terminate_when_unhealthy,
            observations,
            terms,
            flags,
        )

        def finish(rows: list[int]) -> None:
            humanoid_outcome(np.array(rows, dtype=np.int64), *inputs)

        def outcome() -> tuple[np.ndarray, Any, Any, dict[str, Any]]:
            after = self._mass_center(data)
            # Transposed operands: the same differences, each velocity a row of its own.
            x_velocity, y_velocity = np.subtract(after.T, before.T) / self.dt
            forward_reward = self._forward_reward_weight * x_velocity
            reward = (forward_reward + terms[0]) - terms[3]
            info = {
                "x_position": terms[4],
                "y_position": terms[5],
                "tendon_length": data.ten_length.copy(),
                "tendon_velocity": data.ten_velocity.copy(),
                "distance_from_origin": norm(qpos[:, 0:2]),
                "x_velocity": x_velocity,
                "y_velocity": y_velocity,
                "reward_survive": terms[0],
                "reward_forward": forward_reward,
                "reward_ctrl": terms[1],
                "reward_contact": terms[2],
            }
            return observations, reward, flags[1], info

        return finish, outcome

    def _kernel_settings(self) -> np.ndarray | None:
        """Return the kernel's float settings (``None`` where it would not give numpy's)."""
        from palaestra.envs.mujoco._kernels import PAIRWISE_LIMIT

        low, high = self._contact_cost_range
        z_low, z_high = self._healthy_z_range
        numbers = (
            self._forward_reward_weight,
            self._ctrl_cost_weight,
            self._contact_cost_weight,
            low,
            high,
            z_low,
            z_high,
        )
        # Python numbers (numpy would multiply a bool by an int healthy reward as ints).
        if (
            not all(type(value) in (int, float) for value in numbers)
            or type(self._healthy_reward) is not float
            or low == 0
            or high == 0
            or self.data.cfrc_ext.size > PAIRWISE_LIMIT
            or self.model.nu > PAIRWISE_LIMIT
        ):
            return None
        return np.array(
            (
                self._ctrl_cost_weight,
                self._contact_cost_weight,
                low,
                high,
                self._healthy_reward,
                z_low,
                z_high,
            ),
            dtype=np.float64,
        )

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {
            "x_position": col(data.qpos, 0),
            "y_position": col(data.qpos, 1),
            **self._tendons(data),
            "distance_from_origin": norm(data.qpos[..., 0:2]),
        }
