"""The preprocessing :class:`~palaestra.envs.atari.vector.AtariVectorEnv` runs, one env at a time.

ale-py's vector core (``ale_py.ALEVectorInterface``, C++ threads) preprocesses each sub-env
its own way, which differs from Gymnasium's ``AtariPreprocessing`` + ``FrameStackObservation``
in small, exact ways (``docs/envs/atari.md`` lists them: zero-padded frame stacks, a FIRE
press on reset, no-ops drawn from a C++ ``std::mt19937``, reward clipping, an episode budget
counted in frames). :class:`AtariVectorPreprocessing` does the same on one
:class:`~palaestra.envs.atari.AtariEnv` in Python, so that a sync vector of wrapped single
envs reproduces the batch exactly: same seeds and actions, same observations, rewards, flags
and infos (:func:`preprocessed_atari_env` builds one).

Example:
    >>> env = preprocessed_atari_env("breakout")
    >>> obs, info = env.reset(seed=0)
    >>> obs.shape, obs.dtype, info["lives"]
    ((4, 84, 84), dtype('uint8'), 5)
    >>> env.close()
"""

from __future__ import annotations

import collections
import math
import operator
from typing import Any, SupportsFloat

import numpy as np

from palaestra import error
from palaestra.core import Env, Wrapper
from palaestra.envs.atari.atari_env import AtariEnv
from palaestra.spaces import Box
from palaestra.wrappers.transform_observation import _opencv_resizer
from palaestra.wrappers.utils import AreaResizer

__all__ = [
    "AtariVectorPreprocessing",
    "preprocessed_atari_env",
    "sub_env_seed",
    "CppNoopGenerator",
]

SCREEN_HEIGHT, SCREEN_WIDTH = 210, 160
# ALE's emulator seed is a C++ int, and ale-py's vector core ignores negative ones.
_SEED_BITS = 31


def sub_env_seed(seed: int) -> int:
    """Return the emulator seed (in ``[0, 2**31)``) a sub-env seeded with ``seed`` gets.

    ale-py's own vector env hands its seeds to the emulator as they are, so its ``seed=0``
    (ignored by the C++ core's check) gives an unseeded sub-env and seeds ``s`` and ``s + 1``
    give related streams. Drawing the emulator seed from ``numpy.random.SeedSequence(seed)``
    (as the single env draws its own) gives every non-negative seed a distinct, accepted one.

    Example:
        >>> sub_env_seed(0) == sub_env_seed(0), 0 <= sub_env_seed(1) < 2**31
        (True, True)
    """
    word = np.random.SeedSequence(seed).generate_state(1, dtype=np.uint32)[0]
    return int(word) >> (32 - _SEED_BITS)


class CppNoopGenerator:
    """The no-op counts ale-py's vector core draws: ``std::uniform_int_distribution`` on mt19937.

    The C++ core seeds a ``std::mt19937`` with the emulator seed and draws each reset's
    no-op count with ``std::uniform_int_distribution<int>(0, noop_max - 1)``; libstdc++
    computes that by Lemire's multiply-and-shift method over 32-bit draws, which this class
    repeats on numpy's MT19937 (seeded as ``std::mt19937`` is, through the legacy seeding).

    Args:
        noop_max: the upper bound (exclusive) of the draws; 0 draws only zeros.

    Example:
        >>> noops = CppNoopGenerator(30)
        >>> noops.seed(5)
        >>> noops.draw()
        6
    """

    def __init__(self, noop_max: int):
        self.count = max(int(noop_max), 1)
        self._bits = np.random.MT19937()
        self.seed(int(np.random.SeedSequence().generate_state(1)[0]))

    def seed(self, seed: int) -> None:
        """Seed the generator as ``std::mt19937(seed)`` is seeded."""
        legacy = np.random.RandomState(seed & 0xFFFFFFFF).get_state(legacy=False)
        self._bits.state = {"bit_generator": "MT19937", "state": legacy["state"]}

    def draw(self) -> int:
        """Return the next count in ``[0, noop_max)`` (``0`` when ``noop_max`` is 0)."""
        count = self.count
        product = int(self._bits.random_raw()) * count
        low = product & 0xFFFFFFFF
        if low < count:
            # Reject the few low words that would bias the result (Lemire, 2019).
            threshold = ((1 << 32) - count) % count
            while low < threshold:
                product = int(self._bits.random_raw()) * count
                low = product & 0xFFFFFFFF
        return product >> 32


