"""The natively batched MuJoCo environments: every sub-env stepped in C threads at once.

:class:`MujocoVectorEnv` advances all sub-environments' simulations together, in parallel
C code with the GIL released (see :mod:`palaestra.envs.mujoco._simulations`: by default
MuJoCo's own :class:`mujoco.batch.Batch`, one C call per step on its thread pool, or one
``MjData`` per sub-env stepped on a pool of Python threads), bit for bit as a loop of
``mj_step`` over one ``MjData`` each would. Observations, rewards and
terminations are then computed for the whole batch in numpy by the single environment's own
step hooks (:mod:`palaestra.envs.mujoco._task`) or, for the tasks that have one and with
numba installed, by a compiled kernel giving the same bits (:mod:`palaestra.envs.mujoco._kernels`,
run by the stepping threads on their rows), so that the results equal
``make_vec(id, n, vectorization_mode="sync")``'s exactly for the same seeds, in every
autoreset mode.

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

import importlib
import os
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from palaestra import error
from palaestra.envs.mujoco._simulations import STEPPERS
from palaestra.envs.mujoco._task import MujocoTaskEnv
from palaestra.utils import seeding
from palaestra.vector._arguments import autoreset_mode_from, seeds_per_env, split_reset_mask
from palaestra.vector.episodes import disabled_step_error
from palaestra.vector.native.accelerator import resolve_accelerator
from palaestra.vector.native.base import NativeVectorEnv
from palaestra.vector.native.bookkeeping import NO_LIMIT, close_step
from palaestra.vector.utils import batch_space
from palaestra.vector.vector_env import AutoresetMode, VectorEnv, add_info, add_rows_info

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


class MujocoVectorEnv(VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """``num_envs`` copies of a MuJoCo environment, stepped as one batch.

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
            compiled call for the tasks that have one (Ant-v5), the same numbers bit for bit
            as the numpy hooks; ``"numpy"`` always runs the hooks; ``"auto"`` or ``None``
            (``$PALAESTRA_ACCELERATOR``, else ``"auto"``) take numba when it is installed.
            The physics runs in MuJoCo's C threads whichever is chosen.
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
        if accelerator not in (None, "auto", "numpy", "numba"):
            raise ValueError(
                f"Unknown accelerator {accelerator!r}; choose 'auto', 'numpy' or 'numba' (MuJoCo "
                "steps in C threads whichever is chosen)."
            )
        if isinstance(env_class, str):
            module, name = env_class.split(":")
            env_class = getattr(importlib.import_module(module), name)
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}.")
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
        self.num_envs = int(num_envs)
        self.num_threads = threads
        self.max_episode_steps = max_episode_steps
        self.autoreset_mode = autoreset_mode_from(autoreset_mode)
        self.render_mode = render_mode
        self.single_env = env_class(render_mode=render_mode, **env_kwargs)
        self.model = self.single_env.model
        self.frame_skip = self.single_env.frame_skip
        self.metadata = {
            **self.single_env.metadata,
            "render_modes": ["rgb_array"],
            "autoreset_mode": self.autoreset_mode,
        }
        self.single_observation_space = self.single_env.observation_space
        self.single_action_space = self.single_env.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

        if stepper is None:
            stepper = "threads" if self.single_env.reads_contact_forces else "batch"
        if stepper not in STEPPERS:
            raise ValueError(
                f"Unknown stepper {stepper!r}; choose one of {sorted(STEPPERS)}: 'batch' steps "
                "every simulation in one mujoco.batch call, 'threads' steps each sub-env's "
                "MjData on a pool of Python threads (MuJoCo releases the GIL in mj_step)."
            )
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
        self.accelerator = resolve_accelerator(accelerator)
        # The task's compiled step outcome (None: the numpy hooks; it may decline a call).
        self._compiled_outcome = (
            self.single_env._compiled_outcome_parts if self.accelerator == "numba" else None
        )

        self._generators: list[np.random.Generator | None] = [None] * self.num_envs
        self._seeds: list[int | None] = [None] * self.num_envs
        self.elapsed_steps = np.zeros(self.num_envs, dtype=np.int64)
        self._limit = NO_LIMIT if max_episode_steps is None else int(max_episode_steps)
        self._ended = np.zeros(self.num_envs, dtype=np.bool_)
        self._observations: np.ndarray | None = None
        self._sub_env_attributes: dict[str, list[Any]] = {}
        # No per-sub-env parameters (yet): the models are compiled once for every row.
        self.row_values: dict[str, tuple[Any, ...]] = {}

    # Sub-env attributes, as the other natively batched envs offer them: values set per
    # sub-env with set_attr, np_random per stream, anything else the single env's.
    get_attr = NativeVectorEnv.get_attr
    call = NativeVectorEnv.call
    set_attr = NativeVectorEnv.set_attr
    _attribute_values = NativeVectorEnv._attribute_values
    _refuse_if_closed = NativeVectorEnv._refuse_if_closed
    parameter_names = NativeVectorEnv.__dict__["parameter_names"]

    # Randomness ---------------------------------------------------------------------------

    @property
    def np_random(self) -> tuple[np.random.Generator | None, ...]:  # type: ignore[override]
        """Every sub-environment's generator (``None`` before its first reset)."""
        return tuple(self._generators)

    @property
    def np_random_seed(self) -> tuple[int | None, ...]:  # type: ignore[override]
        """The seed of every sub-environment's generator."""
        return tuple(self._seeds)

    def _generator(self, index: int) -> np.random.Generator:
        if self._generators[index] is None:
            self._generators[index], self._seeds[index] = seeding.np_random()
        return self._generators[index]  # type: ignore[return-value]

    # Resets -------------------------------------------------------------------------------

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset every sub-environment, or those in ``options["reset_mask"]``.

        Args:
            seed: ``None``, an int ``s`` (sub-env ``i`` gets ``s + i``) or one seed per sub-env.
            options: ``"reset_mask"``, a boolean array naming the sub-envs to reset.

        Returns:
            The batched observations and the reset infos.

        Raises:
            ValueError: for a seed list of the wrong length or a bad ``reset_mask``.
            TypeError: for a ``reset_mask`` that is not a boolean numpy array.
            palaestra.error.ClosedEnvironmentError: after :meth:`close`.
        """
        self._refuse_if_closed()
        seeds = seeds_per_env(seed, self.num_envs)
        mask, _ = split_reset_mask(options, self.num_envs)
        rows = np.arange(self.num_envs) if mask is None else np.flatnonzero(mask)
        for row in rows:
            if seeds[row] is not None:
                self._generators[row], self._seeds[row] = seeding.np_random(seeds[row])
        if self._observations is None:
            self._observations = np.zeros(
                (self.num_envs, *self.single_observation_space.shape), dtype=np.float64
            )
        observations, infos = self._reset_rows(rows, self._observations.copy(), {})
        self._observations = observations
        return observations.copy(), infos

    def _reset_rows(
        self, rows: np.ndarray, observations: np.ndarray, infos: dict[str, Any]
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset ``rows`` as each sub-env's ``reset()`` would.

        Their observations are written into ``observations``, their reset infos merged into
        ``infos``.
        """
        if not len(rows):
            return observations, infos
        env, view = self.single_env, self.view
        states = [env._reset_state(self._generator(row)) for row in rows]
        self.simulations.reset(
            rows, np.array([qpos for qpos, _ in states]), np.array([qvel for _, qvel in states])
        )
        rows_view = SimpleNamespace(**{name: value[rows] for name, value in vars(view).items()})
        observations[rows] = env._observe(rows_view)
        add_rows_info(infos, env._reset_info(rows_view), rows, self.num_envs)
        self.elapsed_steps[rows] = 0
        self._ended[rows] = False
        return observations, infos

    # Steps --------------------------------------------------------------------------------

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-environment, autoresetting as :attr:`autoreset_mode` says.

        Args:
            actions: an element of :attr:`action_space` (one action per row).

        Returns:
            Batched ``(observations, rewards, terminations, truncations, infos)``; rewards are
            float64, as a sync vector env of the single environment returns them.

        Raises:
            palaestra.error.ResetNeeded: before the first ``reset``.
            ValueError: for actions of the wrong shape.
            RuntimeError: with ``autoreset_mode=DISABLED``, stepping an ended sub-env.
            palaestra.error.ClosedEnvironmentError: after :meth:`close`.
        """
        self._refuse_if_closed()
        if self._observations is None:
            raise error.ResetNeeded(
                "Cannot call `MujocoVectorEnv.step` before `reset`; call reset() first."
            )
        actions = np.asarray(actions)
        if actions.shape != self.action_space.shape:
            raise ValueError(
                f"Actions of shape {actions.shape} do not fit the action space "
                f"{self.action_space}; pass one action of shape "
                f"{self.single_action_space.shape} per sub-environment."
            )
        ended_rows = self._ended.nonzero()[0]  # of the 1-D mask: no ravel
        if len(ended_rows) and self.autoreset_mode is AutoresetMode.DISABLED:
            raise disabled_step_error(ended_rows)
        restarting = ended_rows if self.autoreset_mode is AutoresetMode.NEXT_STEP else None
        if restarting is not None and not len(restarting):
            restarting = None
        stepping = None if restarting is None else (~self._ended).nonzero()[0]

        env, view = self.single_env, self.view
        before = env._progress(view)
        restart = None
        if restarting is not None:
            # The rows that ended reset while the others step (on the same threads); the
            # whole batch's observation and reset info are then read at once below.
            states = [env._reset_state(self._generator(row)) for row in restarting]
            qpos = np.array([qpos for qpos, _ in states])
            restart = (restarting, qpos, np.array([qvel for _, qvel in states]))
        parts = None
        if self._compiled_outcome is not None:
            # The rows' outcomes computed by the threads that step them, each once done.
            parts = self._compiled_outcome(view, before, actions)
        finish = None if parts is None else parts[0]
        self.simulations.step(stepping, actions, self.frame_skip, restart, finish)
        owned = parts is not None  # the compiled outcome's infos are arrays of their own
        if owned:
            result = parts[1]()
        else:
            result = env._observe_outcome(view, before, actions)
        observations, reward, terminated, step_info = result
        rewards = np.array(reward, dtype=np.float64)
        terminations = np.zeros(self.num_envs, dtype=np.bool_)
        terminations[:] = terminated  # a batch of flags, or False for tasks that never end
        infos = _batched(step_info, self.num_envs, owned)
        truncations, ended, ended_rows = close_step(
            rewards, terminations, self.elapsed_steps, restarting, self._limit
        )
        if restarting is not None:
            _restart_rows_info(infos, env._reset_info(view), restarting, self.num_envs)
        self._ended = ended
        if self.autoreset_mode is AutoresetMode.SAME_STEP and len(ended_rows):
            infos = self._finish_same_step(observations, infos, ended_rows)
        self._observations = observations
        return observations.copy(), rewards, terminations, truncations, infos

    def _finish_same_step(
        self, observations: np.ndarray, infos: dict[str, Any], ended_rows: np.ndarray
    ) -> dict[str, Any]:
        """Reset the rows that ended, as a sync env does in ``SAME_STEP`` mode.

        Their infos hold ``final_obs`` and ``final_info`` (the ending step's) beside the
        reset info.
        """
        finals = [(observations[row].copy(), _row_of_batch(infos, row)) for row in ended_rows]
        _clear_rows(infos, ended_rows)
        for row, (final_obs, final_info) in zip(ended_rows, finals):
            add_info(
                infos, {"final_obs": final_obs, "final_info": final_info}, int(row), self.num_envs
            )
        observations, infos = self._reset_rows(ended_rows, observations, infos)
        self._ended[:] = False
        return infos

    # Rendering and closing ----------------------------------------------------------------

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One ``(H, W, 3)`` frame per sub-environment (``None`` without a render mode).

        Raises:
            RuntimeError: when no OpenGL backend can make a context.
        """
        if self.render_mode is None or self._observations is None:
            return None
        frames = []
        for row in range(self.num_envs):
            self.simulations.copy_data(row, self.single_env.data)
            frames.append(self.single_env.render())
        return tuple(frames)

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the stepping threads and close the single environment's renderer."""
        self.simulations.close()
        self.single_env.close()


def _batched(info: dict[str, Any], num_envs: int, owned: bool = False) -> dict[str, Any]:
    """Batch a step's infos (every row's) as a sync vector env batches them.

    A value that is a fresh array of its own (the result of the step's arithmetic, met once)
    is kept; anything else (views of the simulation's fields, scalars) is copied. With
    ``owned``, every value is an array of its own (a compiled outcome's), kept as it is.
    The masks are the rows of one array, allocated at once.
    """
    infos: dict[str, Any] = {}
    masks = np.ones((len(info), num_envs), dtype=np.bool_)
    if owned:
        for mask, (key, value) in zip(masks, info.items()):
            infos[key] = value
            infos[f"_{key}"] = mask
        return infos
    kept: set[int] = set()
    for mask, (key, value) in zip(masks, info.items()):
        if (
            type(value) is np.ndarray
            and value.base is None
            and value.shape[:1] == (num_envs,)
            and id(value) not in kept
        ):
            kept.add(id(value))
        else:
            value = np.array(value)
        infos[key] = value
        infos[f"_{key}"] = mask
    return infos


def _clear_rows(infos: dict[str, Any], rows: np.ndarray, keep: Any = ()) -> None:
    """Drop ``rows`` from every key of a batched info (value zeroed, mask cleared).

    A key that no row supplies any more is dropped; keys in ``keep`` are left alone.
    """
    for key in [key for key in infos if not key.startswith("_") and key not in keep]:
        mask = infos[f"_{key}"]
        mask[rows] = False
        if not mask.any():
            del infos[key], infos[f"_{key}"]
        else:
            infos[key][rows] = 0


def _restart_rows_info(
    infos: dict[str, Any], reset_info: dict[str, Any], rows: np.ndarray, num_envs: int
) -> None:
    """Give ``rows`` their reset info instead of their step info, in place.

    The same result as :func:`_clear_rows` then :func:`add_rows_info` of the rows' reset
    infos, where ``reset_info`` holds every row's (its values batched over all rows).
    """
    # Unless every row restarts, add_rows_info below overwrites the rows' values of the keys
    # that reset_info has, and their masks stay.
    _clear_rows(infos, rows, keep=() if len(rows) == num_envs else reset_info)
    add_rows_info(
        infos, {key: np.asarray(value)[rows] for key, value in reset_info.items()}, rows, num_envs
    )


def _row_of_batch(infos: dict[str, Any], row: int) -> dict[str, Any]:
    """Return the info one sub-env's own step returned, out of a batched info."""
    single = {}
    for key, value in infos.items():
        if not key.startswith("_") and infos[f"_{key}"][row]:
            item = value[row]
            single[key] = item.copy() if isinstance(item, np.ndarray) else item
    return single


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
