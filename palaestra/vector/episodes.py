"""Episode semantics of vector environments, in one place.

Everything that decides where an episode of a sub-environment begins and ends lives here:

* :class:`AutoresetMode`, the three ways a vector env restarts an ended episode.
* :func:`autoreset_mode`, the one reader of the mode a vector env (or wrapper) declares.
* :class:`SubEnvStepper`, which steps one sub-environment under a mode: the loop of
  :class:`~palaestra.vector.SyncVectorEnv`, the worker of the async and pool vector envs and the
  :class:`~palaestra.wrappers.Autoreset` wrapper all run it.
* :func:`time_limit_reached`, the truncation rule of :class:`~palaestra.wrappers.TimeLimit`.
* :class:`EpisodeMasks`, which tells a consumer of batched step results (statistics,
  normalizers, video recorders, training loops) which rows start a new episode, which rows'
  transitions count and which rows end an episode: :class:`StepMasks`.

The rules, for a sub-env whose episode ends on step ``t`` (``terminated or truncated``):

=============  ==============================================  ==========================
mode           step ``t + 1`` of that sub-env                  transition ``t + 1`` counts
=============  ==============================================  ==========================
``NEXT_STEP``  ignores the action, resets: first observation,  no (reward 0, flags False)
               reward 0.0, flags False, the reset info
``SAME_STEP``  a real step of the new episode (the reset       yes
               happened inside step ``t``, whose info holds
               ``final_obs`` and ``final_info``)
``DISABLED``   raises ``RuntimeError`` until the sub-env is    (only after that reset)
               reset with ``options={"reset_mask": mask}``
=============  ==============================================  ==========================

Example:
    Step one environment as sub-env 0 of a next-step vector env would:

    >>> import numpy as np
    >>> import palaestra as gym
    >>> stepper = SubEnvStepper(gym.make("CartPole-v1", max_episode_steps=2), "NextStep")
    >>> _ = stepper.reset(seed=0)
    >>> [stepper.step(0)[1:4] for _ in range(3)]
    [(1.0, False, False), (1.0, False, True), (0.0, False, False)]

    Follow episode boundaries of any vector env from its step results:

    >>> envs = gym.make_vec("CartPole-v1", 2, vectorization_mode="sync",
    ...                     wrappers=[lambda env: gym.wrappers.TimeLimit(env, 2)])
    >>> masks = EpisodeMasks.of(envs)
    >>> _ = envs.reset(seed=0)
    >>> masks.reset()
    >>> for _ in range(3):
    ...     _, rewards, terminations, truncations, _ = envs.step(np.array([0, 1]))
    ...     print(masks.step(terminations, truncations))
    StepMasks(starts=[False False], valid=[ True  True], ends=[False False])
    StepMasks(starts=[False False], valid=[ True  True], ends=[ True  True])
    StepMasks(starts=[ True  True], valid=[False False], ends=[False False])
"""

from __future__ import annotations

from enum import Enum
from typing import Any, NamedTuple

import numpy as np

from palaestra import logger

__all__ = [
    "AutoresetMode",
    "autoreset_mode",
    "SubEnvStepper",
    "time_limit_reached",
    "SteppedAfterEpisodeEndError",
    "disabled_step_error",
    "StepMasks",
    "EpisodeMasks",
]


class AutoresetMode(Enum):
    """When a vector env resets a sub-environment whose episode ended.

    * ``NEXT_STEP``: on the next ``step``, which ignores that sub-env's action and returns
      its first observation with reward 0 and both flags False.
    * ``SAME_STEP``: inside the same ``step``; the returned observation is the new episode's
      first, and the ending observation and info are in ``info["final_obs"]`` and
      ``info["final_info"]``.
    * ``DISABLED``: never; reset the ended sub-envs with ``options={"reset_mask": mask}``.

    Example:
        >>> AutoresetMode("SameStep")
        <AutoresetMode.SAME_STEP: 'SameStep'>
    """

    NEXT_STEP = "NextStep"
    SAME_STEP = "SameStep"
    DISABLED = "Disabled"


NEXT_STEP = AutoresetMode.NEXT_STEP
SAME_STEP = AutoresetMode.SAME_STEP
DISABLED = AutoresetMode.DISABLED


