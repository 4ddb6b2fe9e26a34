"""The base class of every natively batched environment: :class:`NativeVectorEnv`.

It holds the states of all sub-environments in one array and advances them with one call of
the system's batched dynamics (the very functions the single environment calls). It adds what
``make_vec(..., vectorization_mode="sync")`` adds around a single environment: time limits,
the three autoreset modes, ``reset_mask`` and per-sub-env seeding, with the same results for
the same seeds. Nothing here knows any environment family.

A subclass names its single environment class and fills in three hooks (four to render):

- :meth:`~NativeVectorEnv.draw_initial_states` draws initial states from per-sub-env random
  streams (a :class:`~palaestra.vector.native.generators.GeneratorRows`),
- :meth:`~NativeVectorEnv.observe` turns states into observations,
- :meth:`~NativeVectorEnv.advance` steps states: next states, rewards, terminations,
- :meth:`~NativeVectorEnv.render_sub_env` (optional) draws one sub-environment.

A subclass with compiled dynamics also overrides
:meth:`~NativeVectorEnv.compile_advance`, and its ``advance`` calls
:attr:`~NativeVectorEnv.compiled_advance` when that is set (the numba path).

Four optional hooks serve systems whose observations are not one array or whose single
environment returns infos: :meth:`~NativeVectorEnv.make_generators` (other random streams),
:meth:`~NativeVectorEnv.publish` and :meth:`~NativeVectorEnv.publish_row` (the observations
as the batched and the single observation space hold them) and
:meth:`~NativeVectorEnv.finish_infos` (the infos of a reset or step, from what the hooks did).

A subclass whose sub-environments return infos sets ``gives_infos``: ``advance`` then returns
the stepped rows' infos as a fourth item and :meth:`~NativeVectorEnv.reset_infos` gives the
reset ones; the base batches them as a sync vector env does
(:mod:`palaestra.vector.native.infos`). One whose initial states take more than ``uniform``
draws sets ``keeps_generator_objects`` and draws from ``rows.generators()``.

Example:
    >>> import numpy as np
    >>> from palaestra import Env, spaces
    >>> class Counter(Env):
    ...     observation_space = spaces.Box(0.0, 100.0, (1,))
    ...     action_space = spaces.Discrete(2)
    >>> class CounterVectorEnv(NativeVectorEnv):
    ...     single_env_class = Counter
    ...     def draw_initial_states(self, rows, count, options):
    ...         return rows.uniform(0.0, 1.0, size=(count, 1))
    ...     def observe(self, states):
    ...         return states.astype(np.float32)
    ...     def advance(self, states, actions, rows, fresh):
    ...         states = states + actions[:, None]
    ...         return states, np.ones(len(states)), states[:, 0] > 3.0
    >>> envs = CounterVectorEnv(num_envs=2, max_episode_steps=10, accelerator="numpy")
    >>> observations, _ = envs.reset(seed=0)
    >>> envs.step(np.array([1, 0]))[1]
    array([1., 1.])
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from palaestra import error, logger, spaces
from palaestra.core import Env
from palaestra.vector._arguments import (
    autoreset_mode_from,
    seeds_per_env,
    split_reset_mask,
    values_per_env,
)
from palaestra.vector.native.accelerator import (
    numba_installed,
    requested_accelerator,
    resolve_accelerator,
)
from palaestra.vector.native.bookkeeping import NO_LIMIT, close_step
from palaestra.vector.native.generators import GeneratorBatch, GeneratorRows
from palaestra.vector.native.infos import batched_infos, move_to_final, restart_rows_info
from palaestra.vector.native.tiers import (
    COMPILE_AFTER_SECONDS,
    COMPILE_AFTER_STEPS,
    PromotionClock,
    mark_promoted,
)
from palaestra.vector.utils import batch_space
from palaestra.vector.vector_env import AutoresetMode, VectorEnv, add_rows_info

__all__ = ["NativeVectorEnv", "Transition"]

Transition = tuple[np.ndarray, np.ndarray, np.ndarray]

# The ufunc's own reduction: ndarray.max() adds two Python-level calls, a third of its cost
# on a small batch.
_largest = np.maximum.reduce
_all = np.logical_and.reduce


# The render modes a natively batched env takes (all give one frame per sub-env).
RENDER_MODES = (None, "rgb_array", "rgb_array_list", "human")


class NativeVectorEnv(VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """Base class of the natively batched environments (see the module docstring).

    Args:
        num_envs: the number of sub-environments.
        max_episode_steps: truncate episodes after this many steps (``None``: never).
        render_mode: ``None`` or ``"rgb_array"`` (``render`` returns one frame per sub-env);
            ``"rgb_array_list"`` and ``"human"`` render the same, as Gymnasium's
            ``CartPoleVectorEnv`` does.
        autoreset_mode: an :class:`~palaestra.vector.AutoresetMode` or its value string.
        accelerator: ``"auto"``, ``"numpy"`` or ``"numba"`` (compiled dynamics where the
            subclass has them, and compiled random draws; needs the ``fast`` extra). ``None``
            reads the ``PALAESTRA_ACCELERATOR`` environment variable, else ``"auto"``: a
            subclass with compiled dynamics (see :meth:`compile_advance`) starts on numpy
            and, when numba is installed, moves to it between two steps once it has taken
            :attr:`compile_after_steps` steps lasting :attr:`compile_after_seconds` (see
            :mod:`palaestra.vector.native.tiers`), with the same results;
            :attr:`accelerator` names the path in use.
        parameters: per-sub-env parameters by name (see :meth:`parameter_names`): one value
            for every sub-env, or a list/tuple/1-D array with one per sub-env, as
            :meth:`set_attr` sets them. A keyword argument of the single environment that
            is a parameter may also be such a sequence (it is then set per sub-env).
        env_kwargs: keyword arguments of the single environment class.

    Raises:
        ValueError: for ``num_envs < 1``, an unsupported ``render_mode``, an unknown
            ``autoreset_mode`` or ``accelerator``, or parameter values as :meth:`set_attr`.
        TypeError: for a parameter name the subclass does not have.
        palaestra.error.DependencyNotInstalled: for ``accelerator="numba"`` without numba.
    """

    single_env_class: type[Env]
    # The dtype of the state array (a float64 array holds float32 states exactly).
    state_dtype: Any = np.float64
    # Whether a step consumes random numbers (then only the rows that step may draw).
    steps_draw_randomness = False
    # Whether ``advance`` reads the ``fresh`` mask (else it is not kept up to date).
    reads_fresh_rows = False
    # Up to this many sub-envs, the numpy accelerator steps row by row on the single env's own
    # scalar path (see :attr:`row_by_row`): where numpy's cost per call exceeds a scalar loop.
    row_by_row_max_envs = 0
    # Whether the compiled step checks Discrete actions itself (then the base does not).
    compiled_checks_actions = False
    # Under "auto": the steps, and seconds of stepping, before the env moves to numba.
    compile_after_steps = COMPILE_AFTER_STEPS
    compile_after_seconds = COMPILE_AFTER_SECONDS
    # Whether ``advance`` returns a fourth item, the rows' step infos (and ``reset_infos``
    # gives reset infos); else every info is empty.
    gives_infos = False
    # Whether each sub-env keeps its own numpy Generator (``rows.generators()``) at every
    # size and accelerator, for initial states drawn with more than ``uniform``.
    keeps_generator_objects = False

    def __init__(
        self,
        num_envs: int = 1,
        max_episode_steps: int | None = None,
        render_mode: str | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        accelerator: str | None = None,
        parameters: dict[str, Any] | None = None,
        **env_kwargs: Any,
    ):
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}.")
        # "rgb_array_list" and "human" render as "rgb_array" (one frame per sub-env), as
        # Gymnasium's CartPoleVectorEnv does: a batch opens no window of its own (the vector
        # HumanRendering wrapper shows its frames in one).
        if render_mode not in RENDER_MODES:
            raise ValueError(
                f"{type(self).__name__} renders with render_mode in {RENDER_MODES}, got "
                f"{render_mode!r}; for a window, wrap it in "
                "palaestra.wrappers.vector.HumanRendering."
            )
        self.num_envs = int(num_envs)
        self.max_episode_steps = max_episode_steps
        self.render_mode = render_mode
        self.autoreset_mode = autoreset_mode_from(autoreset_mode)
        parameters = self._split_parameters(parameters, env_kwargs)
        self.single_env = self.make_single_env(env_kwargs)
        self.metadata = {
            "render_modes": ["rgb_array"],
            "render_fps": self.single_env.metadata.get("render_fps"),
            "autoreset_mode": self.autoreset_mode,
        }
        self.single_observation_space = self.single_env.observation_space
        self.single_action_space = self.single_env.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

        requested = requested_accelerator(accelerator)
        self.accelerator = "numpy" if requested == "auto" else resolve_accelerator(requested)
        self._promotion: PromotionClock | None = None
        if requested == "auto" and self.has_compiled_dynamics() and numba_installed():
            self._promotion = PromotionClock(self.compile_after_seconds, self.compile_after_steps)
        self._compiled_advance: Any = None
        self.row_by_row = self.accelerator == "numpy" and self.num_envs <= self.row_by_row_max_envs
        self.generators = self.make_generators()
        self.state: np.ndarray | None = None
        self.fresh = np.zeros(self.num_envs, dtype=np.bool_)
        self.elapsed_steps = np.zeros(self.num_envs, dtype=np.int64)
        self._ended = np.zeros(self.num_envs, dtype=np.bool_)
        self._ended_rows = np.zeros(0, dtype=np.int64)
        self._no_restarts = np.zeros(self.num_envs, dtype=np.bool_)
        self._close_step = self._choose_close_step()
        self._has_fresh = False
        self._every_row = self.generators.rows()
        self._action_shape = self.action_space.shape
        self._sub_env_attributes: dict[str, list[Any]] = {}
        # The parameters that differ between sub-envs, one value per sub-env; every other
        # parameter is the single environment's, shared by all rows.
        self.row_values: dict[str, tuple[Any, ...]] = {}
        for name, values in parameters.items():
            self._store_parameter(name, values_per_env(values, self.num_envs))
        # Whether reset and step hand their results to publish and finish_infos (overridden).
        self._finishes = any(
            getattr(type(self), hook) is not getattr(NativeVectorEnv, hook)
            for hook in ("publish", "finish_infos")
        )
        self._action_bounds = None
        if isinstance(self.single_action_space, spaces.Discrete):
            start = int(self.single_action_space.start)
            self._action_bounds = (start, start + int(self.single_action_space.n))

    def _choose_close_step(self) -> Any:
        limit = NO_LIMIT if self.max_episode_steps is None else int(self.max_episode_steps)
        if self.accelerator == "numba":
            from palaestra.vector.native.compiled import compiled_close_step

            def compiled(rewards: Any, terminations: Any, restarting: Any) -> Any:
                # The compiled pass reads a mask: the ended mask names the same rows.
                mask = self._no_restarts if restarting is None else self._ended
                return compiled_close_step(rewards, terminations, self.elapsed_steps, mask, limit)

            return compiled

        def plain(rewards: Any, terminations: Any, restarting: Any) -> Any:
            return close_step(rewards, terminations, self.elapsed_steps, restarting, limit)

        return plain

    # The compiled path ---------------------------------------------------------------------

    @classmethod
    def has_compiled_dynamics(cls) -> bool:
        """Whether the subclass has a compiled step (it overrides :meth:`compile_advance`)."""
        return cls.compile_advance is not NativeVectorEnv.compile_advance

    def compile_advance(self) -> Any:
        """Return the compiled (numba) form of :meth:`advance`'s dynamics, for ``advance``.

        A subclass with compiled dynamics returns what its ``advance`` then calls (kept in
        ``self._compiled_advance``); it must give the numpy path's results bit for bit, since
        an ``"auto"`` env moves from one to the other in the middle of a run.
        """
        raise NotImplementedError

    @property
    def compiled_advance(self) -> Any:
        """What :meth:`compile_advance` returned, while the env is on numba (else ``None``).

        A subclass's :meth:`advance` calls it when it is set. On ``accelerator="numba"`` it is
        built at the first ``reset`` at the latest (a subclass may install it earlier, in
        ``__init__``); under ``"auto"``, when the env moves to numba.
        """
        return self._compiled_advance

    def _install_compiled_advance(self, advance: Any = None) -> None:
        """Take the compiled step; a subclass calls it at the end of ``__init__`` on numba."""
        self._compiled_advance = self.compile_advance() if advance is None else advance
        if self.compiled_checks_actions:
            self._action_bounds = None

    def use_compiled_path(self) -> None:
        """Move to the compiled (numba) path now, between two steps, with the same results.

        Every sub-environment keeps its state, its step count and its random stream's
        position, so a run gives the same observations, rewards and flags whether it moves
        or not. An ``"auto"`` env does this by itself once it has taken
        :attr:`compile_after_steps` steps lasting :attr:`compile_after_seconds`; the call loads
        (or, with an empty cache, compiles) the kernels, which the first compiled steps
        finish loading.

        Raises:
            palaestra.error.DependencyNotInstalled: if numba is not installed.
            NotImplementedError: if the env has no compiled dynamics.

        Example:
            >>> from palaestra.envs.classic_control.vector import CartPoleVectorEnv
            >>> envs = CartPoleVectorEnv(2, accelerator="numpy")
            >>> envs.use_compiled_path()  # doctest: +SKIP
            >>> envs.accelerator  # doctest: +SKIP
            'numba'
        """
        self._promotion = None
        if self.accelerator == "numba":
            return
        if not self.has_compiled_dynamics():
            raise NotImplementedError(f"{type(self).__name__} has no compiled dynamics.")
        resolve_accelerator("numba")
        # Everything that can fail (imports, building the kernels) before anything changes.
        advance = self.compile_advance()
        self.generators.use_compiled_draws()
        self.accelerator = "numba"
        self.row_by_row = False
        self._close_step = self._choose_close_step()
        self._install_compiled_advance(advance)
        mark_promoted()

    def _promote(self) -> None:
        """Move an ``"auto"`` env to numba; if that fails, stay on numpy and say why."""
        try:
            self.use_compiled_path()
        except Exception as e:  # a numba that does not import or compile: numpy still works
            self._promotion = None
            logger.warn(
                "%s stays on numpy: its compiled path failed to load (%s: %s); pass "
                "accelerator='numpy' to skip trying.",
                type(self).__name__,
                type(e).__name__,
                e,
            )

    # Hooks -------------------------------------------------------------------------------

    def make_single_env(self, env_kwargs: dict[str, Any]) -> Env:
        """Build the single environment (the spaces' and shared parameters' owner)."""
        return self.single_env_class(**env_kwargs)

    def reset_infos(self, indices: np.ndarray) -> dict[str, Any]:
        """Return the reset infos of sub-envs ``indices``, just restarted (with ``gives_infos``).

        Each value is batched over ``indices`` (one row per listed sub-env), as
        :func:`~palaestra.vector.vector_env.add_rows_info` takes it.
        """
        return {}

    def draw_initial_states(self, rows: GeneratorRows, count: int, options: dict | None) -> Any:
        """Draw ``count`` initial states, row ``i`` from ``rows``' generator ``i``."""
        raise NotImplementedError

    def observe(self, states: np.ndarray) -> np.ndarray:
        """Return the batched observations of ``states`` (as drawn or as stepped)."""
        raise NotImplementedError

    def advance(
        self, states: np.ndarray, actions: np.ndarray, rows: GeneratorRows, fresh: np.ndarray
    ) -> Transition:
        """Step ``states`` under ``actions``: return next states, rewards and terminations.

        ``fresh`` marks states not stepped since their reset, for systems whose first step
        computes in the initial state's dtype. When :attr:`row_by_row` is set (a small batch
        on the numpy accelerator, see ``row_by_row_max_envs``) a subclass may step each row
        with the single environment's own scalar path instead of the batched one. With
        ``gives_infos`` it returns a fourth item too: the rows' step infos, each value
        batched over the rows stepped.
        """
        raise NotImplementedError

    def render_sub_env(self, index: int) -> np.ndarray:
        """Return an ``(H, W, 3)`` uint8 frame of sub-environment ``index`` (to render)."""
        raise NotImplementedError(f"{type(self).__name__} does not render.")

    # Optional hooks -------------------------------------------------------------------------

    def make_generators(self) -> Any:
        """Return the per-sub-env random streams the other hooks draw from (a hook).

        Called once, in ``__init__`` (after :attr:`accelerator` and :attr:`row_by_row` are
        set). The default is a :class:`~palaestra.vector.native.generators.GeneratorBatch`;
        a subclass may return other streams with its ``seed``, ``rows`` and ``generators``.
        """
        return GeneratorBatch(
            self.num_envs,
            compiled=self.accelerator == "numba",
            objects=self.keeps_generator_objects,
        )

    def publish(self, observations: np.ndarray) -> Any:
        """Return the batched observations as :attr:`observation_space` holds them (a hook).

        ``reset`` and ``step`` hand their observation array (what :meth:`observe` returned)
        through it; the default returns it unchanged. A ``Tuple`` space, say, returns one
        array per component.
        """
        return observations

    def publish_row(self, observation: np.ndarray) -> Any:
        """Return one sub-env's observation as the single environment returns it (a hook).

        Used for SAME_STEP's ``final_obs``; the default is a copy of the row.
        """
        return observation.copy()

    def finish_infos(self, infos: dict[str, Any]) -> dict[str, Any]:
        """Return the infos of the reset or step just taken, given the base's (a hook).

        The base's infos are empty but for SAME_STEP's ``final_obs``/``final_info`` keys; a
        subclass whose single environment returns infos adds them here, batched as a sync
        vector env batches them, from what its hooks recorded during the call.
        """
        return infos

    # The vector API ------------------------------------------------------------------------

    @property
    def np_random(self) -> tuple[np.random.Generator | None, ...]:  # type: ignore[override]
        """A snapshot of every sub-environment's generator (``None`` before its first reset)."""
        return self.generators.generators

    @property
    def np_random_seed(self) -> tuple[int | None, ...]:  # type: ignore[override]
        """The seed of every sub-environment's generator."""
        return tuple(self.generators.seeds)

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset every sub-environment, or those in ``options["reset_mask"]``.

        Args:
            seed: ``None``, an int ``s`` (sub-env ``i`` gets ``s + i``) or one seed per sub-env.
            options: the single environment's reset options, plus ``"reset_mask"``.

        Returns:
            The batched observations and an empty info dict.

        Raises:
            ValueError: for a seed list of the wrong length, a bad ``reset_mask`` or bad
                options of the single environment.
            TypeError: for a ``reset_mask`` that is not a boolean numpy array.
            palaestra.error.ClosedEnvironmentError: after :meth:`close`.
        """
        self._refuse_if_closed()
        if (
            self.state is None
            and self.accelerator == "numba"
            and self._compiled_advance is None
            and self.has_compiled_dynamics()
        ):
            # A subclass that did not install its compiled step in __init__ gets it here.
            self._install_compiled_advance()
        seeds = seeds_per_env(seed, self.num_envs)
        mask, options = split_reset_mask(options, self.num_envs)
        indices = np.arange(self.num_envs) if mask is None else np.flatnonzero(mask)
        self.generators.seed(indices, seeds)
        initial = self.draw_initial_states(self.generators.rows(indices), len(indices), options)
        if self.state is None:
            # Column-major, as the dynamics return batches: one layout, one compiled kernel.
            self.state = np.zeros(
                (self.num_envs, *np.shape(initial)[1:]), dtype=self.state_dtype, order="F"
            )
            self._observations = np.zeros(
                (self.num_envs, *self.single_observation_space.shape),
                dtype=self.single_observation_space.dtype,
            )
        self._restart(indices, initial)
        self._ended_rows = np.flatnonzero(self._ended)
        # The previous observations were handed out; update a copy.
        self._observations = self._observations.copy()
        self._observations[indices] = self.observe(initial)
        infos: dict[str, Any] = {}
        if self.gives_infos:
            add_rows_info(infos, self.reset_infos(indices), indices, self.num_envs)
        if self._finishes:
            return self.publish(self._observations), self.finish_infos(infos)
        return self._observations, infos

    def _autoreset(self, indices: np.ndarray) -> None:
        """Give the rows at ``indices`` fresh initial states, as a step's autoreset does.

        A hook: a compiled path may draw the states and write them in one call.
        """
        initial = self.draw_initial_states(self.generators.rows(indices), len(indices), None)
        self._restart(indices, initial)

    def _restart(self, indices: np.ndarray, initial: Any) -> None:
        self.state[indices] = initial  # type: ignore[index]
        if self.reads_fresh_rows:
            self.fresh[indices] = True
            self._has_fresh = True
        self.elapsed_steps[indices] = 0
        self._ended[indices] = False

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-environment, autoresetting as :attr:`autoreset_mode` says.

        Args:
            actions: an element of :attr:`action_space`.

        Returns:
            Batched ``(observations, rewards, terminations, truncations, infos)``; rewards are
            float64, as a sync vector env of the single environment returns them.

        Raises:
            palaestra.error.ResetNeeded: before the first ``reset``.
            palaestra.error.ClosedEnvironmentError: after :meth:`close`.
            ValueError: for actions of the wrong shape.
            AssertionError: for Discrete actions outside the action space (as Gymnasium).
            RuntimeError: with ``autoreset_mode=DISABLED``, stepping an ended sub-env.
        """
        if self.closed:
            self._refuse_if_closed()
        if self.state is None:
            raise error.ResetNeeded(
                f"Cannot call `{type(self).__name__}.step` before `reset`; call reset() first."
            )
        promotion = self._promotion
        if promotion is not None and promotion.sampling():
            started = time.perf_counter()
            result = self._step_checked(actions)
            if promotion.sampled(time.perf_counter() - started):
                self._promote()
        else:
            result = self._step_checked(actions)
        if self._finishes:
            observations, rewards, terminations, truncations, infos = result
            return (
                self.publish(observations),
                rewards,
                terminations,
                truncations,
                self.finish_infos(infos),
            )
        return result

    def _step_checked(self, actions: Any) -> Any:
        actions = self._checked_actions(actions)
        if not len(self._ended_rows):
            return self._step_all(actions, None)
        if self.autoreset_mode is AutoresetMode.DISABLED:
            raise RuntimeError(
                f"Sub-environments {self._ended_rows.tolist()} were stepped after "
                "their episodes ended with autoreset_mode=DISABLED; reset them first with "
                "`reset(options={'reset_mask': mask})`."
            )
        if self.steps_draw_randomness:
            return self._step_with_next_step_resets(actions)
        return self._step_all(actions, self._ended_rows)

    def _step_all(self, actions: np.ndarray, restarting: np.ndarray | None) -> Any:
        """Step every row; rows in ``restarting`` (NEXT_STEP autoreset) are then reset.

        Stepping the restarting rows too and discarding their results is cheaper than
        gathering the others, and harmless when a step draws no random numbers. The
        observations are taken once, after the restarts: every row's state is then the one
        to observe (``observe`` works row by row, and a float64 state array holds stepped and
        initial states exactly).
        """
        infos: dict[str, Any] = {}
        if self.gives_infos:
            state, rewards, terminations, step_info = self.advance(
                self.state, actions, self._every_row, self.fresh
            )
            # Batched (and copied where they are views) before any row restarts.
            infos = batched_infos(step_info, self.num_envs)
        else:
            state, rewards, terminations = self.advance(
                self.state, actions, self._every_row, self.fresh
            )
        self.state = state.astype(self.state_dtype, copy=False)
        if self._has_fresh:
            self.fresh[:] = False
            self._has_fresh = False
        truncations, ended, ended_rows = self._close_step(rewards, terminations, restarting)
        if restarting is not None:
            self._autoreset(restarting)
            if self.gives_infos:
                reset_info = self.reset_infos(restarting)
                restart_rows_info(infos, reset_info, restarting, self.num_envs)
        observations = self.observe(self.state)
        self._ended, self._ended_rows = ended, ended_rows
        if self.autoreset_mode is AutoresetMode.SAME_STEP and len(ended_rows):
            return self._finish_same_step(observations, rewards, terminations, truncations, infos)
        self._observations = observations
        return observations, rewards, terminations, truncations, infos

    def _step_with_next_step_resets(self, actions: np.ndarray) -> Any:
        restarting = self._ended
        stepping = np.flatnonzero(~restarting)
        transition = self.advance(
            self.state[stepping],
            actions[stepping],
            self.generators.rows(stepping),
            self.fresh[stepping],
        )
        state, step_rewards, step_terminations = transition[:3]
        infos: dict[str, Any] = {}
        if self.gives_infos:
            add_rows_info(infos, transition[3], stepping, self.num_envs)
        self.state[stepping] = state
        self.fresh[stepping] = False
        self.elapsed_steps[stepping] += 1
        self._observations = self._observations.copy()
        self._observations[stepping] = self.observe(state)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        rewards[stepping] = step_rewards
        terminations = np.zeros(self.num_envs, dtype=np.bool_)
        terminations[stepping] = step_terminations
        restarted = np.flatnonzero(restarting)
        self._reset_rows(restarted)
        if self.gives_infos:
            add_rows_info(infos, self.reset_infos(restarted), restarted, self.num_envs)
        truncations = self._truncations()
        self._ended = terminations | truncations
        self._ended_rows = np.flatnonzero(self._ended)
        return self._observations, rewards, terminations, truncations, infos

    def _finish_same_step(
        self,
        observations: np.ndarray,
        rewards: np.ndarray,
        terminations: np.ndarray,
        truncations: np.ndarray,
        infos: dict[str, Any],
    ) -> Any:
        if self.gives_infos:
            rows = self._ended_rows
            move_to_final(infos, observations, rows, self.num_envs)
            self._observations = observations
            self._reset_rows(rows)
            add_rows_info(infos, self.reset_infos(rows), rows, self.num_envs)
            self._ended = np.zeros(self.num_envs, dtype=np.bool_)
            self._ended_rows = self._ended_rows[:0]
            return self._observations, rewards, terminations, truncations, infos
        ended = self._ended.copy()
        final_obs = np.full(self.num_envs, None, dtype=object)
        for index in np.flatnonzero(ended):
            final_obs[index] = self.publish_row(observations[index])
        self._observations = observations
        self._reset_rows(np.flatnonzero(ended))
        infos = {
            "final_obs": final_obs,
            "_final_obs": ended.copy(),
            "final_info": {},
            "_final_info": ended.copy(),
        }
        self._ended = np.zeros(self.num_envs, dtype=np.bool_)
        self._ended_rows = self._ended_rows[:0]
        return self._observations, rewards, terminations, truncations, infos

    def _reset_rows(self, indices: np.ndarray) -> None:
        initial = self.draw_initial_states(self.generators.rows(indices), len(indices), None)
        self._restart(indices, initial)
        self._observations[indices] = self.observe(initial)

    def _truncations(self) -> np.ndarray:
        if self.max_episode_steps is None:
            return np.zeros(self.num_envs, dtype=np.bool_)
        return self.elapsed_steps >= self.max_episode_steps

    def _checked_actions(self, actions: Any) -> np.ndarray:
        actions = np.asarray(actions)
        if actions.shape != self._action_shape:
            raise ValueError(
                f"{type(self).__name__} expects actions of shape {self._action_shape} (an "
                f"element of {self.action_space}), got shape {actions.shape}."
            )
        if self._action_bounds is not None:
            low, high = self._action_bounds
            # Shifted to start at 0 and read as unsigned, every bad action (below or above)
            # exceeds high - low: one reduction instead of a min and a max.
            if actions.dtype.kind in "iu":
                integers = actions.astype(np.int64, copy=False)
            else:
                # Fractions and NaN are not in a Discrete space (Gymnasium rejects them too).
                with np.errstate(invalid="ignore"):
                    integers = actions.astype(np.int64)
                if not _all(integers == actions):
                    raise self.invalid_actions(actions)
            shifted = integers - low if low else integers
            if _largest(shifted.view(np.uint64)) >= high - low:
                raise self.invalid_actions(actions)
            # Integers, so that the actions can index tables.
            return integers
        return actions

    def invalid_actions(self, actions: np.ndarray) -> AssertionError:
        """Return the error for Discrete ``actions`` outside the space (Gymnasium's type, text).

        Example:
            >>> from palaestra.envs.classic_control.vector import CartPoleVectorEnv
            >>> print(CartPoleVectorEnv(2).invalid_actions(np.array([0, 2])))
            array([0, 2]) (<class 'numpy.ndarray'>) invalid: each action must be an integer in [0, 1] (an element of Discrete(2)).
        """  # noqa: E501
        space = self.single_action_space
        low = int(getattr(space, "start", 0))
        high = low + int(getattr(space, "n", 0))
        return AssertionError(
            f"{actions!r} ({type(actions)}) invalid: each action must be an integer in "
            f"[{low}, {high - 1}] (an element of {self.single_action_space})."
        )

    def _refuse_if_closed(self) -> None:
        if self.closed:
            raise error.ClosedEnvironmentError(
                f"Trying to operate on `{type(self).__name__}`, after a call to `close()`; "
                "build a new vector env instead."
            )

    # Attributes of the sub-environments ----------------------------------------------------

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Return attribute ``name`` of every sub-environment.

        The sub-environments are rows of one batch: an attribute set with :meth:`set_attr`
        is returned per sub-env, ``np_random`` and ``np_random_seed`` per stream, and any
        other attribute is the single environment's (the same for every sub-env).

        Raises:
            AttributeError: if no sub-environment has attribute ``name``.

        Example:
            >>> from palaestra.envs.classic_control.vector import CartPoleVectorEnv
            >>> CartPoleVectorEnv(2).get_attr("action_space")
            (Discrete(2), Discrete(2))
        """
        return tuple(self._attribute_values(name))

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call ``name`` on every sub-environment, or read it when it is not callable.

        Only values set with :meth:`set_attr` can be called: the single environment's own
        methods would act on a state that is not any sub-environment's.

        Raises:
            AttributeError: for an unknown name, or a method of the single environment.

        Example:
            >>> from palaestra.envs.classic_control.vector import CartPoleVectorEnv
            >>> envs = CartPoleVectorEnv(2)
            >>> envs.set_attr("scale", [1, 2])
            >>> envs.call("scale")
            (1, 2)
        """
        if name not in self._sub_env_attributes and callable(getattr(self.single_env, name, None)):
            raise AttributeError(
                f"{type(self).__name__} steps its sub-environments as rows of one batch, so "
                f"it has no sub-environment objects whose method {name!r} could be called; "
                "use the vector env's own methods, or make_vec(..., vectorization_mode='sync')."
            )
        return tuple(
            value(*args, **kwargs) if callable(value) else value
            for value in self._attribute_values(name)
        )

    def set_attr(self, name: str, values: Any) -> None:
        """Set attribute ``name`` per sub-environment (a list/tuple of one value each, or one).

        A parameter of the dynamics (see :meth:`parameter_names`) takes one value per
        sub-env, as the sync vector env's single envs would: rows that share one value keep
        the single environment's fast path, differing values step each row with its own.
        Any other name the single environment lacks becomes a per-sub-env attribute.

        Raises:
            ValueError: for a list/tuple whose length is not ``num_envs``, or a value the
                parameter does not take (see :meth:`check_parameter`).
            AttributeError: for another attribute of the single environment (its spaces,
                methods, state): all sub-envs share them as rows of one batch.

        Example:
            >>> from palaestra.envs.classic_control.vector import CartPoleVectorEnv
            >>> envs = CartPoleVectorEnv(2)
            >>> envs.set_attr("gravity", [9.8, 3.7])
            >>> envs.get_attr("gravity")
            (9.8, 3.7)
            >>> envs.set_attr("label", "left")
            >>> envs.get_attr("label")
            ('left', 'left')
        """
        values = values_per_env(values, self.num_envs)
        if name not in self._sub_env_attributes and name in self.parameter_names():
            self._store_parameter(name, values)
            self.parameters_changed()
            return
        if name not in self._sub_env_attributes and hasattr(self.single_env, name):
            settable = ", ".join(sorted(self.parameter_names())) or "none"
            raise AttributeError(
                f"{type(self).__name__} shares the single environment's {name!r} across all "
                "its sub-environments (it is not a parameter of the dynamics) and cannot set "
                f"it; its per-sub-env parameters are: {settable}. For other attributes use "
                "vectorization_mode='sync'."
            )
        self._sub_env_attributes[name] = list(values)

    # Per-sub-env parameters -----------------------------------------------------------------

    @classmethod
    def parameter_names(cls) -> frozenset[str]:
        """Return the names of the parameters that :meth:`set_attr` sets per sub-env.

        A hook: subclasses name the single environment's attributes that only the
        dynamics read (none by default).

        Example:
            >>> from palaestra.envs.classic_control.vector import PendulumVectorEnv
            >>> sorted(PendulumVectorEnv.parameter_names())
            ['dt', 'g', 'l', 'm', 'max_speed', 'max_torque']
        """
        return frozenset()

    def check_parameter(self, name: str, values: Sequence[Any]) -> None:
        """Check one value per sub-env of parameter ``name`` before it is set (a hook).

        Raises:
            ValueError: for a value the parameter does not take, naming it.
        """

    def parameters_changed(self) -> None:
        """Rebuild what derives from the parameters after :meth:`set_attr` changed one (a hook).

        The single environment holds the shared values and :attr:`row_values` the
        parameters that differ between sub-envs.
        """

    def parameter_keywords(self) -> dict[str, str]:
        """Map the single environment's keyword arguments to the parameters they set (a hook).

        ``make_vec(id, n, keyword=[...])`` sets that parameter per sub-env. By default each
        parameter is its own keyword; a family whose single env keeps a constructor
        argument under another attribute name (MuJoCo's ``_ctrl_cost_weight``) maps it.

        Example:
            >>> from palaestra.envs.classic_control.vector import PendulumVectorEnv
            >>> PendulumVectorEnv(2).parameter_keywords()["g"]
            'g'
        """
        return {name: name for name in self.parameter_names()}

    def _split_parameters(
        self, parameters: dict[str, Any] | None, env_kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        """Move per-sub-env values out of ``env_kwargs``; return every parameter to set.

        A keyword argument of the single environment that sets a parameter goes to its
        constructor when it is one value, and is set per sub-env when it is a sequence.
        """
        parameters = dict(parameters or {})
        for keyword, name in self.parameter_keywords().items():
            if isinstance(env_kwargs.get(keyword), (list, tuple, np.ndarray)):
                parameters[name] = env_kwargs.pop(keyword)
        names = self.parameter_names()
        unknown = sorted(parameters.keys() - names)
        if unknown:
            settable = ", ".join(sorted(names)) or "none"
            raise TypeError(
                f"{type(self).__name__} got unexpected keyword arguments {unknown}: its "
                f"per-sub-env parameters are: {settable}."
            )
        return {
            name: value.tolist() if isinstance(value, np.ndarray) and value.ndim == 1 else value
            for name, value in parameters.items()
        }

    def _store_parameter(self, name: str, values: Sequence[Any]) -> None:
        # numpy scalars as the Python numbers they hold: every path meets them as the single
        # env meets a Python number (a float32 state rounds it, NEP 50), the compiled one too.
        values = [value.item() if isinstance(value, np.generic) else value for value in values]
        self.check_parameter(name, values)
        first = values[0]
        if all(type(value) is type(first) and value == first for value in values):
            # One value for all: the single environment's, and the shared fast path.
            setattr(self.single_env, name, first)
            self.row_values.pop(name, None)
        else:
            self.row_values[name] = tuple(values)

    def _attribute_values(self, name: str) -> list[Any]:
        if name in self._sub_env_attributes:
            return self._sub_env_attributes[name]
        if name in self.row_values:
            return list(self.row_values[name])
        if name in ("np_random", "np_random_seed", "render_mode"):
            value = getattr(self, name)
            return list(value) if name != "render_mode" else [value] * self.num_envs
        try:
            value = getattr(self.single_env, name)
        except AttributeError as e:
            raise AttributeError(
                f"The sub-environments of {type(self).__name__} have no attribute {name!r}."
            ) from e
        return [value] * self.num_envs

    def render(self) -> tuple[np.ndarray, ...] | None:
        """Return one ``(H, W, 3)`` uint8 frame per sub-environment, drawn as the single env.

        Returns ``None`` without a render mode or before the first reset.

        Raises:
            NotImplementedError: if the subclass does not draw its sub-environments.
        """
        if self.render_mode is None or self.state is None:
            return None
        return tuple(self.render_sub_env(index) for index in range(self.num_envs))
