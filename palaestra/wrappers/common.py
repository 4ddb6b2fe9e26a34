"""The wrappers ``make`` applies, and two more that nearly every training loop wants.

* :class:`TimeLimit` truncates an episode after a number of steps.
* :class:`Autoreset` resets the env on the step after an episode ends.
* :class:`PassiveEnvChecker` checks the first ``reset``, ``step`` and ``render`` results.
* :class:`OrderEnforcing` forbids ``step``/``render`` before the first ``reset``.
* :class:`RecordEpisodeStatistics` reports each episode's return, length and duration.

Example:
    >>> import palaestra as gym
    >>> gym.make("CartPole-v1")
    <TimeLimit<OrderEnforcing<PassiveEnvChecker<CartPoleEnv<CartPole-v1>>>>>
"""

from __future__ import annotations

import time
from collections import deque
from copy import deepcopy
from typing import TYPE_CHECKING, Any, SupportsFloat

from palaestra import logger
from palaestra.core import ActType, Env, ObsType, RenderFrame, Wrapper
from palaestra.error import ResetNeeded
from palaestra.utils.passive_env_checker import (
    check_env_spaces,
    env_data_reuse_passive_checker,
    env_render_passive_checker,
    env_reset_passive_checker,
    env_step_passive_checker,
)
from palaestra.utils.record_constructor import RecordConstructorArgs
from palaestra.vector.episodes import NEXT_STEP, SubEnvStepper, time_limit_reached

if TYPE_CHECKING:
    from palaestra.env_spec import EnvSpec

__all__ = [
    "TimeLimit",
    "Autoreset",
    "PassiveEnvChecker",
    "OrderEnforcing",
    "RecordEpisodeStatistics",
]


def _spec_with(wrapper: Wrapper[Any, Any, Any, Any], **fields: Any) -> EnvSpec | None:
    """Return the inner env's spec, copied, with ``fields`` set; cached on ``wrapper``.

    Wrappers that ``make`` applies itself are recorded as spec fields (``max_episode_steps``,
    ``order_enforce``, ``disable_env_checker``) rather than as additional wrappers, so that
    ``make(env.spec)`` rebuilds the same stack.
    """
    if wrapper._cached_spec is not None:
        return wrapper._cached_spec
    env_spec = wrapper.env.spec
    if env_spec is not None:
        try:
            env_spec = deepcopy(env_spec)
            for name, value in fields.items():
                setattr(env_spec, name, value)
        except Exception as e:
            logger.warn(
                f"An exception occurred ({e}) while copying the environment spec={env_spec}"
            )
            return None
    wrapper._cached_spec = env_spec
    return env_spec


