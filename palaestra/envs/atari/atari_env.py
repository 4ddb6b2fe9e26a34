"""The Atari 2600 games of the Arcade Learning Environment, on ale-py's C++ emulator.

:class:`AtariEnv` takes ale-py's ``AtariEnv`` arguments and behaves as it does: the same
spaces, the same seeding (so the same seed and actions give the same trajectory), the same
``info`` keys, sticky actions and frame skipping inside the emulator, ``clone_state`` and
``restore_state``.

Example:
    >>> import palaestra as gym
    >>> env = gym.make("ALE/Breakout-v5")
    >>> obs, info = env.reset(seed=0)
    >>> obs.shape, info["lives"]
    ((210, 160, 3), 5)
    >>> env.unwrapped.get_action_meanings()
    ['NOOP', 'FIRE', 'RIGHT', 'LEFT']
    >>> env.close()
"""

from __future__ import annotations

import operator
from typing import Any, Literal

import numpy as np

from palaestra import error
from palaestra.core import Env
from palaestra.envs.atari._ale import check_display, import_ale, rom_path
from palaestra.spaces import Box, Dict, Discrete
from palaestra.utils import seeding
from palaestra.utils.ezpickle import EzPickle

__all__ = ["AtariEnv"]

OBS_TYPES = ("rgb", "grayscale", "ram")
SOUND_SAMPLES = 512

# The keys ``palaestra.utils.play`` uses for the joystick (its NOOP key is "e").
JOYSTICK_KEYS = {"UP": "w", "DOWN": "s", "LEFT": "a", "RIGHT": "d", "FIRE": " "}


def _check_arguments(obs_type: Any, frameskip: Any, render_mode: Any) -> None:
    if obs_type not in OBS_TYPES:
        raise error.Error(f"Invalid observation type: {obs_type}. Expecting: rgb, grayscale, ram.")
    if type(frameskip) not in (int, tuple):
        raise error.Error(
            f"Invalid frameskip type: {type(frameskip)}. Expected an int or a (low, high) tuple."
        )
    if isinstance(frameskip, int) and frameskip <= 0:
        raise error.Error(f"Invalid frameskip of {frameskip}, frameskip must be positive.")
    if isinstance(frameskip, tuple):
        if len(frameskip) != 2:
            raise error.Error(
                f"Invalid stochastic frameskip length of {len(frameskip)}, expected length 2."
            )
        if frameskip[0] >= frameskip[1]:
            raise error.Error(
                "Invalid stochastic frameskip, lower bound must be strictly less than upper "
                f"bound. Got {frameskip}."
            )
        if frameskip[0] <= 0:
            raise error.Error(
                f"Invalid stochastic frameskip, lower bound must be positive. Got {frameskip}."
            )
    if render_mode is not None and render_mode not in AtariEnv.metadata["render_modes"]:
        raise error.Error(f"Render mode {render_mode} not supported (rgb_array, human).")


def _joystick_name(horizontal: int, vertical: int, fire: bool) -> str:
    """Name the ALE action that pushes the stick (-1, 0 or 1 on each axis) and maybe fires."""
    name = ("DOWN", "", "UP")[vertical + 1] + ("LEFT", "", "RIGHT")[horizontal + 1]
    name += "FIRE" if fire else ""
    return name or "NOOP"


class _ClosedEmulator:
    """Stands in for the emulator of a closed env, so using it says what happened."""

    def __getattr__(self, name: str) -> Any:
        raise error.ClosedEnvironmentError(
            "This Atari environment is closed and its emulator released; make a new one."
        )


