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
        g: gravitational acceleration.

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
        g: float = 10.0,
    ):
        super().__init__(num_envs, max_episode_steps, render_mode, autoreset_mode, accelerator, g=g)
        self.last_u = np.full(self.num_envs, np.nan, dtype=np.float32)
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

        return compile_pendulum(self.params)

    def advance(
        self, states: np.ndarray, actions: np.ndarray, rows: GeneratorRows, fresh: np.ndarray
    ) -> Transition:
        """One pendulum step for every row; the reward is that of the state before it."""
        torque = pendulum_torque(actions, self.params)
        self.last_u = torque
        terminations = np.zeros(len(states), dtype=np.bool_)
        if self._compiled_advance is not None:
            return (*self._compiled_advance(states, torque), terminations)
        rewards = pendulum_reward(
            states.view(ScalarPowArray), torque.view(ScalarPowArray), self.params
        ).view(np.ndarray)
        states = pendulum_step(states, torque, self.params)
        return states, rewards, terminations

    def draw_frame(self, canvas: Canvas, index: int) -> None:
        """Draw pendulum ``index`` with its last torque (none since its reset)."""
        torque = self.last_u[index]
        draw_pendulum(
            canvas,
            self.state[index],  # type: ignore[index]
            None if np.isnan(torque) else torque,
            self.params,
        )