class TimeLimit(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Truncate the episode once ``max_episode_steps`` steps have been taken since ``reset``.

    The step that reaches the limit returns ``truncated=True`` (``terminated`` is passed
    through: it is the MDP's own signal). ``env.spec.max_episode_steps`` records the limit.

    Args:
        env: the environment to limit.
        max_episode_steps: the number of steps after which the episode is truncated.

    Raises:
        TypeError: if ``max_episode_steps`` is not an ``int``.
        ValueError: if it is not positive.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1", max_episode_steps=2)
        >>> _ = env.reset(seed=0)
        >>> env.step(0)[2:4], env.step(0)[2:4]
        ((False, False), (False, True))
    """

    def __init__(self, env: Env[ObsType, ActType], max_episode_steps: int):
        if not isinstance(max_episode_steps, int):
            raise TypeError(
                "Expect the `max_episode_steps` to be an integer, actually: "
                f"{type(max_episode_steps)}"
            )
        if max_episode_steps <= 0:
            raise ValueError(
                f"Expect the `max_episode_steps` to be positive, actually: {max_episode_steps}"
            )
        RecordConstructorArgs.__init__(self, max_episode_steps=max_episode_steps)
        Wrapper.__init__(self, env)
        self._max_episode_steps = max_episode_steps
        self._elapsed_steps: int | None = None

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env; set ``truncated`` once the step count reaches ``max_episode_steps``."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._elapsed_steps += 1
        if time_limit_reached(self._elapsed_steps, self._max_episode_steps):
            truncated = True
        return obs, reward, terminated, truncated, info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset the env and the step count."""
        self._elapsed_steps = 0
        return self.env.reset(seed=seed, options=options)

    @property
    def spec(self) -> EnvSpec | None:
        """The inner spec with ``max_episode_steps`` set to this wrapper's limit."""
        return _spec_with(self, max_episode_steps=self._max_episode_steps)


class Autoreset(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Reset the environment on the ``step`` call after an episode terminates or truncates.

    That step ignores its action and returns the new episode's first observation and reset
    info, with reward ``0.0`` and both flags ``False`` (the vector "next step" autoreset).

    Args:
        env: the environment to reset automatically.

    Example:
        >>> import palaestra as gym
        >>> env = gym.wrappers.Autoreset(gym.make("CartPole-v1", max_episode_steps=1))
        >>> _ = env.reset(seed=0)
        >>> env.step(0)[1:4], env.step(0)[1:4]
        ((1.0, False, True), (0.0, False, False))
    """

    def __init__(self, env: Env[ObsType, ActType]):
        RecordConstructorArgs.__init__(self)
        Wrapper.__init__(self, env)
        self._stepper = SubEnvStepper(env, NEXT_STEP)

    @property
    def autoreset(self) -> bool:
        """Whether the last step ended the episode, so the next ``step`` resets instead."""
        return self._stepper.needs_reset

    @autoreset.setter
    def autoreset(self, value: bool) -> None:
        self._stepper.needs_reset = bool(value)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset the env and forget any pending automatic reset."""
        return self._stepper.reset(seed=seed, options=options)

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env, or reset it if the previous step ended the episode."""
        return self._stepper.step(action)


class PassiveEnvChecker(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Check the env's spaces on construction and its first ``reset``/``step``/``render`` results.

    Data pass through unchanged; problems are warned about (or raised) by
    :mod:`palaestra.utils.passive_env_checker`. The first two results are also compared so an
    env that returns the same buffer every call is reported. ``make`` applies this wrapper
    unless ``disable_env_checker=True``.

    Args:
        env: the environment to check.

    Raises:
        TypeError: if ``env`` is not a :class:`palaestra.Env`.
        AttributeError: if it has no action or observation space.

    Example:
        >>> import palaestra as gym
        >>> gym.make("CartPole-v1", disable_env_checker=True)
        <TimeLimit<OrderEnforcing<CartPoleEnv<CartPole-v1>>>>
    """

    def __init__(self, env: Env[ObsType, ActType]):
        RecordConstructorArgs.__init__(self)
        Wrapper.__init__(self, env)  # raises the TypeError for an object that is not an Env
        check_env_spaces(env)

        self.checked_reset = False
        self.checked_step = False
        self.checked_render = False
        self.close_called = False
        # Data reuse is checked twice: reset against the first step, then that step against
        # the second one.
        self.checked_data_reuse = False
        self._previous_data: tuple[Any, dict[str, Any]] | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset the env; the first call checks the signature and the result."""
        if self.checked_reset:
            return self.env.reset(seed=seed, options=options)
        self.checked_reset = True
        self._previous_data = env_reset_passive_checker(self.env, seed=seed, options=options)
        return self._previous_data

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env; the first call checks the result, the first two check data reuse."""
        if not self.checked_step:
            self.checked_step = True
            result = env_step_passive_checker(self.env, action)
            self._compare_with_previous(result, "reset", "step")
            return result
        result = self.env.step(action)
        if not self.checked_data_reuse:
            self.checked_data_reuse = True
            self._compare_with_previous(result, "step", "step")
            self._previous_data = None
        return result

    def _compare_with_previous(self, result: tuple[Any, ...], before: str, now: str) -> None:
        # Unpacking five values is the check that the step API is the current one: an old
        # 4-tuple step raises "not enough values to unpack" here, as under Gymnasium.
        obs, _, _, _, info = result
        if self._previous_data is not None:
            env_data_reuse_passive_checker(self._previous_data, (obs, info), before, now)
        self._previous_data = (obs, info)

    def render(self) -> RenderFrame | list[RenderFrame] | None:
        """Render the env; the first call checks the render metadata and the result."""
        if self.checked_render:
            return self.env.render()
        self.checked_render = True
        return env_render_passive_checker(self.env)

    def close(self) -> None:
        """Close the env; if a repeated close raises, warn before re-raising."""
        if not self.close_called:
            self.close_called = True
            return self.env.close()
        try:
            return self.env.close()
        except Exception:
            logger.warn(
                "Calling `env.close()` on the closed environment should be allowed, but it "
                "raised the following exception."
            )
            raise

    @property
    def spec(self) -> EnvSpec | None:
        """The inner spec with ``disable_env_checker=False``."""
        return _spec_with(self, disable_env_checker=False)


class OrderEnforcing(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Raise :class:`~palaestra.error.ResetNeeded` on ``step`` or ``render`` before ``reset``.

    Args:
        env: the environment to guard.
        disable_render_order_enforcing: allow ``render`` before the first ``reset``.

    Example:
        >>> import palaestra as gym
        >>> env = gym.wrappers.OrderEnforcing(gym.make("CartPole-v1").unwrapped)
        >>> env.step(0)
        Traceback (most recent call last):
            ...
        palaestra.error.ResetNeeded: Cannot call env.step() before calling env.reset()
        >>> _ = env.reset(seed=0)
        >>> env.has_reset
        True
    """

    def __init__(self, env: Env[ObsType, ActType], disable_render_order_enforcing: bool = False):
        RecordConstructorArgs.__init__(
            self, disable_render_order_enforcing=disable_render_order_enforcing
        )
        Wrapper.__init__(self, env)
        self._has_reset = False
        self._disable_render_order_enforcing = disable_render_order_enforcing

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env.

        Raises:
            ResetNeeded: if ``reset`` has not been called yet.
        """
        if not self._has_reset:
            raise ResetNeeded("Cannot call env.step() before calling env.reset()")
        return self.env.step(action)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset the env, allowing ``step`` and ``render`` from now on."""
        self._has_reset = True
        return self.env.reset(seed=seed, options=options)

    def render(self) -> RenderFrame | list[RenderFrame] | None:
        """Render the env.

        Raises:
            ResetNeeded: if ``reset`` has not been called yet and render order is enforced.
        """
        if not self._has_reset and not self._disable_render_order_enforcing:
            raise ResetNeeded(
                "Cannot call `env.render()` before calling `env.reset()`, if this is an "
                "intended action, set `disable_render_order_enforcing=True` on the "
                "OrderEnforcer wrapper."
            )
        return self.env.render()

    @property
    def has_reset(self) -> bool:
        """Whether ``reset`` has been called."""
        return self._has_reset

    @property
    def spec(self) -> EnvSpec | None:
        """The inner spec with ``order_enforce=True``."""
        return _spec_with(self, order_enforce=True)


class RecordEpisodeStatistics(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Add the episode's return, length and wall time to the ``info`` of its last step.

    On the step that terminates or truncates, ``info[stats_key]`` is
    ``{"r": return, "l": length, "t": seconds since reset, rounded to microseconds}``. The
    last ``buffer_length`` episodes are kept in :attr:`return_queue`, :attr:`length_queue`
    and :attr:`time_queue`.

    Args:
        env: the environment to measure.
        buffer_length: how many finished episodes the queues keep.
        stats_key: the info key the statistics are written under.

    Attributes:
        episode_count: the number of finished episodes.
        return_queue: returns of the most recent episodes.
        length_queue: lengths of the most recent episodes.
        time_queue: durations of the most recent episodes, in seconds.

    Example:
        >>> import palaestra as gym
        >>> env = gym.wrappers.RecordEpisodeStatistics(gym.make("CartPole-v1"))
        >>> _ = env.reset(seed=0)
        >>> done = False
        >>> while not done:
        ...     _, _, terminated, truncated, info = env.step(0)
        ...     done = terminated or truncated
        >>> info["episode"]["r"], info["episode"]["l"]
        (11.0, 11)
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        buffer_length: int = 100,
        stats_key: str = "episode",
    ):
        RecordConstructorArgs.__init__(self, buffer_length=buffer_length, stats_key=stats_key)
        Wrapper.__init__(self, env)
        self._stats_key = stats_key
        self.episode_count = 0
        self.episode_start_time: float = -1
        self.episode_returns: float = 0.0
        self.episode_lengths: int = 0
        self.time_queue: deque[float] = deque(maxlen=buffer_length)
        self.return_queue: deque[float] = deque(maxlen=buffer_length)
        self.length_queue: deque[int] = deque(maxlen=buffer_length)

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env, adding the episode's statistics to ``info`` when it ends.

        Raises:
            AssertionError: if the env's own ``info`` already uses ``stats_key``.
        """
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.episode_returns += reward
        self.episode_lengths += 1
        if terminated or truncated:
            assert self._stats_key not in info, (
                f"The environment's info already has the key {self._stats_key!r}; choose "
                "another `stats_key` for RecordEpisodeStatistics."
            )
            info[self._stats_key] = self._finish_episode()
        return obs, reward, terminated, truncated, info

    def _finish_episode(self) -> dict[str, Any]:
        now = time.perf_counter()
        duration = round(now - self.episode_start_time, 6)
        self.time_queue.append(duration)
        self.return_queue.append(self.episode_returns)
        self.length_queue.append(self.episode_lengths)
        self.episode_count += 1
        self.episode_start_time = now
        return {"r": self.episode_returns, "l": self.episode_lengths, "t": duration}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset the env and start measuring a new episode."""
        result = self.env.reset(seed=seed, options=options)
        self.episode_start_time = time.perf_counter()
        self.episode_returns = 0.0
        self.episode_lengths = 0
        return result
