"""Action wrappers with memory: sticky actions and repeated actions.

Example:
    >>> import palaestra as gym
    >>> env = gym.wrappers.RepeatAction(gym.make("CartPole-v1"), num_repeats=3)
    >>> _ = env.reset(seed=0)
    >>> env.step(1)[1]
    3.0
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import numpy as np

from palaestra.core import ActionWrapper, ActType, Env, ObsType, Wrapper
from palaestra.error import InvalidBound
from palaestra.utils import RecordConstructorArgs
from palaestra.wrappers.utils import check_chance

__all__ = ["StickyAction", "RepeatAction"]


def _duration_range(duration: int | tuple[int, int]) -> tuple[int, int]:
    bounds = (duration, duration) if isinstance(duration, int) else duration
    if not isinstance(bounds, tuple):
        raise ValueError(
            f"`repeat_action_duration` should be either an integer or a tuple. Received {bounds}"
        )
    if len(bounds) != 2:
        raise ValueError(
            "`repeat_action_duration` should be a tuple or a list of two integers. "
            f"Received {bounds}"
        )
    if bounds[0] > bounds[1]:
        raise InvalidBound(f"`repeat_action_duration` is not a valid bound. Received {bounds}")
    if np.any(np.array(bounds) < 1):
        raise ValueError(
            f"`repeat_action_duration` should be larger or equal than 1. Received {bounds}"
        )
    return bounds


class StickyAction(ActionWrapper[ObsType, ActType, ActType], RecordConstructorArgs):
    """With some probability, ignore the agent and repeat the previous action for a while.

    Each step (after the first of an episode) starts a run of repeats with probability
    ``repeat_action_probability``; the run's length is drawn uniformly from
    ``repeat_action_duration``. Randomness comes from the environment's ``np_random``.

    Args:
        env: the environment to wrap.
        repeat_action_probability: the chance of starting a run of repeats, in [0, 1).
        repeat_action_duration: the run length, or ``(min, max)`` bounds to draw it from.

    Raises:
        InvalidProbability: if the probability is outside [0, 1).
        InvalidBound: if ``min > max``.
        ValueError: if the duration is not an int or a pair, or is below 1.

    Example:
        >>> import palaestra as gym
        >>> env = StickyAction(gym.make("CartPole-v1"), repeat_action_probability=0.9)
        >>> _ = env.reset(seed=1)
        >>> env.action(0), env.action(1)
        (0, 0)
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        repeat_action_probability: float,
        repeat_action_duration: int | tuple[int, int] = 1,
    ):
        check_chance("`repeat_action_probability`", repeat_action_probability)
        duration_range = _duration_range(repeat_action_duration)
        RecordConstructorArgs.__init__(
            self,
            repeat_action_probability=repeat_action_probability,
            repeat_action_duration=repeat_action_duration,
        )
        ActionWrapper.__init__(self, env)
        self.repeat_action_probability = repeat_action_probability
        self.repeat_action_duration_range = duration_range
        self._forget()

    def _forget(self) -> None:
        self.last_action: Any = None
        self.is_sticky_actions = False
        self.num_repeats = 0
        self.repeats_taken = 0

    def _starts_run(self) -> bool:
        return (
            self.last_action is not None
            and self.np_random.uniform() < self.repeat_action_probability
        )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Forget the previous action and any run of repeats, then reset the environment."""
        self._forget()
        return super().reset(seed=seed, options=options)

    def action(self, action: ActType) -> ActType:
        """Return ``action``, or the previous action while a run of repeats lasts."""
        # The coin is only tossed outside a run, so the random stream matches a plain loop.
        if self.is_sticky_actions or self._starts_run():
            if self.num_repeats == 0:
                low, high = self.repeat_action_duration_range
                self.num_repeats = self.np_random.integers(low, high + 1)
            action = self.last_action
            self.is_sticky_actions = True
            self.repeats_taken += 1
        if self.is_sticky_actions and self.num_repeats == self.repeats_taken:
            self.is_sticky_actions = False
            self.num_repeats = 0
            self.repeats_taken = 0
        self.last_action = action
        return action


class RepeatAction(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Apply each action ``num_repeats`` times, summing the rewards; stop when the episode ends.

    Args:
        env: the environment to wrap.
        num_repeats: how many times to apply each action; at least 1.

    Raises:
        TypeError: if ``num_repeats`` is not an integer.
        ValueError: if ``num_repeats < 1``.

    Example:
        >>> import palaestra as gym
        >>> RepeatAction(gym.make("CartPole-v1"), num_repeats=2).num_repeats
        2
    """

    def __init__(self, env: Env[ObsType, ActType], num_repeats: int):
        if not np.issubdtype(type(num_repeats), np.integer):
            raise TypeError(
                f"The num_repeats is expected to be an integer, actual type: {type(num_repeats)}"
            )
        if num_repeats < 1:
            raise ValueError(
                "The num_repeats value needs to be equal or greater than one, "
                f"actual value: {num_repeats}"
            )
        RecordConstructorArgs.__init__(self, num_repeats=num_repeats)
        Wrapper.__init__(self, env)
        self.num_repeats = num_repeats

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Apply ``action`` up to ``num_repeats`` times and return the summed reward."""
        total_reward = 0.0
        for _ in range(self.num_repeats):
            obs, reward, terminated, truncated, info = self.env.step(action)
            total_reward += float(reward)
            if terminated or truncated:
                break
        return obs, total_reward, terminated, truncated, info
