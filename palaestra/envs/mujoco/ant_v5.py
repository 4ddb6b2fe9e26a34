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

from collections.abc import Callable
from typing import Any

import numpy as np

from palaestra.envs.mujoco._task import (
    MujocoTaskEnv,
    SquaredControlCost,
    SurvivalBonus,
    clip,
    col,
    flat_tail,
    norm,
    square_sum,
)
from palaestra.utils.ezpickle import EzPickle

__all__ = ["AntEnv"]

# ndarray.all's reduction, called directly.
_all = np.logical_and.reduce

DEFAULT_CAMERA_CONFIG = {"distance": 4.0}


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
        low, high = self._contact_force_range
        return clip(data.cfrc_ext, low, high)

    def _contact_cost(self, data: Any) -> Any:
        return self._contact_cost_weight * square_sum(self._contact_forces(data), axes=2)

    def _is_healthy(self, data: Any) -> Any:
        low, high = self._healthy_z_range
        z = col(data.qpos, 2)
        finite = _all(np.isfinite(data.qpos), axis=-1) & _all(np.isfinite(data.qvel), axis=-1)
        return finite & (low <= z) & (z <= high)

    def _progress(self, data: Any) -> np.ndarray:
        return data.xpos[..., self._main_body_id, :2].copy()

    def _observe(self, data: Any, forces: np.ndarray | None = None) -> np.ndarray:
        position = (
            data.qpos[..., 2:] if self._exclude_current_positions_from_observation else data.qpos
        )
        parts = [position, data.qvel]
        if self._include_cfrc_ext_in_observation:
            if forces is None:
                forces = self._contact_forces(data)
            parts.append(flat_tail(forces[..., 1:, :]))
        return np.concatenate(parts, axis=-1)

    def _observe_outcome(
        self, data: Any, before: Any, action: Any
    ) -> tuple[np.ndarray, Any, Any, dict[str, Any]]:
        # The clipped contact forces, once for the observation and the contact cost.
        forces = self._contact_forces(data)
        observation = self._observe(data, forces)
        return observation, *self._outcome(data, before, action, forces)

    def _compiled_outcome_parts(
        self, data: Any, before: Any, actions: np.ndarray
    ) -> tuple[Callable[[list[int]], None], Callable[[], Any]] | None:
        """Split :meth:`_observe_outcome` of a batch into its compiled rows and the rest.

        Returns ``(finish, outcome)``, or ``None`` where the kernel
        (:func:`palaestra.envs.mujoco._kernels.ant_outcome`) would not give numpy's numbers
        bit for bit: a weight that is not a Python number, a contact force bound of zero
        (numpy's vectorised clip may order a tie of signed zeros either way), sums too long
        for one pairwise block, or a control cost of another dtype than the actions'.
        ``finish(rows)`` computes those rows (releasing the GIL: the stepping threads call
        it for their rows once stepped); after every row's, ``outcome()`` returns
        ``(observations, reward, terminated, info)``, each info value an array of its own
        (rows of buffers written for this step), handed out without copying.
        """
        key = (
            self.dt,
            self._forward_reward_weight,
            self._healthy_reward,
            self._contact_cost_weight,
            self._contact_force_range,
            self._healthy_z_range,
            self._ctrl_cost_weight,
            actions.dtype,
        )
        arguments = self._kernel_arguments_for(key, lambda: self._kernel_settings(actions.dtype))
        if arguments is None:
            return None
        settings, ctrl_weight, zero = arguments
        from palaestra.envs.mujoco._kernels import ant_outcome

        qpos, count = data.qpos, len(actions)
        observations = np.empty((count, *self.observation_space.shape))
        terms = np.empty((8, count))
        ctrl_rewards = np.empty(count, dtype=actions.dtype)
        flags = np.empty((2, count), dtype=np.bool_)
        inputs = (
            qpos,
            data.qvel,
            data.cfrc_ext,
            data.xpos[:, self._main_body_id, :2],
            before,
            np.ascontiguousarray(actions),
            settings,
            ctrl_weight,
            zero,
            2 * self._exclude_current_positions_from_observation,
            self._include_cfrc_ext_in_observation,
            self._terminate_when_unhealthy,
            observations,
            terms,
            ctrl_rewards,
            flags,
        )

        def finish(rows: list[int]) -> None:
            ant_outcome(np.array(rows, dtype=np.int64), *inputs)

        def outcome() -> tuple[np.ndarray, Any, Any, dict[str, Any]]:
            info = {
                "x_position": terms[6],
                "y_position": terms[7],
                "distance_from_origin": norm(qpos[:, 0:2]),
                "x_velocity": terms[0],
                "y_velocity": terms[1],
                "reward_forward": terms[2],
                "reward_ctrl": ctrl_rewards,
                "reward_contact": terms[5],
                "reward_survive": terms[3],
            }
            return observations, terms[4], flags[1], info

        return finish, outcome

    def _kernel_settings(self, dtype: np.dtype) -> tuple[np.ndarray, Any, Any] | None:
        """Return the kernel's settings, control weight and zero for actions of ``dtype``.

        ``None`` where the kernel would not give numpy's numbers.
        """
        from palaestra.envs.mujoco._kernels import PAIRWISE_LIMIT

        control = self._control_kernel_arguments(dtype)
        if control is None:
            return None
        weights = (self._forward_reward_weight, self._healthy_reward, self._contact_cost_weight)
        low, high = self._contact_force_range
        z_low, z_high = self._healthy_z_range
        # Python numbers (numpy would multiply a bool by an int healthy reward as ints).
        if (
            not all(type(value) in (int, float) for value in (*weights, low, high, z_low, z_high))
            or type(self._healthy_reward) is not float
            or low == 0
            or high == 0
            or self.data.cfrc_ext.size > PAIRWISE_LIMIT
        ):
            return None
        settings = np.array((self.dt, *weights, z_low, z_high, low, high), dtype=np.float64)
        return settings, *control

    def _outcome(
        self, data: Any, before: Any, action: Any, forces: np.ndarray | None = None
    ) -> tuple[Any, Any, dict[str, Any]]:
        xy_velocity = (data.xpos[..., self._main_body_id, :2] - before) / self.dt
        x_velocity, y_velocity = col(xy_velocity, 0), col(xy_velocity, 1)
        healthy = self._is_healthy(data)
        forward_reward = x_velocity * self._forward_reward_weight
        healthy_reward = healthy * self._healthy_reward
        rewards = forward_reward + healthy_reward
        ctrl_cost = self.control_cost(action)
        if forces is None:
            forces = self._contact_forces(data)
        contact_cost = self._contact_cost_weight * square_sum(forces, axes=2)
        reward = rewards - (ctrl_cost + contact_cost)
        terminated = ~healthy & self._terminate_when_unhealthy
        info = {
            **self._reset_info(data),
            "x_velocity": x_velocity,
            "y_velocity": y_velocity,
            "reward_forward": forward_reward,
            "reward_ctrl": -ctrl_cost,
            "reward_contact": -contact_cost,
            "reward_survive": healthy_reward,
        }
        return reward, terminated, info

    def _reset_state(self, np_random: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return self._noisy_state(np_random, normal_qvel=True)

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {
            "x_position": col(data.qpos, 0),
            "y_position": col(data.qpos, 1),
            "distance_from_origin": norm(data.qpos[..., 0:2]),
        }
