"""HalfCheetah-v5: make a planar cheetah run forward (+x) by torquing its six hinges.

Observations are the joint positions (without the torso's x by default) and velocities;
the reward is forward speed minus a control cost. Episodes never terminate.

Example:
    >>> env = HalfCheetahEnv()
    >>> env.observation_space.shape, env.action_space.shape
    ((17,), (6,))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from palaestra.envs.mujoco._task import ForwardRunnerEnv, col
from palaestra.utils.ezpickle import EzPickle

__all__ = ["HalfCheetahEnv"]

DEFAULT_CAMERA_CONFIG = {"distance": 4.0}


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

    def _observe(self, data: Any) -> np.ndarray:
        position = (
            data.qpos[..., 1:] if self._exclude_current_positions_from_observation else data.qpos
        )
        return np.concatenate((position, data.qvel), axis=-1)

    def _outcome(self, data: Any, before: Any, action: Any) -> tuple[Any, Any, dict[str, Any]]:
        x_position = col(data.qpos, 0)
        x_velocity = (x_position - before) / self.dt
        forward_reward = self._forward_reward_weight * x_velocity
        ctrl_cost = self.control_cost(action)
        info = {
            "x_position": x_position,
            "x_velocity": x_velocity,
            "reward_forward": forward_reward,
            "reward_ctrl": -ctrl_cost,
        }
        return forward_reward - ctrl_cost, False, info

    def _compiled_outcome_parts(
        self, data: Any, before: Any, actions: np.ndarray
    ) -> tuple[Callable[[list[int]], None], Callable[[], Any]] | None:
        """Split :meth:`_observe_outcome` of a batch into its compiled rows and the rest.

        As the Ant's (:meth:`palaestra.envs.mujoco.ant_v5.AntEnv._compiled_outcome_parts`),
        with :func:`palaestra.envs.mujoco._kernels.half_cheetah_outcome`; ``None`` for a
        forward weight that is not a Python number or a control cost of another dtype.
        """
        key = (self.dt, self._forward_reward_weight, self._ctrl_cost_weight, actions.dtype)
        arguments = self._kernel_arguments_for(key, lambda: self._kernel_settings(actions.dtype))
        if arguments is None:
            return None
        from palaestra.envs.mujoco._kernels import half_cheetah_outcome

        count = len(actions)
        observations = np.empty((count, *self.observation_space.shape))
        terms = np.empty((4, count))
        ctrl_rewards = np.empty(count, dtype=actions.dtype)
        inputs = (
            data.qpos,
            data.qvel,
            before,
            np.ascontiguousarray(actions),
            *arguments,
            1 * self._exclude_current_positions_from_observation,
            observations,
            terms,
            ctrl_rewards,
        )

        def finish(rows: list[int]) -> None:
            half_cheetah_outcome(np.array(rows, dtype=np.int64), *inputs)

        def outcome() -> tuple[np.ndarray, Any, Any, dict[str, Any]]:
            info = {
                "x_position": terms[0],
                "x_velocity": terms[1],
                "reward_forward": terms[2],
                "reward_ctrl": ctrl_rewards,
            }
            return observations, terms[3], False, info

        return finish, outcome

    def _kernel_settings(self, dtype: np.dtype) -> tuple[np.ndarray, Any, Any] | None:
        """Return the kernel's settings, control weight and zero for actions of ``dtype``."""
        control = self._control_kernel_arguments(dtype)
        if control is None or type(self._forward_reward_weight) not in (int, float):
            return None
        return np.array((self.dt, self._forward_reward_weight), dtype=np.float64), *control

    def _reset_state(self, np_random: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return self._noisy_state(np_random, normal_qvel=True)

    def _reset_info(self, data: Any) -> dict[str, Any]:
        return {"x_position": col(data.qpos, 0)}
