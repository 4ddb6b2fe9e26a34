"""The natively batched Atari env: every sub-env emulated and preprocessed on C++ threads.

:class:`AtariVectorEnv` is what ``make_vec("ALE/Pong-v5", n)`` builds for every ``ALE/*-v5``
id (as ale-py registers its own): ale-py's vector core (``ale_py.ALEVectorInterface``) runs
each sub-env's emulator, frame skip with max-pooling, 84x84 area resize, grayscale, frame
stack, no-op starts, FIRE on reset, episodic life and reward clipping in C++ on a thread
pool, the GIL released. Observations come as one ``(n, stack_num, 84, 84)`` uint8 array
(channels first, as CNN policies take them). Around it this class adds palaestra's vector
contract: the three autoreset modes, ``reset_mask``, seeds drawn per sub-env as
:func:`~palaestra.envs.atari.preprocessing.sub_env_seed` says, checked actions, batched infos
with masks, and ``send``/``recv`` to overlap the emulation with the caller's work.

The C++ core restarts ended sub-envs itself (``NEXT_STEP``, in its threads), so this class
keeps no autoreset code beyond ``SAME_STEP``'s immediate restart and ``DISABLED``'s refusal;
:class:`~palaestra.envs.atari.preprocessing.AtariVectorPreprocessing` is the same
preprocessing on one env in Python, and a sync vector of it gives the same results bit for
bit (``docs/envs/atari.md`` lists where both differ from Gymnasium's wrappers).

Example:
    >>> import numpy as np
    >>> import palaestra as gym
    >>> envs = gym.make_vec("ALE/Breakout-v5", num_envs=2)
    >>> type(envs).__name__, envs.single_action_space
    ('AtariVectorEnv', Discrete(4))
    >>> obs, info = envs.reset(seed=0)
    >>> obs.shape, obs.dtype, info["lives"]
    ((2, 4, 84, 84), dtype('uint8'), array([5, 5]))
    >>> obs, rewards, terminations, truncations, info = envs.step(np.array([1, 1]))
    >>> rewards.dtype, terminations
    (dtype('float64'), array([False, False]))
    >>> envs.close()
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from palaestra import error
from palaestra.envs.atari._ale import import_ale, rom_path
from palaestra.envs.atari.atari_env import JOYSTICK_KEYS, _joystick_name
from palaestra.envs.atari.preprocessing import (
    check_preprocessing,
    episode_steps,
    frame_budget,
    sub_env_seed,
)
from palaestra.spaces import Box, Discrete
from palaestra.utils import seeding
from palaestra.vector._arguments import (
    autoreset_mode_from,
    seeds_per_env,
    split_reset_mask,
    values_per_env,
)
from palaestra.vector.episodes import disabled_step_error
from palaestra.vector.utils import batch_space
from palaestra.vector.vector_env import AutoresetMode, VectorEnv, add_rows_info

__all__ = ["AtariVectorEnv"]

OBS_TYPES = ("grayscale", "rgb")
ACCELERATORS = (None, "auto", "numpy", "numba")
INFO_KEYS = ("lives", "frame_number", "episode_frame_number")
# The ufuncs' own reductions: ndarray.max() adds two Python-level calls per step.
_largest = np.maximum.reduce
_all = np.logical_and.reduce
# The C++ core takes its episode budget as an int.
_NO_FRAME_LIMIT = 2**31 - 1


def _default_threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _joystick_table() -> np.ndarray:
    """Return the ALE action (a full action set index) of each stick position and fire."""
    names = list(import_ale().Action.__members__)
    table = np.zeros((3, 3, 2), dtype=np.int32)
    for horizontal in (-1, 0, 1):
        for vertical in (-1, 0, 1):
            for fire in (0, 1):
                name = _joystick_name(horizontal, vertical, bool(fire))
                table[horizontal + 1, vertical + 1, fire] = names.index(name)
    return table


class AtariVectorEnv(VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """``num_envs`` preprocessed copies of an Atari game, stepped on C++ threads.

    The arguments are ale-py's ``AtariVectorEnv``'s (and the ``ALE/*-v5`` ids' keyword
    arguments), with their meanings; see :class:`~palaestra.envs.atari.preprocessing.
    AtariVectorPreprocessing` for the preprocessing, step by step.

    Args:
        game: the ROM's snake_case name (``"pong"``, ``"ms_pacman"``).
        num_envs: the number of sub-environments.
        num_threads: C++ threads stepping them (``None``: one per core this process may
            use, at most ``num_envs``).
        thread_affinity_offset: pin thread ``i`` to core ``offset + i`` (-1: no pinning).
        max_num_frames_per_episode: truncate episodes after this many frames (counted in
            whole steps, ``ceil(frames / frameskip)``); ``None``: never.
        max_episode_steps: also truncate after this many steps (``None``: no step limit).
        repeat_action_probability: the chance that a frame repeats the previous action.
        full_action_space: all 18 joystick actions instead of the game's minimal set.
        continuous: take ``[radius, theta, fire]`` actions, as the single env does.
        continuous_action_threshold: how far the stick (and fire) must go to count.
        autoreset_mode: an :class:`~palaestra.vector.AutoresetMode` or its value string.
        img_height: the observations' height.
        img_width: the observations' width.
        grayscale: grayscale frames ``(n, stack, h, w)``, else RGB ``(n, stack, h, w, 3)``.
        stack_num: frames stacked per observation.
        frameskip: frames per step (a positive int).
        maxpool: max-pool the last two frames of each step.
        noop_max: no-op starts: ``draw - fire`` no-ops, ``draw`` uniform in ``[0, noop_max)``.
        episodic_life: end the episode (restarting the game) when a life is lost.
        life_loss_info: report ``terminated`` on a life lost, without ending the episode
            (ale-py's option; a sync vector of single envs would restart there instead).
        reward_clipping: clip rewards to -1, 0 or 1.
        use_fire_reset: press FIRE after the no-ops, in games that have it.
        obs_type: ``None``, or ``"grayscale"``/``"rgb"`` for ``grayscale=True``/``False``.
        mode: must be ``None`` (the C++ core plays the default mode).
        difficulty: must be ``None`` (the C++ core plays the default difficulty).
        render_mode: must be ``None``: render a single env made with ``make`` instead.
        accelerator: taken as every natively batched env takes it (``"auto"``, ``"numpy"``,
            ``"numba"`` or ``None``) and without effect: the C++ core does all the work.

    Raises:
        palaestra.error.Error: for an unknown ``game`` (naming the choices), a ``frameskip``
            that is not a positive int, an ``obs_type`` other than grayscale and rgb, a
            ``mode``/``difficulty``, or a ``render_mode``.
        FileNotFoundError: if the game's ROM file is missing.
        ValueError: for ``num_envs`` or ``num_threads`` below 1, bad image sizes, stack or
            ``noop_max``, or an unknown ``autoreset_mode`` or ``accelerator``.
        palaestra.error.DependencyNotInstalled: if ale-py is not installed.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        game: str,
        num_envs: int = 1,
        *,
        num_threads: int | None = None,
        thread_affinity_offset: int = -1,
        max_num_frames_per_episode: int | None = 108_000,
        max_episode_steps: int | None = None,
        repeat_action_probability: float = 0.0,
        full_action_space: bool = False,
        continuous: bool = False,
        continuous_action_threshold: float = 0.5,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        img_height: int = 84,
        img_width: int = 84,
        grayscale: bool = True,
        stack_num: int = 4,
        frameskip: int = 4,
        maxpool: bool = True,
        noop_max: int = 30,
        episodic_life: bool = False,
        life_loss_info: bool = False,
        reward_clipping: bool = True,
        use_fire_reset: bool = True,
        obs_type: Literal["grayscale", "rgb"] | None = None,
        mode: int | None = None,
        difficulty: int | None = None,
        render_mode: str | None = None,
        accelerator: str | None = None,
    ):
        self.ale: Any = None
        if accelerator not in ACCELERATORS:
            raise ValueError(
                f"Unknown accelerator {accelerator!r}; choose one of {ACCELERATORS} (the C++ "
                "core emulates and preprocesses whichever is chosen)."
            )
        path = rom_path(game)
        grayscale = _grayscale_from(obs_type, grayscale)
        _refuse_single_env_options(mode, difficulty, render_mode)
        check_preprocessing(frameskip, stack_num, img_height, img_width, noop_max)
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}.")
        threads = _default_threads() if num_threads is None else int(num_threads)
        if threads < 1:
            raise ValueError(
                f"num_threads must be at least 1 (or None for one per core), got {num_threads}."
            )
        self.autoreset_mode = autoreset_mode_from(autoreset_mode)
        self.num_envs = int(num_envs)
        self.num_threads = min(threads, self.num_envs)
        self.game, self.frameskip, self.render_mode = game, frameskip, render_mode
        self.continuous = continuous
        self.continuous_action_threshold = continuous_action_threshold
        frames = frame_budget(max_num_frames_per_episode, max_episode_steps, frameskip)
        self.max_episode_steps = episode_steps(frames, frameskip)
        ale_py = import_ale()
        self.ale = ale_py.ALEVectorInterface(
            rom_path=path,
            num_envs=self.num_envs,
            frame_skip=frameskip,
            stack_num=stack_num,
            img_height=img_height,
            img_width=img_width,
            grayscale=grayscale,
            maxpool=maxpool,
            noop_max=noop_max,
            use_fire_reset=use_fire_reset,
            episodic_life=episodic_life,
            life_loss_info=life_loss_info,
            reward_clipping=reward_clipping,
            max_episode_steps=_NO_FRAME_LIMIT if frames is None else frames,
            repeat_action_probability=repeat_action_probability,
            full_action_space=full_action_space or continuous,
            batch_size=self.num_envs,
            num_threads=self.num_threads,
            thread_affinity_offset=thread_affinity_offset,
            # The C++ core restarts ended sub-envs on their next step, which is NEXT_STEP;
            # SAME_STEP restarts them at once and DISABLED refuses to step them (below).
            autoreset_mode="NextStep",
        )
        self._action_set = list(self.ale.get_action_set())
        self.metadata = {"render_modes": [], "autoreset_mode": self.autoreset_mode}
        shape = (stack_num, img_height, img_width) + (() if grayscale else (3,))
        self.single_observation_space = Box(0, 255, shape, np.uint8)
        if continuous:
            self.single_action_space: Box | Discrete = Box(
                low=np.array([0.0, -np.pi, 0.0], dtype=np.float32),
                high=np.array([1.0, np.pi, 1.0], dtype=np.float32),
                shape=(3,),
                dtype=np.float32,
            )
            self._joystick = _joystick_table()
        else:
            self.single_action_space = Discrete(len(self._action_set))
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._full_strength = np.ones(self.num_envs, dtype=np.float32)
        self._every_row = np.ones(self.num_envs, dtype=np.bool_)
        self._ended = np.zeros(self.num_envs, dtype=np.bool_)
        self._observations: np.ndarray | None = None
        self._sending = False
        self._sub_env_attributes: dict[str, list[Any]] = {}

    # Reset -----------------------------------------------------------------------------

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset every sub-environment, or those in ``options["reset_mask"]``.

        Args:
            seed: ``None``, an int ``s`` (sub-env ``i`` gets ``s + i``) or one seed per
                sub-env; each emulator and no-op generator is seeded with
                :func:`~palaestra.envs.atari.preprocessing.sub_env_seed` of its seed.
            options: ``{"reset_mask": mask}`` resets the masked sub-envs only (after a first
                full reset); the single env takes no other options.

        Returns:
            The batched observations and infos (``lives``, ``frame_number``,
            ``episode_frame_number``, each with its ``_key`` mask of the rows reset).

        Raises:
            ValueError: for a seed list of the wrong length or a bad ``reset_mask`` shape,
                or a masked reset before the first full one.
            TypeError: for a ``reset_mask`` that is not a boolean numpy array.
            palaestra.error.Error: for a negative or non-integer seed.
            palaestra.error.ClosedEnvironmentError: after :meth:`close`.
        """
        self._refuse_if_closed()
        seeds = seeds_per_env(seed, self.num_envs)
        mask, _ = split_reset_mask(options, self.num_envs)
        if mask is not None and self._observations is None and not mask.all():
            raise ValueError(
                "The first reset of AtariVectorEnv must reset every sub-environment; call "
                "reset() without a reset_mask first."
            )
        rows = np.arange(self.num_envs) if mask is None else np.flatnonzero(mask)
        emulator_seeds = np.array([self._emulator_seed(seeds[row]) for row in rows])
        if self._sending:
            self.recv()
        observations, info = self.ale.reset(rows, emulator_seeds)
        if self._observations is not None:
            kept = self._observations.copy()
            kept[rows] = observations[rows]
            observations = kept
        self._observations = observations
        self._ended[rows] = False
        infos: dict[str, Any] = {}
        add_rows_info(infos, {key: info[key][rows].astype(np.int64) for key in INFO_KEYS}, rows,
                      self.num_envs)  # fmt: skip
        return observations, infos

    @staticmethod
    def _emulator_seed(seed: int | None) -> int:
        if seed is None:
            return -1  # the C++ core draws fresh entropy
        seeding.np_random(seed)  # refuses what every env refuses, with the same error
        return sub_env_seed(seed)

    # Step --------------------------------------------------------------------------------

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-environment: :meth:`send` the actions, then :meth:`recv`.

        Raises:
            palaestra.error.ResetNeeded: before the first ``reset``.
            palaestra.error.ClosedEnvironmentError: after :meth:`close`.
            ValueError: for actions of the wrong shape.
            palaestra.error.InvalidAction: for actions outside the action space (as the
                single env).
            RuntimeError: with ``autoreset_mode=DISABLED``, stepping an ended sub-env.
        """
        self.send(actions)
        return self.recv()

    def send(self, actions: Any) -> None:
        """Start stepping every sub-env on the C++ threads and return at once.

        The emulators run while the caller works; :meth:`recv` waits for the results.

        Raises:
            palaestra.error.ResetNeeded: before the first ``reset``, or on a second ``send``
                before ``recv``.
            ValueError, palaestra.error.InvalidAction, RuntimeError: as :meth:`step`.

        Example:
            >>> envs = AtariVectorEnv("pong", 2)
            >>> _ = envs.reset(seed=0)
            >>> envs.send(np.zeros(2, dtype=np.int64))
            >>> envs.recv()[0].shape
            (2, 4, 84, 84)
            >>> envs.close()
        """
        self._refuse_if_closed()
        if self._observations is None:
            raise error.ResetNeeded(
                "Cannot call `AtariVectorEnv.step` or `send` before `reset`; call reset() first."
            )
        if self._sending:
            raise error.ResetNeeded(
                "AtariVectorEnv.send was called twice; call recv() to take the first step's "
                "results before sending the next actions."
            )
        indices, strengths = self._ale_actions(actions)
        if self.autoreset_mode is AutoresetMode.DISABLED and self._ended.any():
            raise disabled_step_error(np.flatnonzero(self._ended), self.num_envs)
        self.ale.send(indices, strengths)
        self._sending = True

    def recv(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Wait for the step :meth:`send` started; return its batched results.

        Returns:
            ``(observations, rewards, terminations, truncations, infos)``: rewards float64
            (as a sync vector of single envs returns them), infos batched with masks and,
            under ``SAME_STEP``, ``final_obs``/``final_info`` for the rows that ended.

        Raises:
            palaestra.error.ResetNeeded: without a pending :meth:`send`.
        """
        if not self._sending:
            raise error.ResetNeeded("AtariVectorEnv.recv was called without a send() first.")
        observations, rewards, terminations, truncations, info = self.ale.recv()
        self._sending = False
        rewards = rewards.astype(np.float64)
        infos = {}
        every_row = self._every_row
        for key in INFO_KEYS:
            infos[key] = info[key].astype(np.int64)
            infos[f"_{key}"] = every_row.copy()
        ended = terminations | truncations
        if self.autoreset_mode is AutoresetMode.SAME_STEP and ended.any():
            observations = self._restart_now(observations, infos, ended)
        else:
            self._ended = ended
        self._observations = observations
        return observations, rewards, terminations, truncations, infos

    def _restart_now(
        self, observations: np.ndarray, infos: dict[str, Any], ended: np.ndarray
    ) -> np.ndarray:
        """Restart the ended rows at once (SAME_STEP): their final step moves to the infos."""
        rows = np.flatnonzero(ended)
        final_obs = np.full(self.num_envs, None, dtype=object)
        for row in rows:
            final_obs[row] = observations[row]
        final_info: dict[str, Any] = {}
        add_rows_info(final_info, {key: infos[key][rows] for key in INFO_KEYS}, rows,
                      self.num_envs)  # fmt: skip
        restarted, reset_info = self.ale.reset(rows, np.full(len(rows), -1))
        observations = observations.copy()
        observations[rows] = restarted[rows]
        for key in INFO_KEYS:
            infos[key][rows] = reset_info[key][rows]
        infos.update(
            final_obs=final_obs, _final_obs=ended, final_info=final_info, _final_info=ended.copy()
        )
        return observations

    def _ale_actions(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        """Check ``actions``; return the C++ core's action indices and paddle strengths."""
        actions = np.asarray(actions)
        shape = self.action_space.shape
        if actions.shape != shape:
            raise ValueError(
                f"AtariVectorEnv expects actions of shape {shape} (an element of "
                f"{self.action_space}), got shape {actions.shape}."
            )
        if self.continuous:
            return self._joystick_actions(actions.astype(np.float32))
        if actions.dtype.kind in "iu":
            integers = actions.astype(np.int64, copy=False)
        else:
            # Fractions, NaN and booleans are not in a Discrete space (Gymnasium rejects them).
            with np.errstate(invalid="ignore"):
                integers = actions.astype(np.int64)
            if actions.dtype.kind == "b" or not _all(integers == actions):
                raise self._invalid_actions(actions)
        # Read as unsigned, a negative action exceeds the bound too: one reduction.
        if _largest(integers.view(np.uint64)) >= len(self._action_set):
            raise self._invalid_actions(actions)
        return integers, self._full_strength

    def _invalid_actions(self, actions: np.ndarray) -> error.InvalidAction:
        """Return the single env's error for ``actions`` outside the space, naming the choices."""
        names = ", ".join(f"{i}: {name}" for i, name in enumerate(self.get_action_meanings()))
        return error.InvalidAction(
            f"Invalid actions {actions!r}: each sub-env's action space is "
            f"{self.single_action_space}, so an action is an int in "
            f"[0, {len(self._action_set)}) ({names})."
        )

    def _joystick_actions(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Map ``[radius, theta, fire]`` rows to stick positions, as the single env does."""
        radius, theta, fire = actions[:, 0], actions[:, 1], actions[:, 2]
        x, y = radius * np.cos(theta), radius * np.sin(theta)
        threshold = self.continuous_action_threshold
        horizontal = (x > threshold).astype(np.int32) - (x < -threshold) + 1
        vertical = (y > threshold).astype(np.int32) - (y < -threshold) + 1
        pressed = (fire > threshold).astype(np.int32)
        return self._joystick[horizontal, vertical, pressed], np.ascontiguousarray(radius)

    # Sub-env attributes ------------------------------------------------------------------

    def get_action_meanings(self) -> list[str]:
        """Return each action's ALE name (``"NOOP"``, ``"FIRE"``...), as the single env does.

        Example:
            >>> envs = AtariVectorEnv("breakout")
            >>> envs.get_action_meanings()
            ['NOOP', 'FIRE', 'RIGHT', 'LEFT']
            >>> envs.close()
        """
        return [action.name for action in self._action_set]

    def _shared_attributes(self) -> dict[str, Any]:
        """Return the attributes every sub-env has alike (none can be set per sub-env)."""
        return {
            "action_space": self.single_action_space,
            "observation_space": self.single_observation_space,
            "render_mode": self.render_mode,
            "game": self.game,
            "frameskip": self.frameskip,
            "continuous": self.continuous,
            "get_action_meanings": self.get_action_meanings,
            "get_keys_to_action": self._keys_to_action,
        }

    def _keys_to_action(self) -> dict[tuple[str, ...], int]:
        keys = {}
        for index, name in enumerate(self.get_action_meanings()):
            parts = [key for part, key in JOYSTICK_KEYS.items() if part in name]
            keys[tuple(parts) or ("e",)] = index
        return keys

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Return attribute ``name`` of every sub-env (set with :meth:`set_attr`, or shared).

        Raises:
            AttributeError: for a name no sub-env has.

        Example:
            >>> envs = AtariVectorEnv("pong", 2)
            >>> envs.get_attr("action_space")
            (Discrete(6), Discrete(6))
            >>> envs.close()
        """
        if name in self._sub_env_attributes:
            return tuple(self._sub_env_attributes[name])
        shared = self._shared_attributes()
        if name not in shared:
            raise AttributeError(
                f"The sub-environments of AtariVectorEnv have no attribute {name!r}; they "
                f"share {sorted(shared)} and any attribute set with set_attr."
            )
        return (shared[name],) * self.num_envs

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call ``name`` on every sub-env (``get_action_meanings``...), or read it.

        Raises:
            AttributeError: for a name no sub-env has.
        """
        return tuple(
            value(*args, **kwargs) if callable(value) else value for value in self.get_attr(name)
        )

    def set_attr(self, name: str, values: Any) -> None:
        """Set attribute ``name`` per sub-env (one value each, or one for all).

        Raises:
            ValueError: for a list/tuple whose length is not ``num_envs``.
            AttributeError: for an attribute the sub-envs share (their spaces, the game).
        """
        values = values_per_env(values, self.num_envs)
        if name in self._shared_attributes():
            raise AttributeError(
                f"AtariVectorEnv's sub-environments share {name!r} (the C++ core runs one "
                "configuration); make a new env to change it."
            )
        self._sub_env_attributes[name] = list(values)

    # Closing -----------------------------------------------------------------------------

    def _refuse_if_closed(self) -> None:
        if self.closed:
            raise error.ClosedEnvironmentError(
                "Trying to operate on `AtariVectorEnv`, after a call to `close()`; build a new "
                "vector env instead."
            )

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the C++ threads and free the emulators."""
        if self.ale is not None and self._sending:
            self.ale.recv()
        self._sending = False
        self.ale = None


def _grayscale_from(obs_type: Any, grayscale: bool) -> bool:
    if obs_type is None:
        return grayscale
    if obs_type not in OBS_TYPES:
        raise error.Error(
            f"Invalid observation type {obs_type!r} for the batched Atari env: expecting one "
            f"of {', '.join(OBS_TYPES)} (preprocessed screens); for RAM observations use "
            "make_vec(..., vectorization_mode='sync', obs_type='ram')."
        )
    return obs_type == "grayscale"


def _refuse_single_env_options(mode: Any, difficulty: Any, render_mode: Any) -> None:
    for name, value in (("mode", mode), ("difficulty", difficulty), ("render_mode", render_mode)):
        if value is not None:
            raise error.Error(
                f"The batched Atari env takes no {name} (got {name}={value!r}): the C++ core "
                "plays the default mode and difficulty and draws nothing; use "
                f"make_vec(..., vectorization_mode='sync', {name}={value!r}) for single envs."
            )
