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
from palaestra.utils import seeding as seeding_utils
from palaestra.vector.native.generators import GeneratorRows

__all__ = ["CartPoleVectorEnv", "SEEDINGS"]

# How the batch draws its random initial states (see CartPoleVectorEnv's ``seeding``).
SEEDINGS = ("per_env", "batch")


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
        seeding: ``"per_env"`` (the default): sub-env ``i`` draws from its own generator,
            seeded ``seed + i``, so the batch follows a :class:`~palaestra.vector.SyncVectorEnv`
            of :class:`CartPoleEnv` step for step. ``"batch"``: one generator for the whole
            batch, drawn as Gymnasium's ``CartPoleVectorEnv`` draws it (an int seed only; the
            reset bounds of the last ``reset`` also bound the autoresets), so the batch follows
            Gymnasium's ``make_vec("CartPole-v1", vectorization_mode="vector_entry_point")``.
        parameters: the single environment's parameters by their attribute names
            (``gravity``, ``masscart``, ``masspole``, ``length``, ``force_mag``, ``tau``,
            ``x_threshold``, ``theta_threshold_radians``: one number, or a list/tuple/array
            with one per sub-env; ``kinematics_integrator``: one for all).

    The parameters before ``autoreset_mode`` are Gymnasium's ``CartPoleVectorEnv``'s, in its
    order; the keyword-only ones are palaestra's.

    Raises:
        ValueError: for a ``seeding`` other than ``"per_env"`` and ``"batch"``.

    Example:
        >>> envs = CartPoleVectorEnv(num_envs=2, sutton_barto_reward=True)
        >>> _ = envs.reset(seed=1)
        >>> envs.step(np.array([1, 0]))[1]
        array([0., 0.])

        As Gymnasium's class seeds it (one generator, ``np_random`` a single Generator):

        >>> envs = CartPoleVectorEnv(num_envs=2, seeding="batch")
        >>> first, _ = envs.reset(seed=1)
        >>> bool(np.all(first.T == np.random.default_rng(1).uniform(-0.05, 0.05, (4, 2))
        ...     .astype(np.float32)))
        True
    """

    single_env_class = CartPoleEnv
    # All in float64, no powers of parameters: per-row columns round as Python numbers.
    steps_with_parameter_columns = True
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
        seeding: str = "per_env",
        **parameters: Any,
    ):
        if seeding not in SEEDINGS:
            raise ValueError(f"seeding must be one of {SEEDINGS}, got {seeding!r}.")
        self.seeding = seeding
        # The "batch" seeding's one generator (made on first use) and the bounds of its draws.
        self._batch_generator: np.random.Generator | None = None
        self._batch_seed: int | None = None
        self._batch_bounds: tuple[Any, Any] | None = None
        super().__init__(
            num_envs,
            max_episode_steps,
            render_mode,
            autoreset_mode,
            accelerator,
            parameters,
            sutton_barto_reward=sutton_barto_reward,
        )
        self.sutton_barto_reward = sutton_barto_reward
        # The reward rule tabulated over the two termination flags (and the force rule over
        # the two actions, in parameters_changed): one lookup instead of a compare and select.
        self._rewards = cartpole_reward(np.array([False, True]), sutton_barto_reward)
        # The default reward is the same whether or not a step terminates: filled in, not
        # looked up (a third of the cost).
        self._constant_reward = None
        if self._rewards[0] == self._rewards[1]:
            self._constant_reward = float(self._rewards[0])
        self.parameters_changed()

    def parameters_changed(self) -> None:
        """Rebuild the force table and the compiled step for the current parameters."""
        super().parameters_changed()
        self._forces = cartpole_force(np.arange(2), self.params)
        self._compiled_advance = None
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

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset every cart-pole (see ``NativeVectorEnv.reset``; ``seeding`` says how it draws).

        Raises:
            palaestra.error.Error: with ``seeding="batch"``, for a seed that is not an int.
        """
        if self.seeding == "batch":
            if seed is not None:
                self._batch_generator, self._batch_seed = seeding_utils.np_random(seed)
            bound = self.params.reset_bound
            self._batch_bounds = maybe_parse_reset_bounds(options, -bound, bound)
            seed = None  # the per-env generators go unused
        return super().reset(seed=seed, options=options)

    @property
    def np_random(self) -> Any:  # type: ignore[override]
        """The per-env generators, or with ``seeding="batch"`` the batch's one generator."""
        if self.seeding != "batch":
            return super().np_random
        if self._batch_generator is None:
            self._batch_generator, self._batch_seed = seeding_utils.np_random()
        return self._batch_generator

    @property
    def np_random_seed(self) -> Any:  # type: ignore[override]
        """The per-env seeds, or with ``seeding="batch"`` the batch generator's seed."""
        if self.seeding != "batch":
            return super().np_random_seed
        return self._batch_seed

    def draw_initial_states(self, rows: GeneratorRows, count: int, options: dict | None) -> Any:
        """Draw ``count`` states uniformly from the (optionally overridden) reset bounds."""
        if self.seeding == "batch":
            # Gymnasium's order: a (4, count) block, component by component.
            low, high = self._batch_bounds
            return self.np_random.uniform(low=low, high=high, size=(4, count)).T
        bound = self.params.reset_bound
        low, high = maybe_parse_reset_bounds(options, -bound, bound)
        return cartpole_initial_state(rows, low, high, batch_size=count)  # type: ignore[arg-type]

    def uniform_initial_bounds(self) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
        """Return ``[-reset_bound, reset_bound)`` for every component (per-env seeding only)."""
        if self.seeding == "batch":
            return None
        bound = self.params.reset_bound
        return (-bound,) * 4, (bound,) * 4

    def observe(self, states: np.ndarray) -> np.ndarray:
        """Return the states as float32."""
        return states.astype(np.float32)

    def compile_advance(self) -> Any:
        """Return the compiled batch step of these parameters and reward (``compile_cartpole``)."""
        from palaestra.envs.classic_control.vector._compiled import compile_cartpole

        return compile_cartpole(
            self.kernel_params(), self.sutton_barto_reward, self.row_params is not None
        )

    def _step_with(
        self, states: np.ndarray, actions: np.ndarray, rows: Any, fresh: Any, p: Any
    ) -> Transition:
        x, x_dot, theta, theta_dot = components(states)
        # The base class has checked that every action is 0 or 1.
        force = self._forces.take(actions) if p is self.params else cartpole_force(actions, p)
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
        draw_cartpole(canvas, self.state[index], self.params_of(index))  # type: ignore[index]
