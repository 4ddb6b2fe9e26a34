"""MountainCarContinuous, natively batched on the single environment's dynamics functions.

Example:
    >>> import numpy as np
    >>> envs = Continuous_MountainCarVectorEnv(num_envs=2, max_episode_steps=999)
    >>> _ = envs.reset(seed=0)
    >>> envs.step(np.zeros((2, 1), dtype=np.float32))[1]
    array([0., 0.])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.classic_control.continuous_mountain_car import Continuous_MountainCarEnv
from palaestra.envs.classic_control.dynamics.mountain_car import (
    continuous_mountain_car_reward,
    continuous_mountain_car_step,
    mountain_car_terminated,
)
from palaestra.envs.classic_control.vector._base import Transition
from palaestra.envs.classic_control.vector.mountain_car import MountainCarVectorBase
from palaestra.vector.native.generators import GeneratorRows

__all__ = ["Continuous_MountainCarVectorEnv"]

# The ufuncs' own reductions: ndarray.any/all add Python-level calls, a microsecond a step.
_any = np.logical_or.reduce
_all = np.logical_and.reduce


class Continuous_MountainCarVectorEnv(MountainCarVectorBase):
    """``num_envs`` continuous mountain cars stepped as one batch.

    See :class:`Continuous_MountainCarEnv` for the task. A car's state is float64 from its
    reset until its first step and float32 afterwards, as in the single environment; the
    batch keeps both exactly in a float64 array and steps each kind in its own dtype.

    Args:
        num_envs: the number of sub-environments.
        max_episode_steps: truncate episodes after this many steps (999 from the spec).
        render_mode: ``None`` or ``"rgb_array"``.
        autoreset_mode: an :class:`~palaestra.vector.AutoresetMode` or its value string.
        accelerator: ``"auto"``, ``"numpy"``, ``"numba"`` or ``None`` (see ``NativeVectorEnv``).
        goal_velocity: the least velocity that counts as reaching the goal (one number, or a
            list/tuple/array with one per sub-env).
        parameters: the single environment's other parameters by their attribute names
            (``power``, ``min_action``, ``max_action``, ``min_position``, ``max_position``,
            ``max_speed``, ``goal_position``): one number, or one per sub-env.

    Example:
        >>> envs = Continuous_MountainCarVectorEnv(num_envs=3)
        >>> envs.reset(seed=3)[0].dtype
        dtype('float32')
    """

    single_env_class = Continuous_MountainCarEnv
    reads_fresh_rows = True

    def __init__(
        self,
        num_envs: int = 1,
        max_episode_steps: int | None = 999,
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
        """Return the compiled step of these parameters (``compile_continuous_mountain_car``)."""
        from palaestra.envs.classic_control.vector._compiled import (
            compile_continuous_mountain_car,
        )

        return compile_continuous_mountain_car(self.kernel_params(), self.row_params is not None)

    def advance(
        self, states: np.ndarray, actions: np.ndarray, rows: GeneratorRows, fresh: np.ndarray
    ) -> Transition:
        """One step for every row: fresh rows from float64, the others from float32."""
        if self._compiled_advance is not None and actions.dtype == np.float32:
            # (float64 throttles take the numpy path, which keeps their precision.)
            states32 = states.astype(np.float32)
            if self.row_params is None:
                return self._compiled_advance(states, states32, actions, fresh)
            return self._compiled_advance(states, states32, actions, fresh, self.row_table(rows))
        if self.row_params is not None:
            return self.advance_with_row_parameters(states, actions, rows, fresh, self._step_with)
        return self._step_with(states, actions, rows, fresh, self.params)

    def _step_with(
        self, states: np.ndarray, actions: np.ndarray, rows: Any, fresh: np.ndarray, params: Any
    ) -> Transition:
        if not _any(fresh):
            return self._advance_in(states.astype(np.float32), actions, params)
        if _all(fresh):
            return self._advance_in(states, actions, params)
        next_states = np.empty_like(states)
        rewards = np.empty(len(states), dtype=np.float64)
        terminations = np.empty(len(states), dtype=np.bool_)
        for rows_of_kind, dtype in ((fresh, np.float64), (~fresh, np.float32)):
            part = self._advance_in(
                states[rows_of_kind].astype(dtype), actions[rows_of_kind], params
            )
            next_states[rows_of_kind], rewards[rows_of_kind], terminations[rows_of_kind] = part
        return next_states, rewards, terminations

    def _advance_in(self, states: np.ndarray, actions: np.ndarray, params: Any) -> Transition:
        states = continuous_mountain_car_step(states, actions, params)
        terminations = mountain_car_terminated(states, params)
        rewards = continuous_mountain_car_reward(terminations, actions, params)
        return states, rewards, terminations
