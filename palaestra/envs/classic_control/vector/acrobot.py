"""Acrobot, natively batched on the single environment's dynamics functions.

Example:
    >>> import numpy as np
    >>> envs = AcrobotVectorEnv(num_envs=2, max_episode_steps=500)
    >>> observations, _ = envs.reset(seed=0)
    >>> envs.step(np.array([0, 2]))[1]
    array([-1., -1.])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.classic_control.acrobot import AcrobotEnv, draw_acrobot
from palaestra.envs.classic_control.dynamics.acrobot import (
    acrobot_initial_state,
    acrobot_observation,
    acrobot_reward,
    acrobot_step,
    acrobot_terminated,
    acrobot_torque,
)
from palaestra.envs.classic_control.rendering import Canvas
from palaestra.envs.classic_control.utils import maybe_parse_reset_bounds
from palaestra.envs.classic_control.vector._base import ClassicControlVectorEnv, Transition
from palaestra.vector.native.exact_squares import ScalarPowArray
from palaestra.vector.native.generators import GeneratorRows

__all__ = ["AcrobotVectorEnv"]


class AcrobotVectorEnv(ClassicControlVectorEnv):
    """``num_envs`` acrobots stepped as one batch; see :class:`AcrobotEnv` for the task.

    Args:
        num_envs: the number of sub-environments.
        max_episode_steps: truncate episodes after this many steps (500 from the spec).
        render_mode: ``None`` or ``"rgb_array"``.
        autoreset_mode: an :class:`~palaestra.vector.AutoresetMode` or its value string.
        accelerator: ``"auto"``, ``"numpy"``, ``"numba"`` or ``None`` (see ``NativeVectorEnv``).
        book_or_nips: ``"book"`` (default) or ``"nips"`` equations of motion.
        torque_noise_max: uniform torque noise, drawn from each sub-env's own generator (one
            value for all sub-envs).
        parameters: the single environment's parameters by their attribute names (``dt``,
            ``LINK_LENGTH_1``, ``LINK_MASS_2``, ``LINK_MOI``, ``MAX_VEL_1``...: one number, or
            a list/tuple/array with one per sub-env; ``AVAIL_TORQUE``: one for all).

    Example:
        >>> envs = AcrobotVectorEnv(num_envs=3, torque_noise_max=0.1)
        >>> envs.reset(seed=0)[0].shape
        (3, 6)
    """

    single_env_class = AcrobotEnv
    # Measured: on numpy, 16 scalar Runge-Kutta steps cost less than one batched step.
    row_by_row_max_envs = 16
    # It decides whether a step draws noise at all.
    shared_parameters = frozenset({"torque_noise_max"})

    def __init__(
        self,
        num_envs: int = 1,
        max_episode_steps: int | None = 500,
        render_mode: str | None = None,
        autoreset_mode: Any = "NextStep",
        accelerator: str | None = None,
        *,
        book_or_nips: str = "book",
        torque_noise_max: float = 0.0,
        **parameters: Any,
    ):
        super().__init__(
            num_envs,
            max_episode_steps,
            render_mode,
            autoreset_mode,
            accelerator,
            parameters,
            book_or_nips=book_or_nips,
            torque_noise_max=torque_noise_max,
        )
        self.parameters_changed()

    def parameters_changed(self) -> None:
        """Rebuild the compiled step (and whether steps draw noise) for the parameters."""
        super().parameters_changed()
        self.steps_draw_randomness = self.params.torque_noise_max > 0
        self._compiled_advance = None
        if self.accelerator == "numba":
            self._install_compiled_advance()

    def draw_initial_states(self, rows: GeneratorRows, count: int, options: dict | None) -> Any:
        """Uniform float32 states within the (optionally overridden) bounds."""
        bound = self.params.reset_bound
        low, high = maybe_parse_reset_bounds(options, -bound, bound)
        return acrobot_initial_state(rows, low, high, batch_size=count)  # type: ignore[arg-type]

    def observe(self, states: np.ndarray) -> np.ndarray:
        """``(cos t1, sin t1, cos t2, sin t2, dt1, dt2)`` as float32."""
        return acrobot_observation(states)

    def compile_advance(self) -> Any:
        """Return the compiled batch step of these parameters (see ``compile_acrobot``)."""
        from palaestra.envs.classic_control.vector._compiled import compile_acrobot

        return compile_acrobot(self.kernel_params(), self.row_params is not None)

    def advance(
        self, states: np.ndarray, actions: np.ndarray, rows: GeneratorRows, fresh: np.ndarray
    ) -> Transition:
        """One Runge-Kutta step for every row (torque noise from each row's generator)."""
        if self._compiled_advance is not None:
            # The torques and their noise are shared parameters: computed for all rows.
            torque = acrobot_torque(actions, self.params, rows)  # type: ignore[arg-type]
            if self.row_params is None:
                return self._compiled_advance(states, torque)
            return self._compiled_advance(states, torque, self.row_table(rows))
        if self.row_params is not None:
            return self.advance_with_row_parameters(states, actions, rows, fresh, self._step_with)
        return self._step_with(states, actions, rows, fresh, self.params)

    def _step_with(
        self, states: np.ndarray, actions: np.ndarray, rows: GeneratorRows, fresh: Any, p: Any
    ) -> Transition:
        torque = acrobot_torque(actions, p, rows)  # type: ignore[arg-type]
        if self.row_by_row:
            # The single env's own path on each row: its floats square as the single env's.
            following = [
                acrobot_step(state, row_torque, p)
                for state, row_torque in zip(states, torque.tolist(), strict=True)
            ]
            states = np.array(following)
        else:
            # Squares inside the dynamics must round as on the single env's numpy scalars.
            states = acrobot_step(states.view(ScalarPowArray), torque, p)
            states = states.view(np.ndarray)
        terminations = acrobot_terminated(states, p)
        return states, acrobot_reward(terminations), terminations

    def draw_frame(self, canvas: Canvas, index: int) -> None:
        """Draw acrobot ``index``."""
        draw_acrobot(canvas, self.state[index], self.params_of(index))  # type: ignore[index]
