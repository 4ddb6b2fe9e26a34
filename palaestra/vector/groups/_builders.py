"""What runs inside a group's process: building its sub-envs, calling them, handing infos over.

A group is a contiguous slice of a vector env's sub-environments that one worker process (a
pool worker, a Ray actor) runs as one vector env: a :class:`GroupSyncVectorEnv` of single
envs, or one natively batched env (:func:`native_group`). Its exceptions name the sub-env
that raised (:func:`~palaestra.vector.processes.locate_sub_env`), and its infos are placed
at the group's rows of the whole batch by :func:`place_info`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from palaestra.core import Env
from palaestra.vector._arguments import action_misfit, observation_misfit
from palaestra.vector.episodes import SubEnvStepper
from palaestra.vector.processes import locate_sub_env
from palaestra.vector.sync_vector_env import SyncVectorEnv
from palaestra.vector.utils import concatenate
from palaestra.vector.vector_env import AutoresetMode, VectorEnv, add_info

__all__ = [
    "GroupSyncVectorEnv",
    "ROW_INFOS",
    "group_call",
    "native_group",
    "place_info",
    "sync_group",
]

# The info key under which a group of single envs hands over its sub-envs' own infos.
ROW_INFOS = "palaestra.pool.row_infos"


def _given(env: Env) -> Env:
    return env


def sync_group(
    env_fns: Sequence[Callable[[], Env]],
    autoreset_mode: AutoresetMode,
    start: int = 0,
    expected: tuple[Any, Any] | None = None,
    owner: str = "PoolVectorEnv",
) -> GroupSyncVectorEnv:
    """Build a group of single envs; check each one's spaces against ``expected``.

    Args:
        env_fns: the group's sub-env builders.
        autoreset_mode: the group's autoreset mode.
        start: the index of the group's first sub-env in the whole vector env.
        expected: ``(single observation space, single action space)`` every sub-env must
            have (``None``: no check).
        owner: the vector env's class name, for the misfit message.

    Raises:
        RuntimeError: if a sub-env's spaces differ from ``expected``.
        Exception: what a sub-env's constructor raised, carrying its offset in the group.

    Example:
        >>> import palaestra as gym
        >>> envs = sync_group([lambda: gym.make("CartPole-v1")] * 2, AutoresetMode.NEXT_STEP)
        >>> envs.num_envs
        2
        >>> envs.close()
    """
    envs = []
    for offset, env_fn in enumerate(env_fns):
        try:
            envs.append(env_fn())
        except BaseException as error:
            locate_sub_env(error, offset)
            for built in envs:
                built.close()
            raise
    if expected is not None:
        for offset, env in enumerate(envs):
            problem = _misfit(
                owner, start + offset, env.observation_space, env.action_space, expected
            )
            if problem is not None:
                for built in envs:
                    built.close()
                raise RuntimeError(problem)
    return GroupSyncVectorEnv(
        [functools.partial(_given, env) for env in envs], autoreset_mode=autoreset_mode
    )


class GroupSyncVectorEnv(SyncVectorEnv):
    """A worker's group of single envs whose step and reset infos stay per sub-env.

    A sync vector env gives an info key the dtype of the first sub-env holding it (an ``int``
    1 makes an int batch that truncates a later row's 0.33). Merged group by group, that
    first row would be each group's; so the group hands over each sub-env's own info, under
    one key (:data:`ROW_INFOS`), and :func:`place_info` merges them all in row order exactly
    as a sync vector env does.

    Example:
        >>> import palaestra as gym
        >>> envs = GroupSyncVectorEnv([lambda: gym.make("CartPole-v1")])
        >>> envs.reset(seed=0)[1]
        {}
        >>> envs.close()
    """

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._steppers = [_LocatingStepper(s.env, s.mode, s.index) for s in self._steppers]

    def _add_info(
        self, vector_infos: dict[str, Any], env_info: dict[str, Any], env_num: int
    ) -> dict[str, Any]:
        if env_info:
            vector_infos.setdefault(ROW_INFOS, []).append((env_num, env_info))
        return vector_infos

    def step_into(
        self,
        actions: Any,
        observations: np.ndarray,
        rewards: np.ndarray,
        terminations: np.ndarray,
        truncations: np.ndarray,
    ) -> dict[str, Any]:
        """Step as :meth:`step` does, writing the batches straight into the given arrays.

        A pool worker's own rows of the shared block are the arrays: no batch is built and
        copied on the way. ``observations`` is the block's array for a space that batches
        into one array (``Box``, ``Discrete``, ``MultiDiscrete``, ``MultiBinary``).

        Returns:
            The step's info (the sub-envs' own infos, as :meth:`step` hands them over).

        Raises:
            RuntimeError: with ``autoreset_mode=DISABLED``, if a sub-env whose episode ended
                was not reset (no sub-env is stepped then).
            ClosedEnvironmentError: after :meth:`close`.
        """
        infos = self._step_rows(actions, rewards, terminations, truncations)
        # As step() batches them (np.stack, with its casting rules), but into the block.
        concatenate(self.single_observation_space, self._env_obs, observations)
        return infos


class _LocatingStepper(SubEnvStepper):
    """A sub-env stepper whose exceptions carry the sub-env's offset in its group."""

    __slots__ = ()

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        """Reset as :class:`SubEnvStepper` does; an exception names this sub-env."""
        try:
            return super().reset(**kwargs)
        except BaseException as error:
            locate_sub_env(error, self.index)
            raise

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step as :class:`SubEnvStepper` does; an exception names this sub-env."""
        try:
            return super().step(action)
        except BaseException as error:
            locate_sub_env(error, self.index)
            raise


def native_group(
    vector_env_fn: Callable[[int], VectorEnv],
    num_envs: int,
    start: int = 0,
    expected: tuple[Any, Any] | None = None,
    owner: str = "PoolVectorEnv",
) -> VectorEnv:
    """Build a natively batched group of ``num_envs``; check its spaces against ``expected``.

    Raises:
        RuntimeError: if its single spaces differ from ``expected``.

    Example:
        >>> import palaestra as gym
        >>> envs = native_group(lambda n: gym.make_vec("CartPole-v1", n), 3)
        >>> envs.num_envs
        3
        >>> envs.close()
    """
    envs = vector_env_fn(num_envs)
    if expected is not None:
        problem = _misfit(
            owner, start, envs.single_observation_space, envs.single_action_space, expected
        )
        if problem is not None:
            envs.close()
            raise RuntimeError(problem)
    return envs


def _misfit(
    owner: str, index: int, observation_space: Any, action_space: Any, expected: Any
) -> str | None:
    if observation_space != expected[0]:
        return observation_misfit(owner, "same", index, observation_space, expected[0])
    if action_space != expected[1]:
        return action_misfit(index, action_space, expected[1])
    return None


def place_info(total: dict[str, Any], group: dict[str, Any], start: int, n: int) -> None:
    """Copy a group's info into the vector env's info (of ``n`` rows) at rows ``start...``.

    A group of single envs hands over each sub-env's own info (see
    :class:`GroupSyncVectorEnv`), merged as a sync vector env merges them; a natively
    batched group hands over batches.

    Example:
        >>> total = {}
        >>> place_info(total, {"x": np.array([1.5, 2.5])}, 1, 4)
        >>> total["x"]
        array([0. , 1.5, 2.5, 0. ])
    """
    for row, info in group.get(ROW_INFOS, ()):
        add_info(total, info, start + row, n)
    for key, value in group.items():
        if key == ROW_INFOS:
            continue
        if isinstance(value, dict):
            place_info(total.setdefault(key, {}), value, start, n)
            continue
        value = np.asarray(value)
        if key not in total:
            fill = None if value.dtype == object else 0
            total[key] = np.full((n, *value.shape[1:]), fill, dtype=value.dtype)
        total[key][start : start + len(value)] = value


def group_call(envs: Any, name: str, args: tuple, kwargs: dict) -> tuple[Any, ...]:
    """Run ``call`` on a group, whether it runs single envs or one natively batched env.

    A natively batched env has no per-sub-env objects: an attribute (or a method's result)
    that is a tuple or list with one item per sub-env is split; any other value is the
    value of every sub-env. ``set_attr`` on it needs the same value for all its sub-envs.

    Args:
        envs: the group's vector env.
        name: the attribute or method name; ``"_setattr"`` sets ``args = (name, values)``.
        args: positional arguments of the method.
        kwargs: keyword arguments of the method.

    Returns:
        One result per sub-env of the group.

    Raises:
        AttributeError: for a name the sub-envs do not have.
        ValueError: for differing ``set_attr`` values on a natively batched group.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", 2, vectorization_mode="vector_entry_point")
        >>> group_call(envs, "gravity", (), {})
        (9.8, 9.8)
        >>> envs.close()
    """
    count = envs.num_envs
    if name == "render":
        frames = envs.render()
        return (None,) * count if frames is None else tuple(frames)
    has_call = hasattr(type(envs), "call") and callable(getattr(envs, "call", None))
    if name == "_setattr":
        attribute, values = args
        if has_call:
            envs.set_attr(attribute, list(values))
            return (None,) * count
        first = values[0]
        if not all(value is first or _equal(value, first) for value in values):
            raise ValueError(
                f"set_attr({attribute!r}) got different values for the sub-environments of "
                f"one natively batched worker group ({type(envs).__name__}), which shares "
                "its attributes; set one value for all, or use single envs in the pool."
            )
        setattr(envs, attribute, first)
        return (None,) * count
    if has_call:
        return tuple(envs.call(name, *args, **kwargs))
    value = getattr(envs, name)
    if callable(value):
        value = value(*args, **kwargs)
    if isinstance(value, (tuple, list)) and len(value) == count:
        return tuple(value)
    return (value,) * count


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False
