"""The vector environment API: many copies of one environment stepped as a batch.

A :class:`VectorEnv` holds ``num_envs`` sub-environments. ``reset`` and ``step`` take and
return batches: observations and actions batched by :func:`~palaestra.vector.utils.batch_space`,
rewards and flags as arrays of shape ``(num_envs,)``, and one info dict whose every key holds
an array over sub-envs plus a boolean mask ``_key`` saying which sub-envs supplied it.

Example:
    >>> import palaestra as gym
    >>> envs = gym.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
    >>> envs
    SyncVectorEnv(CartPole-v1, num_envs=3)
    >>> envs.action_space
    MultiDiscrete([2 2 2])
    >>> observations, infos = envs.reset(seed=123)
    >>> observations.shape, infos
    ((3, 4), {})
    >>> envs.close()
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic

import numpy as np
from typing_extensions import TypeVar

from palaestra.core import (
    ActType,
    AttributeLookup,
    ObsType,
    OwnRandomness,
    RenderFrame,
    WrapperActType,
    WrapperAttributeLookup,
    WrapperObsType,
    own_or_inner,
)
from palaestra.utils import seeding
from palaestra.utils.library_name import library_name
from palaestra.vector.episodes import SAME_STEP, AutoresetMode, autoreset_mode

if TYPE_CHECKING:
    from palaestra.env_spec import EnvSpec
    from palaestra.spaces import Space

__all__ = [
    "VectorEnv",
    "VectorWrapper",
    "VectorObservationWrapper",
    "VectorActionWrapper",
    "VectorRewardWrapper",
    "ArrayType",
    "AutoresetMode",
]

ArrayType = TypeVar("ArrayType", default=Any)

# Python scalars whose batch is a plain numpy array of that type.
_SCALAR_TYPES = (int, float, bool)


def batch_info_value(infos: dict[str, Any], key: str, value: Any, env_num: int, n: int) -> Any:
    """Return the batch for ``key`` (existing or new) with ``value`` stored at ``env_num``.

    Python/numpy scalars go into a numeric array of their type, arrays into an array with a
    leading ``n`` axis, dicts recurse, ``final_obs`` and anything else into an object array.

    Args:
        infos: the vector info built so far.
        key: the info key.
        value: the sub-env's value for ``key``.
        env_num: the sub-env's index.
        n: the number of sub-envs.

    Example:
        >>> batch_info_value({}, "score", 2.5, env_num=1, n=3)
        array([0. , 2.5, 0. ])
    """
    if isinstance(value, dict) and key != "final_obs":
        return add_info(infos.get(key, {}), value, env_num, n)
    batch = infos[key] if key in infos else _empty_batch(key, value, n)
    batch[env_num] = value
    return batch


def _empty_batch(key: str, value: Any, n: int) -> np.ndarray:
    if key == "final_obs":
        return np.full(n, fill_value=None, dtype=object)
    if type(value) in _SCALAR_TYPES or isinstance(value, np.number):
        return np.zeros(n, dtype=type(value))
    if isinstance(value, np.ndarray):
        return np.zeros((n, *value.shape), dtype=value.dtype)
    return np.full(n, fill_value=None, dtype=object)


def add_info(
    vector_infos: dict[str, Any], env_info: dict[str, Any], env_num: int, num_envs: int
) -> dict[str, Any]:
    """Merge one sub-environment's info into the batched info of a vector env.

    Every key gets a batch (see :func:`batch_info_value`) and a boolean mask ``_key`` that is
    True for the sub-envs that supplied it.

    Args:
        vector_infos: the batched info so far (updated in place and returned).
        env_info: the info dict of sub-env ``env_num``.
        env_num: the sub-env's index.
        num_envs: the number of sub-envs.

    Example:
        >>> add_info({}, {"lives": 3}, env_num=0, num_envs=2)
        {'lives': array([3, 0]), '_lives': array([ True, False])}
    """
    for key, value in env_info.items():
        batch = batch_info_value(vector_infos, key, value, env_num, num_envs)
        mask = vector_infos.get(f"_{key}")
        if mask is None:
            mask = np.zeros(num_envs, dtype=np.bool_)
        mask[env_num] = True
        vector_infos[key], vector_infos[f"_{key}"] = batch, mask
    return vector_infos


def add_rows_info(
    infos: dict[str, Any], info: dict[str, Any], rows: np.ndarray, num_envs: int
) -> None:
    """Merge the infos of sub-envs ``rows`` (one row of every value each) into ``infos``.

    The batched form of :func:`add_info`, for a vector env whose infos come batched over
    the rows they describe (a native batch's reset rows): the result is that of
    :func:`add_info` called for each row's own info in turn. A key met first gets a zeroed
    batch of the value's dtype and a mask; then the rows' values and mask entries are written.

    Args:
        infos: the batched info so far (updated in place).
        info: the rows' infos, each value batched over ``rows`` (first axis).
        rows: the sub-env indices the values' rows belong to.
        num_envs: the number of sub-envs.

    Example:
        >>> import numpy as np
        >>> infos = {}
        >>> add_rows_info(infos, {"x": np.array([1.5, 2.5])}, np.array([0, 2]), 3)
        >>> infos
        {'x': array([1.5, 0. , 2.5]), '_x': array([ True, False,  True])}
    """
    for key, value in info.items():
        value = np.asarray(value)
        batch = infos.get(key)
        if batch is None:
            batch = np.zeros((num_envs, *value.shape[1:]), dtype=value.dtype)
            infos[key], infos[f"_{key}"] = batch, np.zeros(num_envs, dtype=np.bool_)
        batch[rows] = value
        infos[f"_{key}"][rows] = True


class VectorEnv(AttributeLookup, OwnRandomness, Generic[ObsType, ActType, ArrayType]):
    """Base class of environments that run ``num_envs`` copies of one environment as a batch.

    Implementations set :attr:`num_envs`, the single and batched spaces and
    ``metadata["autoreset_mode"]``, and implement :meth:`reset`, :meth:`step` and, where they
    hold resources, :meth:`close_extras`.

    Attributes:
        num_envs: the number of sub-environments.
        single_observation_space: the observation space of one sub-environment.
        observation_space: the batched observation space.
        single_action_space: the action space of one sub-environment.
        action_space: the batched action space.
        metadata: the sub-envs' metadata plus ``autoreset_mode``.
        spec: the spec ``make_vec`` built the vector env from, if any.
        render_mode: the sub-envs' render mode.
        closed: whether :meth:`close` was called.

    Example:
        >>> from palaestra.vector import VectorEnv
        >>> class Empty(VectorEnv):
        ...     num_envs = 2
        >>> Empty()
        Empty(num_envs=2)
    """

    metadata: dict[str, Any] = {}
    spec: EnvSpec | None = None
    render_mode: str | None = None
    closed: bool = False

    observation_space: Space[Any]
    action_space: Space[Any]
    single_observation_space: Space[Any]
    single_action_space: Space[Any]

    num_envs: int

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset every sub-environment and return the batched first observations and info.

        The base implementation only seeds :attr:`np_random` when ``seed`` is given.

        Args:
            seed: ``None`` for random seeds, an ``int`` for ``seed, seed + 1, ...``, or (in
                the implementations) a list with one seed per sub-env.
            options: reset options; ``"reset_mask"`` (a boolean array) resets only the
                masked sub-envs.
        """
        if seed is not None:
            self._np_random, self._np_random_seed = seeding.np_random(seed)
        return None, {}  # type: ignore[return-value]

    def step(self, actions: ActType) -> tuple[ObsType, ArrayType, ArrayType, ArrayType, dict]:
        """Step every sub-environment with its action from the batch ``actions``.

        Args:
            actions: an element of :attr:`action_space`.

        Returns:
            Batched ``(observations, rewards, terminations, truncations, infos)``.

        Raises:
            NotImplementedError: in this base class.
        """
        raise NotImplementedError(f"{self} step function is not implemented.")

    def render(self) -> tuple[RenderFrame, ...] | None:
        """Return the frames rendered by the sub-environments.

        Raises:
            NotImplementedError: in this base class.
        """
        raise NotImplementedError(f"{self} render function is not implemented.")

    def close(self, **kwargs: Any) -> None:
        """Close the vector env: run :meth:`close_extras` once and mark it :attr:`closed`.

        Args:
            kwargs: passed on to :meth:`close_extras`.
        """
        if self.closed:
            return
        self.close_extras(**kwargs)
        self.closed = True

    def close_extras(self, **kwargs: Any) -> None:
        """Release what the implementation holds (sub-envs, processes, memory)."""

    @property
    def unwrapped(self) -> VectorEnv[ObsType, ActType, ArrayType]:
        """The vector env below every vector wrapper: itself."""
        return self

    def _add_info(
        self, vector_infos: dict[str, Any], env_info: dict[str, Any], env_num: int
    ) -> dict[str, Any]:
        """Merge the info of sub-env ``env_num`` into ``vector_infos`` (see :func:`add_info`)."""
        return add_info(vector_infos, env_info, env_num, self.num_envs)

    def __enter__(self) -> VectorEnv[ObsType, ActType, ArrayType]:
        return self

    def __exit__(self, *args: Any) -> bool:
        self.close()
        return False

    def __repr__(self) -> str:
        name = type(self).__name__
        if self.spec is None:
            return f"{name}(num_envs={self.num_envs})"
        return f"{name}({self.spec.id}, num_envs={self.num_envs})"


class SubEnvAttributes:
    """Per-sub-env randomness and attribute reads of a vector env that runs sub-environments.

    Shared by the sync and async vector envs, which provide ``call``; it must come before
    :class:`VectorEnv` in the class bases so that its generators replace the vector env's own.

    Example:
        >>> class Pair(SubEnvAttributes):
        ...     def call(self, name):
        ...         return (name, name)
        >>> Pair().get_attr("np_random_seed") == Pair().np_random_seed
        True
    """

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call method ``name`` of every sub-env (or read attribute ``name``); one result each.

        Raises:
            NotImplementedError: in this base class.
        """
        raise NotImplementedError

    @property
    def np_random_seed(self) -> tuple[int, ...]:
        """The ``np_random_seed`` of every sub-environment."""
        return self.get_attr("np_random_seed")

    @property
    def np_random(self) -> tuple[np.random.Generator, ...]:
        """The ``np_random`` generator of every sub-environment."""
        return self.get_attr("np_random")

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Return attribute ``name`` of every sub-env (methods are called with no arguments)."""
        return self.call(name)


class VectorWrapper(
    WrapperAttributeLookup,
    VectorEnv[WrapperObsType, WrapperActType, ArrayType],
    Generic[WrapperObsType, WrapperActType, ObsType, ActType, ArrayType],
):
    """Wrap a vector env to change part of its behaviour and forward the rest.

    A wrapper may replace the (single and batched) spaces and ``metadata``; everything else
    (``num_envs``, ``spec``, ``render_mode``, ``closed``, ``np_random``) is the inner env's.

    Args:
        env: the vector env to wrap.

    Raises:
        TypeError: if ``env`` is not a :class:`VectorEnv`.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> VectorWrapper(envs)
        <VectorWrapper, SyncVectorEnv(CartPole-v1, num_envs=2)>
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType]) -> None:
        if not isinstance(env, VectorEnv):
            raise TypeError(
                f"Expected env to be a `{library_name()}.vector.VectorEnv` but got {type(env)}; "
                "single environments are wrapped with `palaestra.Wrapper`, or vectorized "
                "first with `palaestra.make_vec` or `SyncVectorEnv`."
            )
        self.env = env
        self._observation_space: Space[Any] | None = None
        self._action_space: Space[Any] | None = None
        self._single_observation_space: Space[Any] | None = None
        self._single_action_space: Space[Any] | None = None
        self._metadata: dict[str, Any] | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[WrapperObsType, dict[str, Any]]:
        """Reset the inner vector env."""
        return self.env.reset(seed=seed, options=options)  # type: ignore[return-value]

    def step(
        self, actions: WrapperActType
    ) -> tuple[WrapperObsType, ArrayType, ArrayType, ArrayType, dict[str, Any]]:
        """Step the inner vector env."""
        return self.env.step(actions)  # type: ignore[arg-type, return-value]

    def render(self) -> tuple[RenderFrame, ...] | None:
        """Render the inner vector env."""
        return self.env.render()

    def close(self, **kwargs: Any) -> None:
        """Close the inner vector env."""
        return self.env.close(**kwargs)

    def close_extras(self, **kwargs: Any) -> None:
        """Release the inner vector env's extra resources."""
        return self.env.close_extras(**kwargs)

    @property
    def unwrapped(self) -> VectorEnv:
        """The vector env below every vector wrapper."""
        return self.env.unwrapped

    def __repr__(self) -> str:
        return f"<{type(self).__name__}, {self.env}>"

    observation_space = own_or_inner(
        "observation_space", "The wrapper's batched observation space, or the inner env's."
    )
    action_space = own_or_inner(
        "action_space", "The wrapper's batched action space, or the inner env's."
    )
    single_observation_space = own_or_inner(
        "single_observation_space",
        "The wrapper's single-env observation space, or the inner env's.",
    )
    single_action_space = own_or_inner(
        "single_action_space", "The wrapper's single-env action space, or the inner env's."
    )

    @property
    def num_envs(self) -> int:  # type: ignore[override]
        """The inner env's number of sub-environments."""
        return self.env.num_envs

    @property
    def np_random(self) -> np.random.Generator:
        """The inner env's generator."""
        return self.env.np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self.env.np_random = value

    @property
    def np_random_seed(self) -> int | None:
        """The inner env's ``np_random_seed``."""
        return self.env.np_random_seed

    metadata = own_or_inner("metadata", "The wrapper's metadata, or the inner env's.")

    @property
    def spec(self) -> EnvSpec | None:  # type: ignore[override]
        """The inner env's spec."""
        return self.env.spec

    @property
    def render_mode(self) -> str | None:  # type: ignore[override]
        """The inner env's render mode."""
        return self.env.render_mode

    @property
    def closed(self) -> bool:  # type: ignore[override]
        """Whether the inner env is closed."""
        return self.env.closed

    @closed.setter
    def closed(self, value: bool) -> None:
        self.env.closed = value


class VectorObservationWrapper(VectorWrapper[WrapperObsType, ActType, ObsType, ActType, ArrayType]):
    """Wrap a vector env to transform every batch of observations with :meth:`observations`.

    Only ``NEXT_STEP`` and ``DISABLED`` autoreset are accepted: under ``SAME_STEP`` the
    ``final_obs`` in the info would escape the transform.

    Args:
        env: the vector env to wrap.

    Raises:
        TypeError: if ``env`` is not a :class:`VectorEnv`.
        ValueError: if ``env.metadata["autoreset_mode"]`` is ``SAME_STEP``.
        TypeError: if it is not an :class:`AutoresetMode` member.

    Example:
        >>> import palaestra as gym
        >>> class Doubled(VectorObservationWrapper):
        ...     def observations(self, observations):
        ...         return observations * 2
        >>> envs = Doubled(gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync"))
        >>> envs.reset(seed=0)[0].shape
        (2, 4)
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType]) -> None:
        super().__init__(env)
        mode = autoreset_mode(env)
        if mode is SAME_STEP:
            raise ValueError(
                f"Expected autoreset_mode to be NEXT_STEP or DISABLED, got {mode}; "
                f"{type(self).__name__} cannot transform `final_obs` of SAME_STEP autoreset."
            )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[WrapperObsType, dict[str, Any]]:
        """Reset the inner env and transform its observations."""
        observations, infos = self.env.reset(seed=seed, options=options)
        return self.observations(observations), infos

    def step(
        self, actions: ActType
    ) -> tuple[WrapperObsType, ArrayType, ArrayType, ArrayType, dict[str, Any]]:
        """Step the inner env and transform its observations."""
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        return self.observations(observations), rewards, terminations, truncations, infos

    def observations(self, observations: ObsType) -> WrapperObsType:
        """Transform one batch of observations.

        Raises:
            NotImplementedError: in this base class.
        """
        raise NotImplementedError


class VectorActionWrapper(VectorWrapper[ObsType, WrapperActType, ObsType, ActType, ArrayType]):
    """Wrap a vector env to transform every batch of actions with :meth:`actions`.

    Args:
        env: the vector env to wrap.

    Raises:
        TypeError: if ``env`` is not a :class:`VectorEnv`.

    Example:
        >>> class Flipped(VectorActionWrapper):
        ...     def actions(self, actions):
        ...         return 1 - actions
    """

    def step(
        self, actions: WrapperActType
    ) -> tuple[ObsType, ArrayType, ArrayType, ArrayType, dict[str, Any]]:
        """Transform the actions and step the inner env with them."""
        return self.env.step(self.actions(actions))

    def actions(self, actions: WrapperActType) -> ActType:
        """Transform one batch of actions.

        Raises:
            NotImplementedError: in this base class.
        """
        raise NotImplementedError


class VectorRewardWrapper(VectorWrapper[ObsType, ActType, ObsType, ActType, ArrayType]):
    """Wrap a vector env to transform every batch of rewards with :meth:`rewards`.

    Args:
        env: the vector env to wrap.

    Raises:
        TypeError: if ``env`` is not a :class:`VectorEnv`.

    Example:
        >>> class Halved(VectorRewardWrapper):
        ...     def rewards(self, rewards):
        ...         return rewards / 2
    """

    def step(
        self, actions: ActType
    ) -> tuple[ObsType, ArrayType, ArrayType, ArrayType, dict[str, Any]]:
        """Step the inner env and transform its rewards."""
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        return observations, self.rewards(rewards), terminations, truncations, infos

    def rewards(self, rewards: ArrayType) -> ArrayType:
        """Transform one batch of rewards.

        Raises:
            NotImplementedError: in this base class.
        """
        raise NotImplementedError