class AtariVectorPreprocessing(Wrapper[np.ndarray, Any, Any, Any]):
    """One Atari env preprocessed exactly as each sub-env of ``AtariVectorEnv`` is.

    Every option has the name and meaning of :class:`~palaestra.envs.atari.vector.AtariVectorEnv`'s
    (ale-py's ``AtariVectorEnv``'s). On ``reset`` (with a seed, the emulator and the no-op
    generator are first reseeded with :func:`sub_env_seed`) the game restarts, presses FIRE
    (with ``use_fire_reset``, in games that have it) and then takes ``draw - fire`` no-ops
    (``draw`` uniform in ``[0, noop_max)``, ``fire`` 1 if FIRE was pressed); the frame stack
    is cleared to zeros and the screen pushed. Each ``step`` repeats the action for up to
    ``frameskip`` frames, stopping early at game over, at the episode's frame budget or (with
    ``episodic_life``) at a life lost, grabs the screens of the last two frames played to
    the end of the step, max-pools them, resizes by area and pushes the result; the reward
    is summed and, with ``reward_clipping``, clipped to -1, 0 or 1. A life lost terminates
    with ``episodic_life`` (the next reset restarts the game) or ``life_loss_info`` (the
    episode goes on); the episode is truncated, unless terminated, once it has played
    ``max_num_frames_per_episode`` frames (no-ops and FIRE not counted).

    Args:
        env: an :class:`~palaestra.envs.atari.AtariEnv` made with ``frameskip=1`` and
            ``max_num_frames_per_episode=None`` (the wrapper plays and counts the frames).
        frameskip: frames per step.
        stack_num: frames stacked in each observation (the first axis).
        img_height: the observation's height.
        img_width: the observation's width.
        grayscale: grayscale screens ``(stack, h, w)``, else RGB ``(stack, h, w, 3)``.
        maxpool: max-pool the last two frames of each step.
        noop_max: the no-op draws' bound (see above); 0 for none.
        use_fire_reset: press FIRE after the no-ops, for games that have it.
        episodic_life: end the episode (and restart the game) when a life is lost.
        life_loss_info: report ``terminated`` on a life lost without ending the episode.
        reward_clipping: clip rewards to -1, 0 or 1.
        max_num_frames_per_episode: the frame budget of an episode (``None``: none).
        max_episode_steps: also end episodes after this many steps (``None``: no step
            limit), as a budget of ``max_episode_steps * frameskip`` frames.

    Raises:
        ValueError: for a base env that skips frames or limits episodes itself, or a
            non-positive ``frameskip``, ``stack_num`` or image size, or a negative ``noop_max``.
        TypeError: if ``env.unwrapped`` is not an ``AtariEnv``.

    Example:
        >>> from palaestra.envs.atari import AtariEnv
        >>> env = AtariVectorPreprocessing(AtariEnv("pong", frameskip=1), stack_num=2)
        >>> obs, info = env.reset(seed=3)
        >>> obs.shape, bool(obs[0].any())
        ((2, 84, 84), False)
        >>> env.step(0)[1:4]
        (0.0, False, False)
    """

    def __init__(
        self,
        env: Env,
        frameskip: int = 4,
        stack_num: int = 4,
        img_height: int = 84,
        img_width: int = 84,
        grayscale: bool = True,
        maxpool: bool = True,
        noop_max: int = 30,
        use_fire_reset: bool = True,
        episodic_life: bool = False,
        life_loss_info: bool = False,
        reward_clipping: bool = True,
        max_num_frames_per_episode: int | None = 108_000,
        max_episode_steps: int | None = None,
    ):
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, AtariEnv):
            raise TypeError(
                f"AtariVectorPreprocessing wraps a palaestra AtariEnv, got {type(base).__name__}."
            )
        if base._frameskip != 1 or base.ale.getInt("max_num_frames_per_episode") != 0:
            raise ValueError(
                "AtariVectorPreprocessing plays and counts the frames itself: make the base env "
                "with frameskip=1 and max_num_frames_per_episode=None (got frameskip="
                f"{base._frameskip!r})."
            )
        check_preprocessing(frameskip, stack_num, img_height, img_width, noop_max)
        self.frameskip, self.stack_num = frameskip, stack_num
        self.maxpool, self.grayscale = maxpool, grayscale
        self.episodic_life, self.life_loss_info = episodic_life, life_loss_info
        self.reward_clipping = reward_clipping
        budget = frame_budget(max_num_frames_per_episode, max_episode_steps, frameskip)
        self.max_num_frames_per_episode = math.inf if budget is None else budget
        actions = base._actions
        self._noop, self._fire = actions.NOOP, actions.FIRE
        self._fires = use_fire_reset and actions.FIRE in list(base._action_set)
        self._noops = CppNoopGenerator(noop_max)

        channels = () if grayscale else (3,)
        frame_shape = (img_height, img_width, *channels)
        screen_shape = (SCREEN_HEIGHT, SCREEN_WIDTH, *channels)
        self._raw = [np.zeros(screen_shape, dtype=np.uint8) for _ in range(2)]
        self._grab = base.ale.getScreenGrayscale if grayscale else base.ale.getScreenRGB
        self._resize = None
        if (img_height, img_width) != (SCREEN_HEIGHT, SCREEN_WIDTH):
            self._resize = _opencv_resizer(frame_shape) or AreaResizer(
                screen_shape[:2], (img_height, img_width)
            )
        self._stack = collections.deque(
            [np.zeros(frame_shape, dtype=np.uint8) for _ in range(stack_num)], maxlen=stack_num
        )
        self.observation_space = Box(0, 255, (stack_num, *frame_shape), np.uint8)
        self._elapsed_frames = 0
        self._lives = 0

    @property
    def ale(self) -> Any:
        """The base env's emulator (``ale_py.ALEInterface``)."""
        return self.env.unwrapped.ale

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Restart the game (reseeding with a ``seed``), take the no-ops and FIRE; observe."""
        self.env.reset(seed=seed, options=options)
        ale = self.ale
        if seed is not None:
            emulator_seed = sub_env_seed(seed)
            ale.setInt("random_seed", emulator_seed)
            self._noops.seed(emulator_seed)
            self.env.unwrapped.load_game()
            ale.reset_game()
        if self._fires:
            ale.act(self._fire)
        for _ in range(self._noops.draw() - int(self._fires)):
            ale.act(self._noop)
            if ale.game_over():
                ale.reset_game()
        self._grab(self._raw[0])
        self._raw[1].fill(0)
        for frame in self._stack:
            frame.fill(0)
        self._push_screen()
        self._elapsed_frames = 0
        self._lives = ale.lives()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play ``action`` for up to ``frameskip`` frames; observe the stacked frames.

        Raises:
            palaestra.error.InvalidAction: for an action outside the action space.
        """
        ale_action, strength = self.env.unwrapped._ale_action(action)
        ale, reward = self.ale, 0
        game_over = lost_life = False
        for frames_left in range(self.frameskip, 0, -1):
            reward += ale.act(ale_action, strength)
            game_over = ale.game_over()
            self._elapsed_frames += 1
            lost_life = 0 < ale.lives() < self._lives
            if (
                game_over
                or self._elapsed_frames >= self.max_num_frames_per_episode
                or (self.episodic_life and lost_life)
            ):
                break
            if frames_left <= 2:
                self._grab(self._raw[frames_left - 1])
        self._push_screen()
        self._lives = ale.lives()
        if self.reward_clipping:
            reward = min(max(reward, -1), 1)
        terminated = game_over or ((self.life_loss_info or self.episodic_life) and lost_life)
        truncated = self._elapsed_frames >= self.max_num_frames_per_episode and not terminated
        return self._observation(), float(reward), terminated, truncated, self._info()

    def _push_screen(self) -> None:
        if self.maxpool:
            np.maximum(self._raw[0], self._raw[1], out=self._raw[0])
        frame = self._raw[0] if self._resize is None else self._resize(self._raw[0])
        self._stack.append(np.array(frame, dtype=np.uint8))

    def _observation(self) -> np.ndarray:
        return np.stack(self._stack)

    def _info(self) -> dict[str, Any]:
        ale = self.ale
        return {
            "lives": self._lives,
            "frame_number": ale.getFrameNumber(),
            "episode_frame_number": ale.getEpisodeFrameNumber(),
        }