class AtariEnv(Env[Any, Any], EzPickle):
    """An Atari 2600 game of the Arcade Learning Environment (Machado et al., 2018).

    Each ``step`` repeats the action for ``frameskip`` frames (a fixed number, or drawn from
    ``range(low, high)`` every step) and sums the rewards; with probability
    ``repeat_action_probability`` each frame repeats the previous frame's action instead (sticky
    actions). The episode terminates at game over and is truncated after
    ``max_num_frames_per_episode`` frames. ``info`` holds ``lives``, ``episode_frame_number``
    and ``frame_number``, and after a seeded reset ``seeds`` (the frame-skip generator's and
    the emulator's seed, both drawn from ``seed``).

    Args:
        game: the ROM's snake_case name (``"pong"``, ``"space_invaders"``: see
            :data:`palaestra.envs._atari_ids.ROM_IDS`).
        mode: the game mode (one of the ROM's modes); ``None`` for the default.
        difficulty: the game difficulty; ``None`` for the default.
        obs_type: ``"rgb"`` (210x160x3 screens), ``"grayscale"`` (210x160) or ``"ram"``
            (the 128 bytes of the console's memory).
        frameskip: frames per step, an int or a ``(low, high)`` range drawn from per step.
        repeat_action_probability: the chance that a frame repeats the previous action.
        full_action_space: all 18 joystick actions instead of the game's minimal set.
        continuous: take ``[radius, theta, fire]`` actions (polar stick position and fire).
        continuous_action_threshold: how far the stick (and fire) must go to count.
        max_num_frames_per_episode: truncate episodes after this many frames.
        render_mode: ``"rgb_array"`` (``render`` returns the screen) or ``"human"`` (ALE
            shows a window and plays sound at the game's speed; needs a display).
        sound_obs: observe ``{"image": screen, "sound": 512 audio samples}``.

    Raises:
        palaestra.error.Error: for an unknown ``game``, ``obs_type``, ``render_mode`` or a
            bad ``frameskip``, and for ``"human"`` rendering without a display.
        FileNotFoundError: if the game's ROM file is missing.
        RuntimeError: for a ``mode`` or ``difficulty`` the game does not have.
        DependencyNotInstalled: if ale-py is not installed.

    Example:
        >>> env = AtariEnv("pong", obs_type="ram", frameskip=1)
        >>> obs, info = env.reset(seed=3)
        >>> obs.shape, env.action_space
        ((128,), Discrete(6))
        >>> sorted(info)
        ['episode_frame_number', 'frame_number', 'lives', 'seeds']
        >>> env.step(0)[2:4]
        (False, False)
    """

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 30}

    def __init__(
        self,
        game: str,
        mode: int | None = None,
        difficulty: int | None = None,
        obs_type: Literal["rgb", "grayscale", "ram"] = "rgb",
        frameskip: tuple[int, int] | int = 4,
        repeat_action_probability: float = 0.25,
        full_action_space: bool = False,
        continuous: bool = False,
        continuous_action_threshold: float = 0.5,
        max_num_frames_per_episode: int | None = None,
        render_mode: Literal["human", "rgb_array"] | None = None,
        sound_obs: bool = False,
    ):
        _check_arguments(obs_type, frameskip, render_mode)
        EzPickle.__init__(
            self,
            game=game,
            mode=mode,
            difficulty=difficulty,
            obs_type=obs_type,
            frameskip=frameskip,
            repeat_action_probability=repeat_action_probability,
            full_action_space=full_action_space,
            continuous=continuous,
            continuous_action_threshold=continuous_action_threshold,
            max_num_frames_per_episode=max_num_frames_per_episode,
            render_mode=render_mode,
            sound_obs=sound_obs,
        )
        self._rom = rom_path(game)
        ale_py = import_ale()
        if render_mode == "human":
            check_display(ale_py)
        self._game, self._game_mode, self._game_difficulty = game, mode, difficulty
        self._frameskip = frameskip
        self._obs_type = obs_type
        self.render_mode = render_mode
        self.sound_obs = sound_obs
        self.continuous = continuous
        self.continuous_action_threshold = continuous_action_threshold
        self._actions = ale_py.Action

        self.ale = ale_py.ALEInterface()
        self.ale.setLoggerMode(ale_py.LoggerMode.Error)
        self.ale.setFloat("repeat_action_probability", repeat_action_probability)
        if max_num_frames_per_episode is not None:
            self.ale.setInt("max_num_frames_per_episode", max_num_frames_per_episode)
        self.ale.setBool("display_screen", render_mode == "human")
        self.ale.setBool("sound", render_mode == "human")
        self.ale.setBool("sound_obs", sound_obs)
        self.seed_game()
        self.load_game()

        self._action_set = (
            self.ale.getLegalActionSet()
            if full_action_space or continuous
            else self.ale.getMinimalActionSet()
        )
        self.action_space = self._make_action_space()
        self.observation_space = self._make_observation_space()

    def _make_action_space(self) -> Box | Discrete:
        if self.continuous:
            # The stick's polar position (radius, angle) and how hard fire is pressed.
            return Box(
                low=np.array([0.0, -np.pi, 0.0], dtype=np.float32),
                high=np.array([1.0, np.pi, 1.0], dtype=np.float32),
                shape=(3,),
                dtype=np.float32,
            )
        return Discrete(len(self._action_set))

    def _make_observation_space(self) -> Box | Dict:
        if self._obs_type == "ram":
            shape: tuple[int, ...] = (self.ale.getRAMSize(),)
        else:
            shape = tuple(self.ale.getScreenDims())
            shape += (3,) if self._obs_type == "rgb" else ()
        image = Box(low=0, high=255, shape=shape, dtype=np.uint8)
        if not self.sound_obs:
            return image
        sound = Box(low=0, high=255, shape=(SOUND_SAMPLES,), dtype=np.uint8)
        return Dict(image=image, sound=sound)

    def seed_game(self, seed: int | None = None) -> tuple[np.uint32, np.uint32]:
        """Seed the frame-skip generator and the emulator from ``seed``; return their seeds.

        Both seeds are drawn from ``numpy.random.SeedSequence(seed)``, as ale-py draws them.
        The emulator takes its seed when the ROM is next loaded (:meth:`load_game`).

        Args:
            seed: the seed; ``None`` for fresh entropy.

        Returns:
            The two seeds drawn, as ``numpy.uint32``: the generator's and the emulator's.
        """
        np_seed, ale_seed = np.random.SeedSequence(seed).generate_state(n_words=2)
        self._np_random, _ = seeding.np_random(int(np_seed))
        # ALE takes a signed 32-bit int: the same 32 bits, read as signed.
        self.ale.setInt("random_seed", int(ale_seed.astype(np.int32)))
        return np_seed, ale_seed

    def load_game(self) -> None:
        """Load the ROM (which seeds the emulator) and select the game mode and difficulty.

        Raises:
            RuntimeError: for a mode or difficulty the game does not have.
        """
        self.ale.loadROM(str(self._rom))
        if self._game_mode is not None:
            modes = list(self.ale.getAvailableModes())
            if self._game_mode not in modes:
                raise RuntimeError(
                    f"Invalid game mode requested: mode={self._game_mode!r}; "
                    f"{self._game!r} has modes {modes}."
                )
            self.ale.setMode(self._game_mode)
        if self._game_difficulty is not None:
            difficulties = list(self.ale.getAvailableDifficulties())
            if self._game_difficulty not in difficulties:
                raise RuntimeError(
                    f"Invalid difficulty requested: difficulty={self._game_difficulty!r}; "
                    f"{self._game!r} has difficulties {difficulties}."
                )
            self.ale.setDifficulty(self._game_difficulty)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start a new game; with a ``seed``, reseed and reload the ROM first.

        Args:
            seed: reseeds the frame-skip generator and the emulator (see :meth:`seed_game`).
            options: unused.
        """
        super().reset(seed=seed, options=options)
        seeds = None
        if seed is not None:
            seeds = self.seed_game(seed)
            self.load_game()
        self.ale.reset_game()
        info = self._info()
        if seeds is not None:
            info["seeds"] = seeds
        return self._observe(), info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Play ``action`` for the step's frames; return the summed reward.

        Raises:
            palaestra.error.InvalidAction: for an action outside the action space.
        """
        ale_action, strength = self._ale_action(action)
        frameskip = self._frameskip
        if not isinstance(frameskip, int):
            frameskip = self.np_random.integers(*frameskip)
        reward = 0.0
        act = self.ale.act
        for _ in range(frameskip):
            reward += act(ale_action, strength)
        terminated = self.ale.game_over(with_truncation=False)
        return self._observe(), reward, terminated, self.ale.game_truncated(), self._info()

    def _ale_action(self, action: Any) -> tuple[Any, float]:
        if self.continuous:
            return self._joystick_action(action)
        try:
            index = operator.index(action)
        except TypeError:
            index = -1
        if not 0 <= index < len(self._action_set):
            raise error.InvalidAction(
                f"Invalid action {action!r}: the action space is {self.action_space}, so an "
                f"action is an int in [0, {len(self._action_set)})."
            )
        return self._action_set[index], 1.0

    def _joystick_action(self, action: Any) -> tuple[Any, float]:
        action = np.asarray(action, dtype=np.float32)
        if action.shape != (3,):
            raise error.InvalidAction(
                f"Invalid continuous action of shape {action.shape}: expected "
                "[radius, theta, fire], an array of shape (3,)."
            )
        radius, theta, fire = action
        x, y = radius * np.cos(theta), radius * np.sin(theta)
        threshold = self.continuous_action_threshold
        horizontal = int(x > threshold) - int(x < -threshold)
        vertical = int(y > threshold) - int(y < -threshold)
        name = _joystick_name(horizontal, vertical, bool(fire > threshold))
        return self._actions.__members__[name], radius

    def _observe(self) -> Any:
        if self._obs_type == "rgb":
            image = self.ale.getScreenRGB()
        elif self._obs_type == "grayscale":
            image = self.ale.getScreenGrayscale()
        else:
            image = self.ale.getRAM()
        if self.sound_obs:
            return {"image": image, "sound": self.ale.getAudio()}
        return image

    def _info(self) -> dict[str, Any]:
        return {
            "lives": self.ale.lives(),
            "episode_frame_number": self.ale.getEpisodeFrameNumber(),
            "frame_number": self.ale.getFrameNumber(),
        }

    def render(self) -> np.ndarray | None:
        """Return the screen (``"rgb_array"``); ALE draws ``"human"`` frames itself.

        Raises:
            palaestra.error.Error: when the env was made without a render mode.
        """
        if self.render_mode == "rgb_array":
            return self.ale.getScreenRGB()
        if self.render_mode == "human":
            return None
        raise error.Error(
            f"Invalid render mode `{self.render_mode}`. Supported modes: `human`, `rgb_array`. "
            'Pass render_mode="rgb_array" (or "human") when making the env.'
        )

    def get_action_meanings(self) -> list[str]:
        """Return each action's ALE name (``"NOOP"``, ``"FIRE"``, ``"UPLEFT"``...)."""
        return [action.name for action in self._action_set]

    def get_keys_to_action(self) -> dict[tuple[str, ...], int]:
        """Map key combinations to actions for human play: w/a/s/d, space to fire, e: no-op.

        Raises:
            AttributeError: with ``continuous=True``, whose actions are not indices.
        """
        if self.continuous:
            raise AttributeError(
                "`get_keys_to_action` can't be provided for this Atari environment as "
                "`continuous=True`."
            )
        keys = {}
        for index, name in enumerate(self.get_action_meanings()):
            parts = [key for part, key in JOYSTICK_KEYS.items() if part in name]
            keys[tuple(parts) or ("e",)] = index
        return keys

    def clone_state(self, include_rng: bool = False) -> Any:
        """Return a copy of the emulator's state (``ale_py.ALEState``).

        Args:
            include_rng: also copy the emulator's random generator (sticky actions), so that
                restoring reproduces the same continuation.
        """
        return self.ale.cloneState(include_rng=include_rng)

    def restore_state(self, state: Any) -> None:
        """Put the emulator back into ``state`` (from :meth:`clone_state`)."""
        self.ale.restoreState(state)

    def close(self) -> None:
        """Release the emulator (and its window); the env cannot be used afterwards."""
        self.ale = _ClosedEmulator()
