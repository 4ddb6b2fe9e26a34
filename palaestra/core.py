"""The environment and wrapper base classes: the heart of the Gymnasium API.

An :class:`Env` is a Markov decision process with ``reset`` and ``step``. A :class:`Wrapper`
sits on top of an env and changes some of its behaviour while forwarding the rest.

Example:
    >>> import numpy as np
    >>> from palaestra import Env, spaces
    >>> class Coin(Env):
    ...     observation_space = spaces.Discrete(2)
    ...     action_space = spaces.Discrete(2)
    ...     def reset(self, *, seed=None, options=None):
    ...         super().reset(seed=seed)
    ...         self.face = int(self.np_random.integers(2))
    ...         return self.face, {}
    ...     def step(self, action):
    ...         reward = float(action == self.face)
    ...         return self.face, reward, True, False, {}
    >>> env = Coin()
    >>> env.reset(seed=1)
    (0, {})
    >>> env.step(0)
    (0, 1.0, True, False, {})
"""

from __future__ import annotations

from copy import deepcopy
from typing import TYPE_CHECKING, Any, Generic, SupportsFloat

import numpy as np
from typing_extensions import TypeVar

from palaestra import logger, spaces
from palaestra.utils import RecordConstructorArgs, seeding
from palaestra.utils.library_name import library_name

if TYPE_CHECKING:
    from palaestra.env_spec import EnvSpec, WrapperSpec

__all__ = [
    "Env",
    "Wrapper",
    "ObservationWrapper",
    "RewardWrapper",
    "ActionWrapper",
    "ObsType",
    "ActType",
    "RenderFrame",
    "WrapperObsType",
    "WrapperActType",
]

ObsType = TypeVar("ObsType", default=Any)
ActType = TypeVar("ActType", default=Any)
RenderFrame = TypeVar("RenderFrame", default=Any)


class AttributeLookup:
    """``has/get/set_wrapper_attr`` of an environment at the bottom of a wrapper stack.

    Shared by :class:`Env` and the vector env base class: a bottom layer answers for itself.

    Example:
        >>> class Bottom(AttributeLookup):
        ...     depth = 7
        >>> Bottom().get_wrapper_attr("depth"), Bottom().set_wrapper_attr("fresh", 1, force=False)
        (7, False)
    """

    def has_wrapper_attr(self, name: str) -> bool:
        """Whether this environment has attribute ``name``."""
        return hasattr(self, name)

    def get_wrapper_attr(self, name: str) -> Any:
        """Return attribute ``name`` of this environment.

        Raises:
            AttributeError: if it has no such attribute.
        """
        return getattr(self, name)

    def set_wrapper_attr(self, name: str, value: Any, *, force: bool = True) -> bool:
        """Set attribute ``name`` to ``value``; without ``force`` only if it already exists.

        Returns:
            Whether the attribute was set.
        """
        if force or hasattr(self, name):
            setattr(self, name, value)
            return True
        return False


class WrapperAttributeLookup:
    """``has/get/set_wrapper_attr`` of a wrapper: ask this layer first, then the ``env`` below.

    Shared by :class:`Wrapper` and the vector wrapper base class; it must come before the
    environment base in the class bases so that its lookup wins.

    Example:
        >>> class Bottom(AttributeLookup):
        ...     depth = 7
        >>> class Layer(WrapperAttributeLookup):
        ...     def __init__(self, env):
        ...         self.env = env
        >>> Layer(Bottom()).get_wrapper_attr("depth")
        7
    """

    env: AttributeLookup

    def has_wrapper_attr(self, name: str) -> bool:
        """Whether this wrapper or any environment below it has attribute ``name``."""
        return hasattr(self, name) or self.env.has_wrapper_attr(name)

    def get_wrapper_attr(self, name: str) -> Any:
        """Return attribute ``name`` from the outermost layer (this wrapper or below) that has it.

        Raises:
            AttributeError: if no layer has it.
        """
        if hasattr(self, name):
            return getattr(self, name)
        try:
            return self.env.get_wrapper_attr(name)
        except AttributeError as e:
            raise AttributeError(
                f"wrapper {type(self).__name__} has no attribute {name!r}, nor does any "
                "environment below it"
            ) from e

    def set_wrapper_attr(self, name: str, value: Any, *, force: bool = True) -> bool:
        """Set ``name`` on the outermost layer that has it; with ``force``, else on this wrapper.

        Returns:
            Whether the attribute was set.
        """
        if hasattr(self, name):
            setattr(self, name, value)
            return True
        if self.env.set_wrapper_attr(name, value, force=False):
            return True
        if force:
            setattr(self, name, value)
            return True
        return False


