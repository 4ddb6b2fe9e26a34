"""Observation wrappers that carry state across steps: normalization, time, stacking, delay.

Example:
    >>> import palaestra as gym
    >>> env = gym.wrappers.FrameStackObservation(gym.make("CartPole-v1"), stack_size=3)
    >>> env.reset(seed=0)[0].shape
    (3, 4)
"""

from __future__ import annotations

from collections import deque
from copy import deepcopy
from typing import Any, SupportsFloat

import numpy as np

from palaestra import spaces
from palaestra.core import ActType, Env, ObservationWrapper, ObsType, Wrapper, WrapperObsType
from palaestra.utils import RecordConstructorArgs
from palaestra.wrappers.running_statistics import RunningStatisticsControls, check_epsilon
from palaestra.wrappers.utils import RunningMeanStd, create_zero_array

__all__ = [
    "DelayObservation",
    "TimeAwareObservation",
    "FrameStackObservation",
    "NormalizeObservation",
    "MaxAndSkipObservation",
]


def _check_integer(value: Any, name: str) -> None:
    if not np.issubdtype(type(value), np.integer):
        raise TypeError(f"The {name} is expected to be an integer, actual type: {type(value)}")


class DelayObservation(ObservationWrapper[ObsType, ActType, ObsType], RecordConstructorArgs):
    """Return the observation from ``delay`` steps ago (a neutral observation until then).

    The neutral observation is :func:`~palaestra.wrappers.utils.create_zero_array` of the
    space: zeros, moved inside the bounds where zero is outside them.

    Args:
        env: the environment to wrap.
        delay: how many steps to delay observations by (0 disables the delay).

    Raises:
        TypeError: if ``delay`` is not an integer.
        ValueError: if ``delay`` is negative.

    Example:
        >>> import palaestra as gym
        >>> env = DelayObservation(gym.make("CartPole-v1"), delay=1)
        >>> env.reset(seed=0)[0]
        array([0., 0., 0., 0.], dtype=float32)
    """

    def __init__(self, env: Env[ObsType, ActType], delay: int):
        _check_integer(delay, "delay")
        if delay < 0:
            raise ValueError(f"The delay needs to be greater than zero, actual value: {delay}")
        RecordConstructorArgs.__init__(self, delay=delay)
        ObservationWrapper.__init__(self, env)
        self.delay = int(delay)
        self.observation_queue: deque = deque()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Forget the queued observations and reset the environment."""
        self.observation_queue.clear()
        return super().reset(seed=seed, options=options)

    def observation(self, observation: ObsType) -> ObsType:
        """Queue ``observation`` and return the one from ``delay`` steps ago."""
        self.observation_queue.append(observation)
        if len(self.observation_queue) > self.delay:
            return self.observation_queue.popleft()
        return create_zero_array(self.observation_space)


def _find_max_episode_steps(env: Env) -> int:
    if env.spec is not None and env.spec.max_episode_steps is not None:
        return env.spec.max_episode_steps
    from palaestra.wrappers.common import TimeLimit

    layer = env
    while isinstance(layer, Wrapper):
        if isinstance(layer, TimeLimit):
            return layer._max_episode_steps
        layer = layer.env
    raise ValueError(
        "The environment must be wrapped by a TimeLimit wrapper or the spec specify a "
        "`max_episode_steps`."
    )


class TimeAwareObservation(
    ObservationWrapper[WrapperObsType, ActType, ObsType], RecordConstructorArgs
):
    """Add the number of steps taken in the episode to the observation.

    The time joins a ``Dict`` observation under ``dict_time_key``, is appended to a ``Tuple``
    observation, and otherwise forms ``{"obs": obs, "time": time}``; with ``flatten`` the
    result is flattened into one array. The episode length comes from the spec's
    ``max_episode_steps`` or a ``TimeLimit`` wrapper below.

    Args:
        env: the environment to wrap.
        flatten: flatten the combined observation into a 1-D array.
        normalize_time: give the time as a float32 fraction of the episode length in [0, 1]
            instead of an int32 step count.
        dict_time_key: the key of the time in ``Dict`` observations.

    Raises:
        ValueError: if the episode length is unknown, or ``dict_time_key`` is already taken.

    Example:
        >>> import palaestra as gym
        >>> env = TimeAwareObservation(gym.make("CartPole-v1"))
        >>> env.reset(seed=0)[0].round(3)
        array([ 0.014, -0.023, -0.046, -0.048,  0.   ])
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        flatten: bool = True,
        normalize_time: bool = False,
        *,
        dict_time_key: str = "time",
    ):
        RecordConstructorArgs.__init__(
            self, flatten=flatten, normalize_time=normalize_time, dict_time_key=dict_time_key
        )
        ObservationWrapper.__init__(self, env)
        self.flatten = flatten
        self.normalize_time = normalize_time
        self.max_timesteps: int = _find_max_episode_steps(env)
        self.timesteps: int = 0

        if normalize_time:
            time_space = spaces.Box(0.0, 1.0)
        else:
            time_space = spaces.Box(0, self.max_timesteps, dtype=np.int32)
        combined_space = self._combine_spaces(env.observation_space, time_space, dict_time_key)
        self._combined_space = combined_space
        self._dict_time_key = dict_time_key
        if flatten:
            self.observation_space = spaces.flatten_space(combined_space)
        else:
            self.observation_space = combined_space

    @staticmethod
    def _combine_spaces(
        space: spaces.Space, time_space: spaces.Box, dict_time_key: str
    ) -> spaces.Space:
        if isinstance(space, spaces.Dict):
            if dict_time_key in space.spaces:
                raise ValueError(
                    f"The `dict_time_key` ({dict_time_key!r}) already exists in the "
                    "observation space."
                )
            return spaces.Dict(
                {dict_time_key: time_space, **space.spaces}, sort_keys=space.sort_keys
            )
        if isinstance(space, spaces.Tuple):
            return spaces.Tuple((*space.spaces, time_space))
        return spaces.Dict(obs=space, time=time_space)

    def _time(self) -> np.ndarray:
        if self.normalize_time:
            return np.array([self.timesteps / self.max_timesteps], dtype=np.float32)
        return np.array([self.timesteps], dtype=np.int32)

    def _combine(self, observation: Any, time: np.ndarray) -> Any:
        inner = self.env.observation_space
        if isinstance(inner, spaces.Dict):
            return {self._dict_time_key: time, **observation}
        if isinstance(inner, spaces.Tuple):
            return (*observation, time)
        return {"obs": observation, "time": time}

    def observation(self, observation: ObsType) -> WrapperObsType:
        """Return ``observation`` with the current step count added."""
        combined = self._combine(observation, self._time())
        if self.flatten:
            return spaces.flatten(self._combined_space, combined)
        return combined

    def step(self, action: ActType) -> tuple[WrapperObsType, SupportsFloat, bool, bool, dict]:
        """Count the step, then step the environment."""
        self.timesteps += 1
        return super().step(action)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[WrapperObsType, dict[str, Any]]:
        """Restart the step count and reset the environment."""
        self.timesteps = 0
        return super().reset(seed=seed, options=options)