def autoreset_mode(
    env: Any, *, strict: bool = True, default: AutoresetMode | None = None
) -> AutoresetMode:
    """Return the autoreset mode a vector env declares in ``metadata["autoreset_mode"]``.

    This is the one place that reads it: the vector envs, ``make_vec``, wrappers, the
    training toolkit and the benchmarks all ask here. A vector wrapper forwards its inner
    env's metadata, so a wrapped env answers for the env below it.

    Args:
        env: a vector env or vector wrapper (anything with a ``metadata`` dict).
        strict: ``True`` (the default) raises for a declared mode that is not an
            :class:`AutoresetMode` member. ``False`` is the check ``make_vec`` runs on the
            env it built: Gymnasium's ``make_vec`` warnings for a missing or invalid mode,
            and ``NEXT_STEP`` assumed in both cases.
        default: the mode of an env that declares none, returned without a warning (for
            callers to whom an undeclared mode is normal); ``None`` warns and assumes
            ``NEXT_STEP``.

    Returns:
        The declared mode; ``NEXT_STEP`` (after a warning) when none is declared.

    Raises:
        TypeError: if ``strict`` and the declared mode is not an :class:`AutoresetMode`
            member.

    Example:
        >>> import palaestra as gym
        >>> autoreset_mode(gym.make_vec("CartPole-v1", 2, vectorization_mode="sync"))
        <AutoresetMode.NEXT_STEP: 'NextStep'>
    """
    metadata = getattr(env, "metadata", None) or {}
    if "autoreset_mode" not in metadata:
        if default is not None:
            return default
        logger.warn(
            f"The VectorEnv ({env}) is missing AutoresetMode metadata, metadata={metadata}"
            if not strict
            else f"Vector environment ({env}) is missing `autoreset_mode` metadata key; "
            "assuming AutoresetMode.NEXT_STEP. Set `metadata['autoreset_mode']` to an "
            "AutoresetMode member (see https://farama.org/Vector-Autoreset-Mode)."
        )
        return NEXT_STEP
    mode = metadata["autoreset_mode"]
    if isinstance(mode, AutoresetMode):
        return mode
    if not strict:
        logger.warn(
            f"The VectorEnv ({env}) metadata['autoreset_mode'] is not an instance of "
            f"AutoresetMode, {type(mode)}."
        )
        return NEXT_STEP
    raise TypeError(
        "Expected env.metadata['autoreset_mode'] to be an AutoresetMode, "
        f"got {type(mode)} ({mode!r}): set it to a `palaestra.vector.AutoresetMode` member."
    )


def time_limit_reached(elapsed_steps: Any, max_episode_steps: Any) -> Any:
    """Whether an episode that has taken ``elapsed_steps`` steps is truncated by its limit.

    The rule of :class:`~palaestra.wrappers.TimeLimit` and of every batched env's step
    counters: the step that brings the count to the limit truncates.

    Args:
        elapsed_steps: steps taken since the reset (an int, or an array of counts).
        max_episode_steps: the limit (an int, or an array of limits).

    Returns:
        A bool, or a boolean array for array arguments.

    Example:
        >>> time_limit_reached(5, 5), time_limit_reached(np.array([4, 5, 6]), 5).tolist()
        (True, [False, True, True])
    """
    return elapsed_steps >= max_episode_steps


class SteppedAfterEpisodeEndError(RuntimeError, AssertionError):
    """Sub-envs were stepped after their episode ended, with ``autoreset_mode=DISABLED``.

    A ``RuntimeError``, and an ``AssertionError`` as Gymnasium's vector envs raise for it.
    """


def disabled_step_error(indices: Any, num_envs: int | None = None) -> SteppedAfterEpisodeEndError:
    """Build the error for stepping ended sub-envs under ``autoreset_mode=DISABLED``.

    Args:
        indices: the indices of the ended sub-envs that were stepped.
        num_envs: the vector env's size; when given, the message also shows the mask of
            ended sub-envs the way Gymnasium's ``SyncVectorEnv`` prints it.

    Example:
        >>> print(disabled_step_error([1, 3]))  # doctest: +ELLIPSIS
        Sub-environments [1, 3] were stepped after their episode ended with ...
        >>> print(disabled_step_error([1], num_envs=2))  # doctest: +ELLIPSIS
        Sub-environments [1] ... (self._autoreset_envs=array([False,  True]))
    """
    rows = [int(i) for i in indices]
    message = (
        f"Sub-environments {rows} were stepped after their episode ended "
        "with autoreset_mode=DISABLED; reset them first with "
        "`reset(options={'reset_mask': mask})`."
    )
    if num_envs is not None:
        mask = np.zeros(num_envs, dtype=np.bool_)
        mask[rows] = True
        message += f" (self._autoreset_envs={mask!r})"
    return SteppedAfterEpisodeEndError(message)


