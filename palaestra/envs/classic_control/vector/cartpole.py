"""CartPole, natively batched on the single environment's dynamics functions.

Example:
    >>> import numpy as np
    >>> envs = CartPoleVectorEnv(num_envs=3, max_episode_steps=500)
    >>> observations, infos = envs.reset(seed=0)
    >>> observations.shape, observations.dtype
    ((3, 4), dtype('float32'))
    >>> envs.step(np.array([0, 1, 1]))[1]
    array([1., 1., 1.])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from palaestra.envs.classic_control.cartpole import CartPoleEnv, draw_cartpole
from palaestra.envs.classic_control.dynamics._arrays import components, stack_components
from palaestra.envs.classic_control.dynamics.cartpole import (
    cartpole_force,
    cartpole_initial_state,
    cartpole_next_components,
    cartpole_reward,
    cartpole_terminated,
)
from palaestra.envs.classic_control.rendering import Canvas
from palaestra.envs.classic_control.utils import maybe_parse_reset_bounds
from palaestra.envs.classic_control.vector._base import ClassicControlVectorEnv, Transition
from palaestra.vector.native.generators import GeneratorRows

__all__ = ["CartPoleVectorEnv"]


class CartPoleVectorEnv(ClassicControlVectorEnv):
    """``num_envs`` cart-poles stepped as one batch; see :class:`CartPoleEnv` for the task.

    Args:
        num_envs: the number of sub-environments.
        max_episode_steps: truncate episodes after this many steps (``make_vec`` passes the
            spec's: 500 for v1, 200 for v0).
        render_mode: ``None`` or ``"rgb_array"``.
        sutton_barto_reward: use the reward of Sutton and Barto's original formulation.
        autoreset_mode: an :class:`~palaestra.vector.AutoresetMode` or its value string.
        accelerator: ``"auto"``, ``"numpy"``, ``"numba"`` or ``None`` (see ``NativeVectorEnv``).

    The parameters before ``autoreset_mode`` are Gymnasium's ``CartPoleVectorEnv``'s, in its
    order; the keyword-only ones are palaestra's.

    Example:
        >>> envs = CartPoleVectorEnv(num_envs=2, sutton_barto_reward=True)
        >>> _ = envs.reset(seed=1)
        >>> envs.step(np.array([1, 0]))[1]
        array([0., 0.])
    """

    single_env_class = CartPoleEnv
    # The compiled loop checks the actions itself.
    compiled_checks_actions = True

    def __init__(
        self,
        num_envs: int = 1,
        max_episode_steps: int | None = 500,
        render_mode: str | None = None,
        sutton_barto_reward: bool = False,
        *,
        autoreset_mode: Any = "NextStep",
        accelerator: str | None = None,
    ):
        super().__init__(
            num_envs,
            max_episode_steps,
            render_mode,
            autoreset_mode,
            accelerator,
            sutton_barto_reward=sutton_barto_reward,
        )
        self.sutton_barto_reward = sutton_barto_reward
        # The force and reward rules tabulated over their few inputs (the two actions, the
        # two termination flags): one lookup per step instead of a comparison and a select.
        self._forces = cartpole_force(np.arange(2), self.params)
        self._rewards = cartpole_reward(np.array([False, True]), sutton_barto_reward)
        # The default reward is the same whether or not a step terminates: filled in, not
        # looked up (a third of the cost).
        self._constant_reward = None
        if self._rewards[0] == self._rewards[1]:
            self._constant_reward = float(self._rewards[0])
        if self.accelerator == "numba":
            self._install_compiled_advance()

    def step(
        self, action: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every cart-pole under ``action`` (the parameter name is Gymnasium's).

        Raises:
            palaestra.error.ResetNeeded: before the first ``reset``.
            AssertionError: for actions outside the action space (as Gymnasium).
        """
        return super().step(action)

    def draw_initial_states(self, rows: GeneratorRows, count: int, options: dict | None) -> Any:
        """Draw ``count`` states uniformly from the (optionally overridden) reset bounds."""
        bound = self.params.reset_bound
        low, high = maybe_parse_reset_bounds(options, -bound, bound)
        return cartpole_initial_state(rows, low, high, batch_size=count)  # type: ignore[arg-type]

    def observe(self, states: np.ndarray) -> np.ndarray:
        """Return the states as float32."""
        return states.astype(np.float32)

    def compile_advance(self) -> Any:
        """Return the compiled batch step of these parameters and reward (``compile_cartpole``)."""
        from palaestra.envs.classic_control.vector._compiled import compile_cartpole

        return compile_cartpole(self.params, self.sutton_barto_reward)

    def advance(
        self, states: np.ndarray, actions: np.ndarray, rows: GeneratorRows, fresh: np.ndarray
    ) -> Transition:
        """One cart-pole step for every row (in place on a column-major batch)."""
        if self._compiled_advance is not None:
            return self._compiled_advance(states, actions)
        p = self.params
        x, x_dot, theta, theta_dot = components(states)
        # The base class has checked that every action is 0 or 1.
        force = self._forces.take(actions)
        following = cartpole_next_components(x, x_dot, theta, theta_dot, force, p)
        if states.flags.f_contiguous:
            # The components are the batch's contiguous rows, one after another: one
            # concatenation writes the next state over the old one.
            np.concatenate(following, out=states.ravel(order="F"))
        else:
            states = stack_components(*following)
        terminations = cartpole_terminated(states, p)
        if self._constant_reward is None:
            return states, self._rewards.take(terminations.view(np.int8)), terminations
        rewards = np.empty(len(terminations))
        rewards.fill(self._constant_reward)
        return states, rewards, terminations

    def draw_frame(self, canvas: Canvas, index: int) -> None:
        """Draw cart-pole ``index``."""
        draw_cartpole(canvas, self.state[index], self.params)  # type: ignore[index]