def own_or_inner(name: str, doc: str) -> Any:
    """Build a wrapper property that reads the wrapper's own value once set, else the inner env's.

    The own value lives in ``_<name>``, which the wrapper initialises to ``None``.

    Args:
        name: the attribute forwarded to ``self.env`` while no own value is set.
        doc: the property's docstring.

    Example:
        >>> class Inner:
        ...     metadata = {"render_fps": 4}
        >>> class Layer:
        ...     metadata = own_or_inner("metadata", "Own or inner metadata.")
        ...     def __init__(self, env):
        ...         self.env, self._metadata = env, None
        >>> layer = Layer(Inner())
        >>> layer.metadata
        {'render_fps': 4}
        >>> layer.metadata = {}
        >>> layer.metadata, Inner.metadata
        ({}, {'render_fps': 4})
    """
    own = f"_{name}"

    def read(self: Any) -> Any:
        value = getattr(self, own)
        return getattr(self.env, name) if value is None else value

    def write(self: Any, value: Any) -> None:
        setattr(self, own, value)

    return property(read, write, doc=doc)


class OwnRandomness:
    """The lazily seeded ``np_random`` of an environment at the bottom of a wrapper stack.

    Shared by :class:`Env` and the vector env base class; ``reset(seed=...)`` reseeds it by
    assigning ``_np_random`` and ``_np_random_seed`` from :func:`palaestra.utils.seeding.np_random`.

    Example:
        >>> owner = OwnRandomness()
        >>> owner.np_random = np.random.default_rng(3)
        >>> owner.np_random_seed
        -1
    """

    _np_random: np.random.Generator | None = None
    _np_random_seed: int | None = None

    @property
    def np_random(self) -> np.random.Generator:
        """The environment's own random generator, created from OS entropy on first use."""
        if self._np_random is None:
            self._np_random, self._np_random_seed = seeding.np_random()
        return self._np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self._np_random = value
        # The seed of a generator handed in from outside is unknown.
        self._np_random_seed = -1

    @property
    def np_random_seed(self) -> int:
        """The seed of :attr:`np_random`: its entropy, or -1 if the generator was set directly."""
        if self._np_random_seed is None:
            self._np_random, self._np_random_seed = seeding.np_random()
        return self._np_random_seed


class Env(AttributeLookup, OwnRandomness, Generic[ObsType, ActType]):
    """A reinforcement-learning environment: reset it, then step it with actions.

    Subclasses set ``action_space`` and ``observation_space`` and implement :meth:`step` and
    :meth:`reset` (calling ``super().reset(seed=seed)`` first so ``np_random`` is seeded), and
    :meth:`render` / :meth:`close` where they draw or own resources.

    Attributes:
        metadata: ``render_modes`` and ``render_fps`` among others.
        render_mode: fixed at construction; one of ``metadata["render_modes"]`` or ``None``.
        spec: the :class:`~palaestra.envs.registration.EnvSpec` that ``make`` built it from.
        action_space: the space of valid actions.
        observation_space: the space of observations.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1")
        >>> observation, info = env.reset(seed=0)
        >>> env.observation_space.contains(observation), env.unwrapped.np_random_seed
        (True, 0)
    """

    metadata: dict[str, Any] = {"render_modes": []}
    render_mode: str | None = None
    spec: EnvSpec | None = None

    action_space: spaces.Space[ActType]
    observation_space: spaces.Space[ObsType]

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Advance the environment by one step.

        Args:
            action: an element of ``action_space``.

        Returns:
            ``(observation, reward, terminated, truncated, info)``: ``terminated`` when the MDP
            reached a terminal state, ``truncated`` when the episode was cut short (a time
            limit, leaving the simulated region).

        Raises:
            NotImplementedError: in this base class.
        """
        raise NotImplementedError

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Start a new episode and return its first observation and an info dict.

        The base implementation only (re)seeds :attr:`np_random` when ``seed`` is given;
        subclasses call it first and then draw their initial state from ``np_random``.

        Args:
            seed: seeds ``np_random``; ``None`` keeps the current generator.
            options: environment-specific reset options.

        Raises:
            palaestra.error.Error: if ``seed`` is not a non-negative integer.
        """
        if seed is not None:
            self._np_random, self._np_random_seed = seeding.np_random(seed)
        return None, {}  # type: ignore[return-value]

    def render(self) -> RenderFrame | list[RenderFrame] | None:
        """Render according to :attr:`render_mode` (fixed at construction).

        Raises:
            NotImplementedError: in this base class.
        """
        raise NotImplementedError

    def close(self) -> None:
        """Release resources the environment holds (windows, processes, files)."""

    @property
    def unwrapped(self) -> Env[ObsType, ActType]:
        """The environment itself, below any wrappers."""
        return self

    def __str__(self) -> str:
        if self.spec is None:
            return f"<{type(self).__name__} instance>"
        return f"<{type(self).__name__}<{self.spec.id}>>"

    def __enter__(self) -> Env[ObsType, ActType]:
        return self

    def __exit__(self, *args: Any) -> bool:
        self.close()
        return False