class SubEnvStepper:
    """Step one sub-environment the way a vector env with ``mode`` autoresets it.

    * ``NEXT_STEP``: the step after an episode ended resets the env instead, ignoring the
      action, and returns ``(first observation, 0.0, False, False, reset info)``.
    * ``SAME_STEP``: the step that ends an episode resets the env at once and returns the new
      episode's first observation, with the reset info plus ``info["final_obs"]`` and
      ``info["final_info"]`` (the ending step's observation and info).
    * ``DISABLED``: stepping after an episode ended raises ``RuntimeError``; call
      :meth:`reset`.

    Truncation is the env's own (``make`` applies :class:`~palaestra.wrappers.TimeLimit`): an
    episode that ends by ``truncated`` is autoreset exactly like one that terminates.

    Args:
        env: the sub-environment.
        mode: an :class:`AutoresetMode` or its value string.
        index: the sub-env's index in its vector env, for error messages.

    Attributes:
        needs_reset: whether the last step ended the episode and no reset happened since
            (never set in ``SAME_STEP`` mode, which resets at once).

    Raises:
        ValueError: for an unknown ``mode``.

    Example:
        >>> import palaestra as gym
        >>> stepper = SubEnvStepper(gym.make("CartPole-v1", max_episode_steps=1), "SameStep")
        >>> _ = stepper.reset(seed=0)
        >>> observation, reward, terminated, truncated, info = stepper.step(0)
        >>> reward, truncated, sorted(info)
        (1.0, True, ['final_info', 'final_obs'])
    """

    __slots__ = ("env", "index", "mode", "needs_reset")

    def __init__(self, env: Any, mode: AutoresetMode | str = NEXT_STEP, index: int = 0):
        self.env = env
        self.mode = mode if isinstance(mode, AutoresetMode) else AutoresetMode(mode)
        self.index = index
        self.needs_reset = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the env (cancelling any pending autoreset); return its observation and info."""
        self.needs_reset = False
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the env with ``action``, or autoreset it, as the mode says.

        Returns:
            ``(observation, reward, terminated, truncated, info)``.

        Raises:
            RuntimeError: in ``DISABLED`` mode, if the episode ended and no reset followed.
        """
        if self.needs_reset:
            if self.mode is NEXT_STEP:
                self.needs_reset = False
                observation, info = self.env.reset()
                return observation, 0.0, False, False, info
            if self.mode is DISABLED:
                raise disabled_step_error([self.index])
        observation, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            if self.mode is SAME_STEP:
                final = {"final_obs": observation, "final_info": info}
                observation, reset_info = self.env.reset()
                info = {**final, **reset_info}
            else:
                self.needs_reset = True
        return observation, reward, terminated, truncated, info

    def end_episode(self) -> None:
        """Mark the episode as ended outside :meth:`step` (a worker restart truncated it, say).

        In ``NEXT_STEP`` mode the next :meth:`step` is then the reset step; in ``DISABLED``
        mode stepping raises until :meth:`reset`. In ``SAME_STEP`` mode nothing is pending:
        the caller resets at once (with :meth:`reset`), as the ending step would have.

        Example:
            >>> import palaestra as gym
            >>> stepper = SubEnvStepper(gym.make("CartPole-v1"))
            >>> _ = stepper.reset(seed=0)
            >>> stepper.end_episode()
            >>> stepper.step(1)[1:4]
            (0.0, False, False)
        """
        self.needs_reset = self.mode is not SAME_STEP


