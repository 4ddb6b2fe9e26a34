"""The natively batched MuJoCo environments: every sub-env stepped in C threads at once.

:class:`MujocoVectorEnv` is a :class:`~palaestra.vector.native.NativeVectorEnv`: its hooks
reset and advance all sub-environments' simulations together, in parallel C code with the
GIL released (see :mod:`palaestra.envs.mujoco._simulations`: by default MuJoCo's own
:class:`mujoco.batch.Batch`, one C call per step on its thread pool, or one ``MjData`` per
sub-env stepped on a pool of Python threads), bit for bit as a loop of ``mj_step`` over one
``MjData`` each would; time limits, autoreset, seeding and info batching are the base's.
Observations, rewards and terminations are computed for the whole batch by the single
environment's own step function (:mod:`palaestra.envs.mujoco._task`): in numpy, or, on the
numba accelerator, that very function compiled into a loop over rows that the stepping
threads run on their rows (:mod:`palaestra.envs.mujoco._compiled`), giving the same bits.
So the results equal ``make_vec(id, n, vectorization_mode="sync")``'s exactly for the same
seeds, in every autoreset mode.

Example:
    >>> import numpy as np
    >>> import palaestra as gym
    >>> envs = gym.make_vec("HalfCheetah-v5", num_envs=2)
    >>> type(envs).__name__
    'MujocoVectorEnv'
    >>> obs, info = envs.reset(seed=0)
    >>> obs.shape
    (2, 17)
    >>> obs, rewards, terminations, truncations, info = envs.step(np.zeros((2, 6), np.float32))
    >>> rewards.dtype, sorted(info)[:2]
    (dtype('float64'), ['_reward_ctrl', '_reward_forward'])
    >>> envs.close()
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import os
from collections.abc import Callable, Iterator, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from palaestra import logger
from palaestra.envs.mujoco import _task
from palaestra.envs.mujoco._simulations import STEPPERS
from palaestra.envs.mujoco._task import MujocoTaskEnv
from palaestra.vector.native.base import NativeVectorEnv
from palaestra.vector.native.generators import GeneratorRows
from palaestra.vector.vector_env import AutoresetMode

__all__ = ["MujocoVectorEnv", "default_threads", "vector_entry_point"]


def default_threads() -> int:
    """Return how many CPU cores this process may run on (the default thread count).

    Example:
        >>> default_threads() >= 1
        True
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class MujocoVectorEnv(NativeVectorEnv):
    """``num_envs`` copies of a MuJoCo environment, stepped as one batch.

    A :class:`~palaestra.vector.native.NativeVectorEnv`: time limits, the three autoreset
    modes, ``reset_mask``, seeding and info batching are the native base's; the hooks here
    reset and step the simulations (see the module docstring of
    :mod:`palaestra.vector.native.base` and ``docs/native_batching.md``).

    Args:
        env_class: the single environment's class (a :class:`MujocoTaskEnv`) or its
            ``"module:Class"`` path.
        num_envs: the number of sub-environments.
        max_episode_steps: truncate episodes after this many steps (``None``: never).
        autoreset_mode: an :class:`~palaestra.vector.AutoresetMode` or its value string.
        num_threads: threads stepping the batch (the caller's included); ``None``: one per
            core this process may use.
        render_mode: ``None`` or ``"rgb_array"`` (``render`` returns one frame per sub-env).
        accelerator: ``"numba"`` computes the step's observations and rewards in one
            compiled call for the tasks that have one, the same numbers bit for bit as the
            numpy hooks; ``"numpy"`` always runs the hooks; ``"auto"`` or ``None``
            (``$PALAESTRA_ACCELERATOR``, else ``"auto"``) start on numpy and move to numba,
            when it is installed, once the run has lasted long enough to pay for loading it
            (see :mod:`palaestra.vector.native.tiers`). The physics runs in MuJoCo's C
            threads whichever is chosen.
        stepper: how the simulations advance: ``"batch"`` (one
            :class:`mujoco.batch.Batch` call steps them all on MuJoCo's own thread pool,
            the caller's thread included), ``"threads"`` (each sub-env's ``MjData`` on
            ``num_threads`` Python threads, MuJoCo releasing the GIL in every ``mj_step``
            and ``mj_rnePostConstraint``) or ``None`` (the default): ``"threads"`` for the
            tasks that read contact forces (Ant, Humanoid, HumanoidStandup), whose
            ``mj_rnePostConstraint`` then runs on every thread instead of after the batch
            on one, and ``"batch"`` for the others. Both give the same numbers bit for
            bit; ``benchmarks/mujoco_speed.py`` measures both.
        **env_kwargs: the single environment's arguments (``xml_file``, reward weights, ...).

    Raises:
        ValueError: for ``num_envs < 1``, ``num_threads < 1``, an unknown autoreset mode or
            accelerator or stepper, or a render mode other than ``None`` and ``"rgb_array"``.
        palaestra.error.DependencyNotInstalled: for ``accelerator="numba"`` without numba.
    """

    single_env_class: type[MujocoTaskEnv]
    # The state the base keeps is each row's own index: the simulations hold the states.
    state_dtype = np.intp
    gives_infos = True
    # Initial states draw normals and reject samples: each row's own Generator draws them.
    keeps_generator_objects = True
    # A MuJoCo step costs tens of microseconds to milliseconds: under "auto", an episode's
    # worth of steps lasting a second (the base's default) pays for loading numba.
    compile_after_steps = 1000

    def __init__(
        self,
        env_class: type[MujocoTaskEnv] | str,
        num_envs: int = 1,
        max_episode_steps: int | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        num_threads: int | None = None,
        render_mode: str | None = None,
        accelerator: str | None = None,
        stepper: str | None = None,
        **env_kwargs: Any,
    ):
        if isinstance(env_class, str):
            module, name = env_class.split(":")
            env_class = getattr(importlib.import_module(module), name)
        threads = default_threads() if num_threads is None else int(num_threads)
        if threads < 1:
            raise ValueError(
                f"num_threads must be at least 1 (or None for one per core), got {num_threads}."
            )
        if render_mode not in (None, "rgb_array"):
            raise ValueError(
                f"MujocoVectorEnv renders with render_mode=None or 'rgb_array', got "
                f"{render_mode!r}; for a window, render one sub-environment made with make()."
            )
        if stepper is not None and stepper not in STEPPERS:
            raise ValueError(
                f"Unknown stepper {stepper!r}; choose one of {sorted(STEPPERS)}: 'batch' steps "
                "every simulation in one mujoco.batch call, 'threads' steps each sub-env's "
                "MjData on a pool of Python threads (MuJoCo releases the GIL in mj_step)."
            )
        self.single_env_class = env_class  # type: ignore[assignment]
        self.num_threads = threads
        super().__init__(
            num_envs, max_episode_steps, render_mode, autoreset_mode, accelerator, **env_kwargs
        )
        self.metadata = {**self.single_env.metadata, **self.metadata}
        self.parameters_changed()
        self.model = self.single_env.model
        self.frame_skip = self.single_env.frame_skip
        if stepper is None:
            stepper = "threads" if self.single_env.reads_contact_forces else "batch"
        fields = {"qpos", "qvel", "ctrl", *self.single_env.read_fields}
        self.stepper = stepper
        self.simulations = STEPPERS[stepper](
            self.model,
            self.num_envs,
            min(threads, self.num_envs),
            tuple(sorted(fields)),
            self.single_env.reads_contact_forces,
        )
        self.view = self.simulations.view
        # The observations advance computed with the rewards, for the observe that follows.
        self._stepped: np.ndarray | None = None
        self._restarted: list[np.ndarray] = []
        # The view's fields as one named tuple (what the compiled loop reads), and the
        # kinds of settings and actions checked against the numpy hooks (see advance).
        names = tuple(sorted(vars(self.view)))
        self._data = _task.named_tuple_class(names)(*[getattr(self.view, n) for n in names])
        self._checked: dict[Any, Any] = {}
        if self.accelerator == "numba" and self.has_compiled_dynamics():
            self._install_compiled_advance()

    def make_single_env(self, env_kwargs: dict[str, Any]) -> MujocoTaskEnv:
        """Build the single environment, in the batch's render mode."""
        return self.single_env_class(render_mode=self.render_mode, **env_kwargs)

    # Per-sub-env parameters ------------------------------------------------------------------

    def parameter_names(self) -> frozenset[str]:  # type: ignore[override]
        """Return the single env's attributes that :meth:`set_attr` sets per sub-env.

        The attributes behind the task's ``sub_env_parameters`` (its constructor's reward
        weights and ``reset_noise_scale``): ``_ctrl_cost_weight`` for ``ctrl_cost_weight``.

        Example:
            >>> from palaestra.envs.mujoco.hopper_v5 import HopperEnv
            >>> sorted(MujocoVectorEnv(HopperEnv, 2).parameter_names())[:2]
            ['_ctrl_cost_weight', '_forward_reward_weight']
        """
        return frozenset(f"_{name}" for name in self._constructor_parameters())

    def _constructor_parameters(self) -> tuple[str, ...]:
        task = self.single_env_class
        arguments = inspect.signature(task.__init__).parameters
        return tuple(name for name in task.sub_env_parameters if name in arguments)

    def parameter_keywords(self) -> dict[str, str]:
        """Map each constructor argument to the attribute the single env keeps it in.

        ``make_vec(id, n, ctrl_cost_weight=[...])`` sets ``_ctrl_cost_weight`` per sub-env,
        as each single env built with its own value holds it.
        """
        return {name: f"_{name}" for name in self._constructor_parameters()}

    def check_parameter(self, name: str, values: Sequence[Any]) -> None:
        """Check one value per sub-env of parameter ``name``: real numbers only.

        Raises:
            ValueError: for a value that is not an int or a float, naming it.
        """
        for index, value in enumerate(values):
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise ValueError(
                    f"{type(self).__name__}.set_attr({name!r}) got {value!r} "
                    f"({type(value).__name__}) for sub-env {index}; expected a real number (an "
                    "int or a float), or a list or tuple of one per sub-env."
                )

    def parameters_changed(self) -> None:
        """Regroup the rows by their parameter values (rows alike step together)."""
        self._groups: list[tuple[np.ndarray, dict[str, Any]]] = []
        if not self.row_values:
            return
        found: dict[tuple[Any, ...], list[int]] = {}
        names = sorted(self.row_values)
        for row in range(self.num_envs):
            # The types too: an int and a float weight compute alike only in some tasks.
            key = tuple((type(v), v) for v in (self.row_values[n][row] for n in names))
            found.setdefault(key, []).append(row)
        for key, rows in found.items():
            values = {name: value for name, (_, value) in zip(names, key)}
            self._groups.append((np.array(rows), values))

    @contextlib.contextmanager
    def _parameters(self, values: dict[str, Any]) -> Iterator[None]:
        """Give the single env one parameter set's values for a while (its hooks read them)."""
        env = self.single_env
        kept = {name: getattr(env, name) for name in values}
        try:
            for name, value in values.items():
                setattr(env, name, value)
            yield
        finally:
            for name, value in kept.items():
                setattr(env, name, value)

    def _group_settings(self) -> list[tuple[np.ndarray | None, Any]]:
        """``(rows, settings)`` per parameter set (rows ``None``: one set for all)."""
        if not self._groups:
            return [(None, self.single_env.settings())]
        settings = []
        for rows, values in self._groups:
            with self._parameters(values):
                settings.append((rows, self.single_env.settings()))
        return settings

    def _grouped_outcome(self, before: Any, actions: np.ndarray) -> Any:
        """Return the numpy hooks' outcome of every row, each row with its parameter values."""
        env, view = self.single_env, self.view
        if not self._groups:
            return env._observe_outcome(view, before, actions)
        count = self.num_envs
        observations = np.empty((count, *self.single_observation_space.shape))
        rewards = np.empty(count)
        terminations = np.empty(count, dtype=np.bool_)
        infos: dict[str, np.ndarray] = {}
        # The group of row 0 first: the infos take its dtypes, as a sync env's take row 0's.
        for rows, values in self._groups:
            with self._parameters(values):
                rows_before = None if before is None else before[rows]
                result = env._observe_outcome(self._rows_view(rows), rows_before, actions[rows])
            observations[rows], rewards[rows], terminations[rows] = result[:3]
            for key, value in result[3].items():
                value = np.asarray(value)
                if key not in infos:
                    infos[key] = np.empty((count, *value.shape[1:]), dtype=value.dtype)
                infos[key][rows] = value
        return observations, rewards, terminations, infos

    # The compiled path ---------------------------------------------------------------------

    def has_compiled_dynamics(self) -> bool:  # type: ignore[override]
        """Whether the task's step is a pure function that numba compiles (``step_outcome``)."""
        return self.single_env_class.step_outcome is not None

    def compile_advance(self) -> Any:
        """Return the task's step outcome compiled into a loop over rows (see ``_compiled``)."""
        from palaestra.envs.mujoco._compiled import compile_outcome

        task = self.single_env_class
        return compile_outcome(task.step_outcome, task.outcome_helpers)

    def _kind(self, groups: list[tuple[Any, Any]], actions: np.ndarray) -> Any:
        return (tuple(_kinds(settings) for _, settings in groups), actions.dtype)

    def _compiled_rows(
        self,
        rows: np.ndarray,
        groups: list[tuple[np.ndarray | None, Any]],
        before: Any,
        actions: np.ndarray,
        outputs: Any,
    ) -> None:
        """Compute ``rows`` of the step's outcome into ``outputs``, each with its settings."""
        loop, data = self._compiled_advance, self._data
        for members, settings in groups:
            chosen = rows if members is None else rows[np.isin(rows, members)]
            if len(chosen):
                loop(chosen, settings, data, before, actions, *outputs)

    def _compiled_check(self, groups: list[tuple[Any, Any]], actions: np.ndarray) -> Any:
        """Return the info values' dtypes and shapes the compiled outcome gives, or ``None``.

        ``None`` (the numpy hooks) until a step has compared both outcomes for this kind of
        settings and actions, and where they differed or the task declines the settings.
        """
        return self._checked.get(self._kind(groups, actions))

    def _compare_outcomes(
        self, groups: list[tuple[Any, Any]], before: Any, actions: np.ndarray, expected: Any
    ) -> None:
        """Run the compiled outcome on every row once and keep it if it equals ``expected``."""
        key = self._kind(groups, actions)
        dtypes = tuple(
            (np.asarray(value).dtype, np.shape(value)[1:]) for value in expected[3].values()
        )
        same = None
        if all(self.single_env.compiled_supports(settings) for _, settings in groups):
            try:
                outputs = self._compiled_outputs(dtypes)
                self._compiled_rows(np.arange(self.num_envs), groups, before, actions, outputs)
            except Exception as e:  # numba refuses these types: the numpy hooks stay
                logger.warn(f"{type(self).__name__} steps on numpy: {type(e).__name__}: {e}")
            else:
                observations, rewards, terminations, infos = outputs
                if (
                    _identical(observations, expected[0])
                    and _identical(rewards, _every_row(expected[1], np.float64, self.num_envs))
                    and _identical(terminations, _every_row(expected[2], np.bool_, self.num_envs))
                    and all(map(_identical, infos, expected[3].values()))
                ):
                    same = dtypes
        self._checked[key] = same

    def _compiled_outputs(self, kinds: tuple[tuple[np.dtype, tuple[int, ...]], ...]) -> Any:
        """Fresh outputs of a compiled step: observations, rewards, flags, info values."""
        count = self.num_envs
        return (
            np.empty((count, *self.single_observation_space.shape)),
            np.empty(count),
            np.empty(count, dtype=np.bool_),
            tuple(np.empty((count, *shape), dtype=dtype) for dtype, shape in kinds),
        )

    # Hooks ---------------------------------------------------------------------------------

    def draw_initial_states(self, rows: GeneratorRows, count: int, options: dict | None) -> Any:
        """Reset the rows' simulations to states each row's own generator draws.

        Returns the rows' indices, the states the base keeps (the simulations hold the
        real ones).
        """
        indices = np.arange(self.num_envs) if rows.indices is None else np.asarray(rows.indices)
        env = self.single_env
        generators = rows.generators()
        if not self._groups:
            states = [env._reset_state(generator) for generator in generators]
        else:
            states = [None] * len(indices)
            for members, values in self._groups:
                with self._parameters(values):
                    for position in np.flatnonzero(np.isin(indices, members)):
                        states[position] = env._reset_state(generators[position])
        self.simulations.reset(
            indices,
            np.array([qpos for qpos, _ in states]),
            np.array([qvel for _, qvel in states]),
        )
        self._restarted.append(indices)
        return indices[:, None]

    def observe(self, states: np.ndarray) -> np.ndarray:
        """Return the observations of the rows ``states`` names (all: the last step's)."""
        rows = states[:, 0]
        stepped, self._stepped = self._stepped, None
        if stepped is not None and len(rows) == self.num_envs:
            for restarted in self._restarted:
                stepped[restarted] = self.single_env._observe(self._rows_view(restarted))
            self._restarted = []
            return stepped
        self._restarted = []
        if len(rows) == self.num_envs:
            return self.single_env._observe(self.view)
        return self.single_env._observe(self._rows_view(rows))

    def reset_infos(self, indices: np.ndarray) -> dict[str, Any]:
        """Return the reset infos of rows ``indices``, as each single env's ``reset`` gives them."""
        if len(indices) == self.num_envs:
            return dict(self.single_env._reset_info(self.view))
        return self.single_env._reset_info(self._rows_view(indices))

    def advance(
        self, states: np.ndarray, actions: np.ndarray, rows: GeneratorRows, fresh: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every simulation in the C threads; compute the outcome as each single env."""
        env, view = self.single_env, self.view
        before = env._progress(view)
        groups = dtypes = None
        if self._compiled_advance is not None:
            groups = self._group_settings()
            actions = np.ascontiguousarray(actions)
            dtypes = self._compiled_check(groups, actions)
        if dtypes is None:
            self.simulations.step(None, actions, self.frame_skip)
            observations, reward, terminated, step_info = self._grouped_outcome(before, actions)
            if groups is not None and self._kind(groups, actions) not in self._checked:
                self._compare_outcomes(
                    groups, before, actions, (observations, reward, terminated, step_info)
                )
        else:
            # The rows' outcomes, computed by the threads that step them, each once done.
            outputs = self._compiled_outputs(dtypes)

            def finish(done: list[int]) -> None:
                self._compiled_rows(np.array(done), groups, before, actions, outputs)

            self.simulations.step(None, actions, self.frame_skip, finish)
            observations, reward, terminated, values = outputs
            step_info = dict(zip(env.info_keys, values))
        self._stepped = observations
        self._restarted = []
        rewards = np.empty(self.num_envs)
        rewards[:] = reward  # a batch of rewards, or one for all (InvertedPendulum-v4's 1.0)
        terminations = np.zeros(self.num_envs, dtype=np.bool_)
        terminations[:] = terminated  # a batch of flags, or False for tasks that never end
        return states, rewards, terminations, step_info

    def _rows_view(self, rows: np.ndarray) -> SimpleNamespace:
        return SimpleNamespace(**{name: value[rows] for name, value in vars(self.view).items()})

    # Rendering and closing ----------------------------------------------------------------

    def render_sub_env(self, index: int) -> np.ndarray:
        """One ``(H, W, 3)`` frame of sub-environment ``index``, as its single env draws it.

        Raises:
            RuntimeError: when no OpenGL backend can make a context.
        """
        self.simulations.copy_data(index, self.single_env.data)
        return self.single_env.render()

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the stepping threads and close the single environment's renderer."""
        self.simulations.close()
        self.single_env.close()


def _kinds(settings: Any) -> tuple[Any, ...]:
    """Return the types of a settings tuple's values (a tuple's item by item)."""
    return tuple(_kinds(value) if isinstance(value, tuple) else type(value) for value in settings)


def _every_row(values: Any, dtype: Any, count: int) -> np.ndarray:
    """Return ``values`` (a batch, or one value for all rows) as ``count`` rows of ``dtype``."""
    rows = np.empty(count, dtype=dtype)
    rows[:] = values
    return rows


def _identical(ours: np.ndarray, theirs: Any) -> bool:
    """Whether two arrays hold the same dtype, shape and bits (NaN equal to NaN)."""
    theirs = np.asarray(theirs)
    return (
        ours.dtype == theirs.dtype
        and ours.shape == theirs.shape
        and bool(np.array_equal(ours, theirs, equal_nan=ours.dtype.kind in "fc"))
        and bool(np.array_equal(np.signbit(ours), np.signbit(theirs)))
        if ours.dtype.kind in "fc"
        else ours.dtype == theirs.dtype and bool(np.array_equal(ours, theirs))
    )


def vector_entry_point(env_class: str) -> Callable[..., MujocoVectorEnv]:
    """Build the ``vector_entry_point`` of a MuJoCo id: a factory of batched envs.

    Example:
        >>> make = vector_entry_point("palaestra.envs.mujoco.swimmer_v5:SwimmerEnv")
        >>> make(num_envs=3).num_envs
        3
    """

    def make(num_envs: int = 1, **kwargs: Any) -> MujocoVectorEnv:
        return MujocoVectorEnv(env_class, num_envs=num_envs, **kwargs)

    return make


# Each registered id's vector entry point, by name: "palaestra.envs.mujoco.vector:Ant_v5".
SINGLE_ENVS = {
    f"{name}_{version}": f"palaestra.envs.mujoco.{module}_{version}:{name}Env"
    for name, module in (
        ("Ant", "ant"),
        ("HalfCheetah", "half_cheetah"),
        ("Hopper", "hopper"),
        ("Walker2d", "walker2d"),
        ("Humanoid", "humanoid"),
        ("HumanoidStandup", "humanoidstandup"),
        ("Swimmer", "swimmer"),
        ("Reacher", "reacher"),
        ("Pusher", "pusher"),
        ("InvertedPendulum", "inverted_pendulum"),
        ("InvertedDoublePendulum", "inverted_double_pendulum"),
    )
    for version in ("v4", "v5")
}


def __getattr__(name: str) -> Callable[..., MujocoVectorEnv]:
    if name in SINGLE_ENVS:
        return vector_entry_point(SINGLE_ENVS[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