WrapperObsType = TypeVar("WrapperObsType", default=Any)
WrapperActType = TypeVar("WrapperActType", default=Any)


class Wrapper(
    WrapperAttributeLookup,
    Env[WrapperObsType, WrapperActType],
    Generic[WrapperObsType, WrapperActType, ObsType, ActType],
):
    """Wrap an environment to change some of its behaviour and forward the rest.

    ``step``, ``reset``, ``render`` and ``close`` are forwarded to :attr:`env`; a wrapper may
    replace ``action_space``, ``observation_space`` and ``metadata`` without touching the inner
    env. ``render_mode``, ``np_random`` and ``unwrapped`` always refer to the inner env. Other
    attributes of the inner env are not forwarded: use :meth:`get_wrapper_attr`.

    Args:
        env: the environment to wrap.

    Raises:
        AssertionError: if ``env`` is not an :class:`Env`.

    Example:
        >>> from palaestra.core import Env, Wrapper
        >>> class Inner(Env):
        ...     depth = 7
        >>> wrapped = Wrapper(Inner())
        >>> wrapped.get_wrapper_attr("depth")
        7
    """

    def __init__(self, env: Env[ObsType, ActType]):
        if not isinstance(env, Env):
            raise TypeError(
                f"Expected env to be a `{library_name()}.Env` but got {type(env)}; wrap a "
                "Gymnasium environment with `palaestra.compat.from_gymnasium(env)` first."
            )
        self.env = env
        self._action_space: spaces.Space[WrapperActType] | None = None
        self._observation_space: spaces.Space[WrapperObsType] | None = None
        self._metadata: dict[str, Any] | None = None
        self._cached_spec: EnvSpec | None = None

    def step(
        self, action: WrapperActType
    ) -> tuple[WrapperObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the inner environment."""
        return self.env.step(action)  # type: ignore[return-value, arg-type]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[WrapperObsType, dict[str, Any]]:
        """Reset the inner environment."""
        return self.env.reset(seed=seed, options=options)  # type: ignore[return-value]

    def render(self) -> RenderFrame | list[RenderFrame] | None:
        """Render the inner environment."""
        return self.env.render()

    def close(self) -> None:
        """Close the inner environment."""
        return self.env.close()

    @property
    def np_random_seed(self) -> int | None:
        """The inner environment's ``np_random_seed``."""
        return self.env.np_random_seed

    @property
    def unwrapped(self) -> Env[ObsType, ActType]:
        """The environment below every wrapper."""
        return self.env.unwrapped

    @property
    def spec(self) -> EnvSpec | None:  # type: ignore[override]
        """The inner env's spec with this wrapper appended to ``additional_wrappers``."""
        if self._cached_spec is not None:
            return self._cached_spec
        env_spec = self.env.spec
        if env_spec is not None:
            if isinstance(self, RecordConstructorArgs):
                kwargs = {k: v for k, v in self._saved_kwargs.items() if k != "env"}
            else:
                kwargs = None
            wrapper_spec = self._wrapper_spec_with(kwargs)
            try:
                env_spec = deepcopy(env_spec)
                env_spec.additional_wrappers = (*env_spec.additional_wrappers, wrapper_spec)
            except Exception as e:
                logger.warn(
                    f"An exception occurred ({e}) while copying the environment spec={env_spec}"
                )
                return None
        self._cached_spec = env_spec
        return env_spec

    @classmethod
    def wrapper_spec(cls, **kwargs: Any) -> WrapperSpec:
        """Describe this wrapper class, built with ``kwargs``, as a ``WrapperSpec``.

        The result goes into ``register(..., additional_wrappers=...)`` so that ``make``
        applies the wrapper with these arguments.

        Args:
            kwargs: the wrapper's constructor arguments (without ``env``).

        Example:
            >>> from palaestra.wrappers import ClipReward
            >>> ClipReward.wrapper_spec(min_reward=-0.5, max_reward=0.5).kwargs
            {'min_reward': -0.5, 'max_reward': 0.5}
        """
        return cls._wrapper_spec_with(kwargs)

    @classmethod
    def _wrapper_spec_with(cls, kwargs: dict[str, Any] | None) -> WrapperSpec:
        from palaestra.env_spec import WrapperSpec

        return WrapperSpec(
            name=cls.class_name(),
            entry_point=f"{cls.__module__}:{cls.__name__}",
            kwargs=kwargs,
        )

    def __str__(self) -> str:
        return f"<{type(self).__name__}{self.env}>"

    def __repr__(self) -> str:
        return str(self)

    @classmethod
    def class_name(cls) -> str:
        """Return the wrapper's class name."""
        return cls.__name__

    action_space = own_or_inner(
        "action_space", "The wrapper's action space, or the inner env's if it has not replaced it."
    )
    observation_space = own_or_inner(
        "observation_space",
        "The wrapper's observation space, or the inner env's if it has not replaced it.",
    )
    metadata = own_or_inner(
        "metadata", "The wrapper's metadata, or the inner env's if it has not replaced it."
    )

    @property
    def render_mode(self) -> str | None:  # type: ignore[override]
        """The inner environment's render mode."""
        return self.env.render_mode

    @property
    def np_random(self) -> np.random.Generator:
        """The inner environment's random generator."""
        return self.env.np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self.env.np_random = value

    @property
    def _np_random(self) -> None:  # type: ignore[override]
        raise AttributeError(
            "Can't access `_np_random` of a wrapper, use `.unwrapped._np_random` or `.np_random`."
        )


class ObservationWrapper(Wrapper[WrapperObsType, ActType, ObsType, ActType]):
    """Wrap an environment to transform every observation with :meth:`observation`.

    Set ``self.observation_space`` in ``__init__`` if the transformation changes the space.

    Example:
        >>> from palaestra.core import ObservationWrapper
        >>> class Doubled(ObservationWrapper):
        ...     def observation(self, observation):
        ...         return 2 * observation
    """

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[WrapperObsType, dict[str, Any]]:
        """Reset the inner env and transform the first observation."""
        obs, info = self.env.reset(seed=seed, options=options)
        return self.observation(obs), info

    def step(
        self, action: ActType
    ) -> tuple[WrapperObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the inner env and transform the observation."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self.observation(obs), reward, terminated, truncated, info

    def observation(self, observation: ObsType) -> WrapperObsType:
        """Transform one observation of the inner env.

        Raises:
            NotImplementedError: in this base class.
        """
        raise NotImplementedError


class RewardWrapper(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Wrap an environment to transform every reward with :meth:`reward`.

    Example:
        >>> from palaestra.core import RewardWrapper
        >>> class Halved(RewardWrapper):
        ...     def reward(self, reward):
        ...         return reward / 2
    """

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the inner env and transform the reward."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, self.reward(reward), terminated, truncated, info

    def reward(self, reward: SupportsFloat) -> SupportsFloat:
        """Transform one reward of the inner env.

        Raises:
            NotImplementedError: in this base class.
        """
        raise NotImplementedError


class ActionWrapper(Wrapper[ObsType, WrapperActType, ObsType, ActType]):
    """Wrap an environment to transform every action with :meth:`action` before stepping.

    Set ``self.action_space`` in ``__init__`` to the space of the actions the wrapper accepts.

    Example:
        >>> from palaestra.core import ActionWrapper
        >>> class Flipped(ActionWrapper):
        ...     def action(self, action):
        ...         return 1 - action
    """

    def step(
        self, action: WrapperActType
    ) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Transform the action and step the inner env with it."""
        return self.env.step(self.action(action))

    def action(self, action: WrapperActType) -> ActType:
        """Transform one action for the inner env.

        Raises:
            NotImplementedError: in this base class.
        """
        raise NotImplementedError
