"""Pendulum, natively batched on the single environment's dynamics functions.

Example:
    >>> import numpy as np
    >>> envs = PendulumVectorEnv(num_envs=2, max_episode_steps=200)
    >>> observations, _ = envs.reset(seed=0)
    >>> observations.shape
    (2, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.classic_control.dynamics.pendulum import (
    pendulum_initial_state,
    pendulum_observation,
    pendulum_reward,
    pendulum_step,
    pendulum_torque,
)
from palaestra.envs.classic_control.pendulum import PendulumEnv, draw_pendulum
from palaestra.envs.classic_control.rendering import Canvas
from palaestra.envs.classic_control.utils import verify_number_and_cast
from palaestra.envs.classic_control.vector._base import ClassicControlVectorEnv, Transition
from palaestra.vector.native.exact_squares import ScalarPowArray
from palaestra.vector.native.generators import GeneratorRows

__all__ = ["PendulumVectorEnv"]


class PendulumVectorEnv(ClassicControlVectorEnv):
    """``num_envs`` pendulums stepped as one batch; see :class:`PendulumEnv` for the task.

    Args:
        num_envs: the number of sub-environments.
        max_episode_steps: truncate episodes after this many steps (200 from the spec).
        render_mode: ``None`` or ``"rgb_array"``.
        autoreset_mode: an :class:`~palaestra.vector.AutoresetMode` or its value string.
        accelerator: ``"auto"``, ``"numpy"``, ``"numba"`` or ``None`` (see ``NativeVectorEnv``).
        g: gravitational acceleration (one number, or a list/tuple/array with one per
            sub-env).
        parameters: the single environment's other parameters by their attribute names
            (``m``, ``l``, ``dt``, ``max_speed``, ``max_torque``): one number, or one per
            sub-env.

    Example:
        >>> envs = PendulumVectorEnv(num_envs=2, g=9.81)
        >>> _ = envs.reset(seed=0)
        >>> envs.step(np.zeros((2, 1), dtype=np.float32))[1].dtype
        dtype('float64')
    """

    single_env_class = PendulumEnv

    def __init__(
        self,
        num_envs: int = 1,
        max_episode_steps: int | None = 200,
        render_mode: str | None = None,
        autoreset_mode: Any = "NextStep",
        accelerator: str | None = None,
        g: Any = 10.0,
        **parameters: Any,
    ):
        super().__init__(
            num_envs, max_episode_steps, render_mode, autoreset_mode, accelerator, parameters, g=g
        )
        self.last_u = np.full(self.num_envs, np.nan, dtype=np.float32)
        self.parameters_changed()

    def parameters_changed(self) -> None:
        """Rebuild the compiled step for the current parameters."""
        super().parameters_changed()
        # The per-row torque bounds, by the dtype they meet the actions in.
        self._torque_limits: dict[Any, np.ndarray] = {}
        self._compiled_advance = None
        if self.accelerator == "numba":
            self._install_compiled_advance()

    def draw_initial_states(self, rows: GeneratorRows, count: int, options: dict | None) -> Any:
        """Uniform angles and velocities within the (optionally overridden) bounds."""
        options = options or {}
        x = verify_number_and_cast(options.get("x_init", self.params.reset_angle))
        y = verify_number_and_cast(options.get("y_init", self.params.reset_velocity))
        return pendulum_initial_state(rows, np.array([x, y]), batch_size=count)  # type: ignore[arg-type]

    def _restart(self, indices: np.ndarray, initial: Any) -> None:
        super()._restart(indices, initial)
        self.last_u[indices] = np.nan

    def observe(self, states: np.ndarray) -> np.ndarray:
        """``(cos theta, sin theta, theta_dot)`` as float32."""
        return pendulum_observation(states)

    def compile_advance(self) -> Any:
        """Return the compiled batch step of these parameters (see ``compile_pendulum``)."""
        from palaestra.envs.classic_control.vector._compiled import compile_pendulum

        return compile_pendulum(self.kernel_params(), self.row_params is not None)

    def advance(
        self, states: np.ndarray, actions: np.ndarray, rows: GeneratorRows, fresh: np.ndarray
    ) -> Transition:
        """One pendulum step for every row; the reward is that of the state before it."""
        torque = self._torques(actions, rows)
        self.last_u = torque
        terminations = np.zeros(len(states), dtype=np.bool_)
        if self._compiled_advance is not None and torque.dtype == np.float32:
            # (Other torques take the numpy path: the compiled one rounds them to float32.)
            if self.row_params is None:
                return (*self._compiled_advance(states, torque), terminations)
            table = self.row_table(rows)
            return (*self._compiled_advance(states, torque, table), terminations)
        if self.row_params is not None:
            return self.advance_with_row_parameters(states, torque, rows, fresh, self._step_with)
        return self._step_with(states, torque, rows, fresh, self.params)

    def _torques(self, actions: np.ndarray, rows: GeneratorRows) -> np.ndarray:
        """Return the clipped torques, each row's with its own ``max_torque``."""
        if "max_torque" not in self.row_values:
            return pendulum_torque(actions, self.params)
        # Each bound in the dtype a Python float takes against the actions (NEP 50), as the
        # single env's clip rounds it: the same comparisons, one pass for every row.
        dtype = np.result_type(actions, 1.0)
        limits = self._torque_limits.get(dtype)
        if limits is None:
            limits = np.array(self.row_values["max_torque"], dtype=dtype)
            self._torque_limits[dtype] = limits
        if rows.indices is not None:
            limits = limits[rows.indices]
        return np.minimum(np.maximum(actions[:, 0], -limits), limits)

    def _step_with(
        self, states: np.ndarray, torque: np.ndarray, rows: Any, fresh: Any, params: Any
    ) -> Transition:
        rewards = pendulum_reward(
            states.view(ScalarPowArray), torque.view(ScalarPowArray), params
        ).view(np.ndarray)
        states = pendulum_step(states, torque, params)
        return states, rewards, np.zeros(len(states), dtype=np.bool_)

    def draw_frame(self, canvas: Canvas, index: int) -> None:
        """Draw pendulum ``index`` with its last torque (none since its reset)."""
        torque = self.last_u[index]
        draw_pendulum(
            canvas,
            self.state[index],  # type: ignore[index]
            None if np.isnan(torque) else torque,
            self.params_of(index),
        )