class StepMasks(NamedTuple):
    """Which rows of one batched step start, count towards and end episodes.

    Attributes:
        starts: rows whose returned observation is the first of a new episode (the reset
            step in ``NEXT_STEP`` mode, the ending step in ``SAME_STEP`` mode; never in
            ``DISABLED`` mode, where only ``reset`` starts episodes).
        valid: rows whose reward and flags are a real transition of an episode (all but
            ``NEXT_STEP``'s reset steps).
        ends: rows whose episode ended with this transition (``terminated | truncated``).

    Example:
        >>> masks = StepMasks(np.array([True]), np.array([False]), np.array([False]))
        >>> masks.valid.tolist()
        [False]
    """

    starts: np.ndarray
    valid: np.ndarray
    ends: np.ndarray

    def __repr__(self) -> str:
        return f"StepMasks(starts={self.starts}, valid={self.valid}, ends={self.ends})"


class EpisodeMasks:
    """Follow the episode boundaries of a vector env's rows from its step results.

    Call :meth:`reset` after every ``env.reset`` (with the ``reset_mask`` if one was given)
    and :meth:`step` with every step's ``terminations`` and ``truncations``. The masks a step
    returns are shared with the tracker (and, in ``SAME_STEP`` mode, ``starts is ends``):
    read them, do not write into them.

    Args:
        num_envs: the number of rows.
        mode: the vector env's :class:`AutoresetMode` (or its value string).

    Raises:
        ValueError: for an unknown ``mode``.

    Example:
        >>> masks = EpisodeMasks(2, AutoresetMode.SAME_STEP)
        >>> masks.reset()
        >>> masks.step(np.array([True, False]), np.array([False, False])).starts.tolist()
        [True, False]
    """

    __slots__ = ("_every_row", "_no_row", "mode", "num_envs", "previous_ends")

    def __init__(self, num_envs: int, mode: AutoresetMode | str = NEXT_STEP):
        self.num_envs = int(num_envs)
        self.mode = mode if isinstance(mode, AutoresetMode) else AutoresetMode(mode)
        self.previous_ends = np.zeros(self.num_envs, dtype=np.bool_)
        # Handed out by every step: read-only, so that no consumer can change them for another.
        self._every_row = np.ones(self.num_envs, dtype=np.bool_)
        self._no_row = np.zeros(self.num_envs, dtype=np.bool_)
        self._every_row.flags.writeable = self._no_row.flags.writeable = False

    @classmethod
    def of(cls, env: Any) -> EpisodeMasks:
        """Masks for ``env``: its ``num_envs`` and the mode :func:`autoreset_mode` reads.

        Raises:
            TypeError: if the env declares a mode that is not an :class:`AutoresetMode`.

        Example:
            >>> import palaestra as gym
            >>> EpisodeMasks.of(gym.make_vec("CartPole-v1", 3, vectorization_mode="sync")).mode
            <AutoresetMode.NEXT_STEP: 'NextStep'>
        """
        return cls(env.num_envs, autoreset_mode(env))

    def reset(self, reset_mask: np.ndarray | None = None) -> None:
        """Start new episodes in every row, or in the rows of ``reset_mask``.

        Example:
            >>> masks = EpisodeMasks(2)
            >>> _ = masks.step(np.array([True, True]), np.array([False, False]))
            >>> masks.reset(np.array([True, False]))
            >>> masks.previous_ends.tolist()
            [False, True]
        """
        if reset_mask is None:
            self.previous_ends = np.zeros(self.num_envs, dtype=np.bool_)
        else:
            self.previous_ends = self.previous_ends & ~np.asarray(reset_mask, dtype=np.bool_)

    def step(self, terminations: Any, truncations: Any) -> StepMasks:
        """Take one step's flags and return that step's :class:`StepMasks`.

        Example:
            >>> masks = EpisodeMasks(2, "NextStep")
            >>> _ = masks.step(np.array([False, True]), np.array([False, False]))
            >>> masks.step(np.array([False, False]), np.array([True, False]))
            StepMasks(starts=[False  True], valid=[ True False], ends=[ True False])
        """
        ends = np.logical_or(terminations, truncations)
        previous, self.previous_ends = self.previous_ends, ends
        if self.mode is SAME_STEP:
            return StepMasks(ends, self._every_row, ends)
        return StepMasks(previous if self.mode is NEXT_STEP else self._no_row, ~previous, ends)