def _padding_value(space: spaces.Space, padding_type: Any) -> tuple[Any, str]:
    if isinstance(padding_type, str) and padding_type in ("reset", "zero"):
        return create_zero_array(space), padding_type
    if padding_type in space:
        return padding_type, "_custom"
    if isinstance(padding_type, str):
        raise ValueError(
            "Unexpected `padding_type`, expected 'reset', 'zero' or a custom observation "
            f"space, actual value: {padding_type!r}"
        )
    raise ValueError(
        "Unexpected `padding_type`, expected 'reset', 'zero' or a custom observation space, "
        f"actual value: {padding_type!r} not an instance of env observation ({space})"
    )


class FrameStackObservation(
    Wrapper[WrapperObsType, ActType, ObsType, ActType], RecordConstructorArgs
):
    """Observe the last ``stack_size`` observations, stacked along a new first axis.

    Args:
        env: the environment to wrap.
        stack_size: how many observations to stack.
        padding_type: what fills the stack after a reset: ``"reset"`` repeats the first
            observation, ``"zero"`` uses a neutral observation (see ``create_zero_array``),
            and an element of the observation space is used as given.

    Raises:
        TypeError: if ``stack_size`` is not an integer.
        ValueError: if ``stack_size`` is not positive, or ``padding_type`` is none of the above.

    Example:
        >>> import palaestra as gym
        >>> env = FrameStackObservation(gym.make("CartPole-v1"), 2, padding_type="zero")
        >>> env.reset(seed=0)[0][0]
        array([0., 0., 0., 0.], dtype=float32)
    """

    def __init__(
        self, env: Env[ObsType, ActType], stack_size: int, *, padding_type: str | ObsType = "reset"
    ):
        from palaestra.vector.utils import batch_space, create_empty_array

        RecordConstructorArgs.__init__(self, stack_size=stack_size, padding_type=padding_type)
        Wrapper.__init__(self, env)
        _check_integer(stack_size, "stack_size")
        if stack_size <= 0:
            raise ValueError(
                f"The stack_size needs to be greater than zero, actual value: {stack_size}"
            )
        self.padding_value, self.padding_type = _padding_value(env.observation_space, padding_type)
        self.observation_space = batch_space(env.observation_space, n=stack_size)
        self.stack_size: int = stack_size
        self.obs_queue = deque([self.padding_value] * stack_size, maxlen=stack_size)
        self.stacked_obs = create_empty_array(env.observation_space, n=stack_size)

    def _stacked(self) -> WrapperObsType:
        from palaestra.vector.utils import concatenate

        # The buffer is reused, so hand out a copy the caller may keep.
        return deepcopy(concatenate(self.env.observation_space, self.obs_queue, self.stacked_obs))

    def step(self, action: ActType) -> tuple[WrapperObsType, SupportsFloat, bool, bool, dict]:
        """Step the environment and push its observation onto the stack."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.obs_queue.append(obs)
        return self._stacked(), reward, terminated, truncated, info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[WrapperObsType, dict[str, Any]]:
        """Reset the environment and refill the stack with padding and the first observation."""
        obs, info = self.env.reset(seed=seed, options=options)
        if self.padding_type == "reset":
            self.padding_value = obs
        self.obs_queue.extend([self.padding_value] * (self.stack_size - 1))
        self.obs_queue.append(obs)
        return self._stacked(), info


class NormalizeObservation(
    ObservationWrapper[WrapperObsType, ActType, ObsType],
    RecordConstructorArgs,
    RunningStatisticsControls,
):
    """Standardize observations with a running mean and variance, as float32.

    Each observation updates the statistics (unless ``update_running_mean`` is False) and is
    returned as ``(obs - mean) / sqrt(var + epsilon)``. The statistics live in ``obs_rms``;
    save them with :meth:`get_state` and restore them with :meth:`set_state` (or pickle the
    wrapper) to evaluate a policy with the normalization it was trained with.

    Args:
        env: an environment whose observation space has a shape.
        epsilon: added to the variance under the square root; must be positive.

    Raises:
        InvalidBound: if ``epsilon`` is not positive.
        ValueError: if the observation space has no shape.

    Example:
        >>> import palaestra as gym
        >>> env = NormalizeObservation(gym.make("CartPole-v1"))
        >>> _ = env.reset(seed=0)
        >>> env.update_running_mean = False
        >>> saved = env.get_state()
        >>> sorted(saved)
        ['count', 'mean', 'var']
    """

    statistics_attribute = "obs_rms"

    def __init__(self, env: Env[ObsType, ActType], epsilon: float = 1e-8):
        check_epsilon(epsilon)
        RecordConstructorArgs.__init__(self, epsilon=epsilon)
        ObservationWrapper.__init__(self, env)
        if env.observation_space.shape is None:
            raise ValueError(
                "NormalizeObservation wrapper requires the observation space to have a shape."
            )
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=env.observation_space.shape, dtype=np.float32
        )
        self.obs_rms = RunningMeanStd(shape=self.observation_space.shape, dtype=np.float32)
        self.epsilon = epsilon

    def observation(self, observation: ObsType) -> WrapperObsType:
        """Update the statistics with ``observation`` and return it standardized."""
        if self._update_running_mean:
            self.obs_rms.update(np.array([observation]))
        return np.float32(
            (observation - self.obs_rms.mean) / np.sqrt(self.obs_rms.var + self.epsilon)
        )


class MaxAndSkipObservation(
    Wrapper[WrapperObsType, ActType, ObsType, ActType], RecordConstructorArgs
):
    """Repeat each action ``skip`` times and observe the pixel-wise max of the last two frames.

    Rewards are summed; the loop stops early when the episode ends. This is the Atari
    frame-skipping trick that removes flicker.

    Args:
        env: an environment whose observation space has a shape.
        skip: how many times to repeat each action; at least 2.

    Raises:
        TypeError: if ``skip`` is not an integer.
        ValueError: if ``skip < 2`` or the observation space has no shape.

    Example:
        >>> import palaestra as gym
        >>> env = MaxAndSkipObservation(gym.make("CartPole-v1"), skip=2)
        >>> _ = env.reset(seed=0)
        >>> env.step(1)[1]
        2.0
    """

    def __init__(self, env: Env[ObsType, ActType], skip: int = 4):
        RecordConstructorArgs.__init__(self, skip=skip)
        Wrapper.__init__(self, env)
        _check_integer(skip, "skip")
        if skip < 2:
            raise ValueError(
                f"The skip value needs to be equal or greater than two, actual value: {skip}"
            )
        if env.observation_space.shape is None:
            raise ValueError("The observation space must have the shape attribute.")
        self._skip = skip
        self._obs_buffer = np.zeros(
            (2, *env.observation_space.shape), dtype=env.observation_space.dtype
        )

    def step(self, action: ActType) -> tuple[WrapperObsType, SupportsFloat, bool, bool, dict]:
        """Repeat ``action``, sum the rewards and return the max of the last two frames."""
        total_reward = 0.0
        terminated = truncated = False
        info: dict[str, Any] = {}
        for repeat in range(self._skip):
            obs, reward, terminated, truncated, info = self.env.step(action)
            # Slot 0 holds the second-to-last frame of the skip, slot 1 the last.
            if repeat >= self._skip - 2:
                self._obs_buffer[repeat - (self._skip - 2)] = obs
            total_reward += float(reward)
            if terminated or truncated:
                break
        return np.max(self._obs_buffer, axis=0), total_reward, terminated, truncated, info