def check_preprocessing(
    frameskip: Any, stack_num: Any, img_height: Any, img_width: Any, noop_max: Any
) -> None:
    """Refuse preprocessing options the C++ core cannot run, naming the value.

    Raises:
        palaestra.error.Error: for a ``frameskip`` that is not a positive int.
        ValueError: for a non-positive ``stack_num`` or image size, or a negative ``noop_max``.

    Example:
        >>> check_preprocessing((2, 5), 4, 84, 84, 30)
        Traceback (most recent call last):
            ...
        palaestra.error.Error: Invalid frameskip (2, 5): the batched Atari env repeats each ...
    """
    if type(frameskip) is not int or frameskip <= 0:
        raise error.Error(
            f"Invalid frameskip {frameskip!r}: the batched Atari env repeats each action a "
            "fixed number of frames, a positive int; for a random frame skip use "
            "vectorization_mode='sync'."
        )
    for name, value, least in (
        ("stack_num", stack_num, 1),
        ("img_height", img_height, 1),
        ("img_width", img_width, 1),
        ("noop_max", noop_max, 0),
    ):
        if type(value) is not int or value < least:
            raise ValueError(f"{name} must be an int of at least {least}, got {value!r}.")


def episode_steps(max_num_frames_per_episode: int | None, frameskip: int) -> int | float:
    """Return the steps after which the C++ core truncates an episode (``inf``: never).

    Example:
        >>> episode_steps(108_000, 4), episode_steps(9, 4), episode_steps(None, 4)
        (27000, 3, inf)
    """
    if max_num_frames_per_episode is None:
        return math.inf
    return -(-operator.index(max_num_frames_per_episode) // frameskip)


def frame_budget(
    max_num_frames_per_episode: int | None, max_episode_steps: int | None, frameskip: int
) -> int | None:
    """Return an episode's frame budget: the frame limit, or the step limit's frames if fewer.

    Example:
        >>> frame_budget(108_000, None, 4), frame_budget(108_000, 50, 4)
        (108000, 200)
        >>> frame_budget(None, None, 4) is None
        True
    """
    budgets = [max_num_frames_per_episode]
    if max_episode_steps is not None:
        budgets.append(operator.index(max_episode_steps) * frameskip)
    given = [budget for budget in budgets if budget is not None]
    return min(given) if given else None


def preprocessed_atari_env(
    game: str,
    *,
    repeat_action_probability: float = 0.0,
    full_action_space: bool = False,
    continuous: bool = False,
    continuous_action_threshold: float = 0.5,
    **preprocessing: Any,
) -> AtariVectorPreprocessing:
    """Build the single env whose sync vector equals ``AtariVectorEnv`` with the same options.

    Args:
        game: the ROM's snake_case name.
        repeat_action_probability: the sticky-action probability.
        full_action_space: use all 18 actions.
        continuous: take ``[radius, theta, fire]`` actions.
        continuous_action_threshold: how far the stick must go to count.
        preprocessing: :class:`AtariVectorPreprocessing`'s options.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.vector.SyncVectorEnv(
        ...     [lambda: preprocessed_atari_env("pong", noop_max=0)] * 2
        ... )
        >>> envs.reset(seed=0)[0].shape
        (2, 4, 84, 84)
        >>> envs.close()
    """
    env = AtariEnv(
        game,
        frameskip=1,
        repeat_action_probability=repeat_action_probability,
        full_action_space=full_action_space,
        continuous=continuous,
        continuous_action_threshold=continuous_action_threshold,
        max_num_frames_per_episode=None,
    )
    return AtariVectorPreprocessing(env, **preprocessing)
