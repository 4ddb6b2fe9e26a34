"""MountainCar, natively batched on the single environment's dynamics functions.

Example:
    >>> import numpy as np
    >>> envs = MountainCarVectorEnv(num_envs=2, max_episode_steps=200)
    >>> observations, _ = envs.reset(seed=0)
    >>> envs.step(np.array([0, 2]))[1]
    array([-1., -1.])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.classic_control.dynamics.mountain_car import (
    mountain_car_initial_state,
    mountain_car_reward,
    mountain_car_step,
    mountain_car_terminated,
)
from palaestra.envs.classic_control.mountain_car import MountainCarEnv, draw_mountain_car
from palaestra.envs.classic_control.rendering import Canvas
from palaestra.envs.classic_control.utils import maybe_parse_reset_bounds
from palaestra.envs.classic_control.vector._base import ClassicControlVectorEnv, Transition
from palaestra.vector.native.generators import GeneratorRows

__all__ = ["MountainCarVectorBase", "MountainCarVectorEnv"]


class MountainCarVectorBase(ClassicControlVectorEnv):
    """What the discrete and continuous batched mountain cars share: resets, observations, drawing.

    Example:
        >>> issubclass(MountainCarVectorEnv, MountainCarVectorBase)
        True
    """

    def draw_initial_states(self, rows: GeneratorRows, count: int, options: dict | None) -> Any:
        """Cars at rest, at uniform positions within the (optionally overridden) bounds."""
        low, high = maybe_parse_reset_bounds(options, self.params.reset_low, self.params.reset_high)
        return mountain_car_initial_state(rows, low, high, batch_size=count)  # type: ignore[arg-type]

    def uniform_initial_bounds(self) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
        """Return the bounds of a position uniform in ``[reset_low, reset_high)`` (speed 0)."""
        if self.reads_fresh_rows:
            return None
        return (self.params.reset_low,), (self.params.reset_high,)

    def observe(self, states: np.ndarray) -> np.ndarray:
        """Return the states as float32."""
        return states.astype(np.float32)

    def draw_frame(self, canvas: Canvas, index: int) -> None:
        """Draw car ``index``."""
        draw_mountain_car(canvas, self.state[index], self.params_of(index))  # type: ignore[index]


class MountainCarVectorEnv(MountainCarVectorBase):
    """``num_envs`` mountain cars stepped as one batch; see :class:`MountainCarEnv`.

    Args:
        num_envs: the number of sub-environments.
        max_episode_steps: truncate episodes after this many steps (200 from the spec).
        render_mode: ``None`` or ``"rgb_array"``.
        autoreset_mode: an :class:`~palaestra.vector.AutoresetMode` or its value string.
        accelerator: ``"auto"``, ``"numpy"``, ``"numba"`` or ``None`` (see ``NativeVectorEnv``).
        goal_velocity: the least velocity that counts as reaching the goal (one number, or a
            list/tuple/array with one per sub-env).
        parameters: the single environment's other parameters by their attribute names
            (``force``, ``gravity``, ``min_position``, ``max_position``, ``max_speed``,
            ``goal_position``): one number, or one per sub-env.

    Example:
        >>> envs = MountainCarVectorEnv(num_envs=4)
        >>> envs.reset(seed=3)[0].shape
        (4, 2)
    """

    single_env_class = MountainCarEnv
    # All in float64, no powers of parameters: per-row columns round as Python numbers.
    steps_with_parameter_columns = True

    def __init__(
        self,
        num_envs: int = 1,
        max_episode_steps: int | None = 200,
        render_mode: str | None = None,
        autoreset_mode: Any = "NextStep",
        accelerator: str | None = None,
        goal_velocity: Any = 0,
        **parameters: Any,
    ):
        super().__init__(
            num_envs,
            max_episode_steps,
            render_mode,
            autoreset_mode,
            accelerator,
            parameters,
            goal_velocity=goal_velocity,
        )
        self.parameters_changed()

    def parameters_changed(self) -> None:
        """Rebuild the compiled step for the current parameters."""
        super().parameters_changed()
        self._compiled_advance = None
        if self.accelerator == "numba":
            self._install_compiled_advance()

    def compile_advance(self) -> Any:
        """Return the compiled batch step of these parameters (see ``compile_mountain_car``)."""
        from palaestra.envs.classic_control.vector._compiled import compile_mountain_car

        return compile_mountain_car(self.kernel_params(), self.row_params is not None)

    def _step_with(
        self, states: np.ndarray, actions: np.ndarray, rows: Any, fresh: Any, params: Any
    ) -> Transition:
        states = mountain_car_step(states, actions, params)
        terminations = mountain_car_terminated(states, params)
        return states, mountain_car_reward(terminations), terminations
