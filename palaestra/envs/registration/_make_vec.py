"""``make_vec``: build a vector environment of copies of a registered environment."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any

import numpy as np

from palaestra import error
from palaestra.core import Env, Wrapper
from palaestra.envs.registration._loading import resolve_creator
from palaestra.envs.registration._lookup import find_spec
from palaestra.envs.registration._make import make
from palaestra.envs.registration._specs import EnvSpec

if TYPE_CHECKING:
    from palaestra.vector import VectorEnv


class VectorizeMode(Enum):
    """How :func:`make_vec` runs its copies of an environment.

    Example:
        >>> VectorizeMode("sync")
        <VectorizeMode.SYNC: 'sync'>
    """

    ASYNC = "async"
    SYNC = "sync"
    VECTOR_ENTRY_POINT = "vector_entry_point"
    POOL = "pool"
    RAY = "ray"


def make_vec(
    id: str | EnvSpec,
    num_envs: int = 1,
    vectorization_mode: VectorizeMode | str | None = None,
    vector_kwargs: dict[str, Any] | None = None,
    wrappers: Sequence[Callable[[Env], Wrapper]] | None = None,
    **kwargs: Any,
) -> VectorEnv:
    """Build a vector environment running ``num_envs`` copies of a registered environment.

    A spec whose ``kwargs`` hold ``num_envs``, ``vectorization_mode``, ``vector_kwargs`` or
    ``wrappers`` (as ``envs.spec`` of a vector env does) supplies those instead of the
    arguments, so ``make_vec(envs.spec)`` rebuilds ``envs``.

    Args:
        id: an id (optionally ``"module:Id"``) or an :class:`EnvSpec`.
        num_envs: how many copies.
        vectorization_mode: ``"sync"`` (:class:`~palaestra.vector.SyncVectorEnv`),
            ``"async"`` (:class:`~palaestra.vector.AsyncVectorEnv`),
            ``"vector_entry_point"`` (the spec's native vector env) or ``"pool"`` (a
            :class:`~palaestra.vector.PoolVectorEnv` of worker processes) or ``"ray"`` (a
            :class:`~palaestra.vector.ray.RayVectorEnv` of Ray actors), as strings or
            :class:`VectorizeMode`. ``None`` picks the vector entry point if the spec has one,
            else sync.
        vector_kwargs: arguments for the vector env class (not for ``"vector_entry_point"``).
        wrappers: callables applied in order to each sub-environment (not for
            ``"vector_entry_point"``).
        kwargs: constructor arguments for each environment.

    Returns:
        The vector env; its ``spec.kwargs`` record the arguments needed to rebuild it.

    Raises:
        ValueError: unknown ``vectorization_mode`` (the message lists the valid ones).
        palaestra.error.Error: ``id`` has the wrong type or is unknown; the chosen mode needs
            an entry point the spec lacks; or ``vector_entry_point`` mode got
            ``vector_kwargs``, ``wrappers`` or a spec with ``additional_wrappers``.

    Example:
        >>> import palaestra as gym
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs.spec.kwargs
        {'num_envs': 2, 'vectorization_mode': 'sync'}
        >>> envs.close()
    """
    if isinstance(id, EnvSpec):
        env_spec = id
    elif isinstance(id, str):
        env_spec = find_spec(id)
    else:
        raise error.Error(f"Invalid id type: {type(id)}. Expected `str` or `EnvSpec`")

    # Sub-envs are built from a spec without kwargs, the kwargs being passed to ``make``.
    env_spec = copy.deepcopy(env_spec)
    env_kwargs, env_spec.kwargs = env_spec.kwargs, {}
    num_envs = env_kwargs.pop("num_envs", num_envs)
    vectorization_mode = env_kwargs.pop("vectorization_mode", vectorization_mode)
    vector_kwargs = env_kwargs.pop("vector_kwargs", vector_kwargs) or {}
    wrappers = env_kwargs.pop("wrappers", wrappers) or []
    env_kwargs.update(kwargs)
    mode = _vectorize_mode(vectorization_mode, env_spec)

    if mode is VectorizeMode.VECTOR_ENTRY_POINT:
        envs = _make_native_vector_env(id, env_spec, num_envs, vector_kwargs, wrappers, env_kwargs)
    elif mode in (VectorizeMode.POOL, VectorizeMode.RAY):
        envs = _make_group_vector_env(env_spec, mode, num_envs, vector_kwargs, wrappers, env_kwargs)
    else:
        envs = _make_python_vector_env(
            env_spec, mode, num_envs, vector_kwargs, wrappers, env_kwargs
        )

    envs.unwrapped.spec = _vector_spec(
        env_spec, env_kwargs, num_envs, mode, vector_kwargs, wrappers
    )
    from palaestra.vector.episodes import autoreset_mode

    autoreset_mode(envs, strict=False)
    return envs


def _vectorize_mode(mode: VectorizeMode | str | None, env_spec: EnvSpec) -> VectorizeMode:
    if mode is None:
        if env_spec.vector_entry_point is not None:
            return VectorizeMode.VECTOR_ENTRY_POINT
        return VectorizeMode.SYNC
    gymnasium_modes = ("async", "sync", "vector_entry_point")
    try:
        return VectorizeMode(mode)
    except ValueError as e:
        raise ValueError(
            f"Invalid vectorization mode: {mode!r}, valid modes: {list(gymnasium_modes)}, "
            f"and palaestra's {[m.value for m in VectorizeMode if m.value not in gymnasium_modes]}"
        ) from e


def _make_native_vector_env(
    id: str | EnvSpec,
    env_spec: EnvSpec,
    num_envs: int,
    vector_kwargs: dict[str, Any],
    wrappers: Sequence[Callable[[Env], Wrapper]],
    env_kwargs: dict[str, Any],
) -> VectorEnv:
    if vector_kwargs:
        raise error.Error(
            "Custom vector environment can be passed arguments only through kwargs and "
            f"`vector_kwargs` is not empty ({vector_kwargs})"
        )
    if wrappers:
        raise error.Error(
            "Cannot use `vector_entry_point` vectorization mode with the wrappers argument "
            f"({wrappers})."
        )
    if env_spec.additional_wrappers:
        raise error.Error(
            "Cannot use `vector_entry_point` vectorization mode with the additional_wrappers "
            f"parameter in spec being not empty ({env_spec.additional_wrappers})."
        )
    if env_spec.vector_entry_point is None:
        raise error.Error(
            f"Cannot create vectorized environment for {id} because it doesn't have a vector "
            "entry point defined."
        )
    env_creator = resolve_creator(env_spec.vector_entry_point)
    if env_spec.max_episode_steps is not None and "max_episode_steps" not in env_kwargs:
        env_kwargs["max_episode_steps"] = env_spec.max_episode_steps
    return env_creator(num_envs=num_envs, **env_kwargs)


def _make_python_vector_env(
    env_spec: EnvSpec,
    mode: VectorizeMode,
    num_envs: int,
    vector_kwargs: dict[str, Any],
    wrappers: Sequence[Callable[[Env], Wrapper]],
    env_kwargs: dict[str, Any],
) -> VectorEnv:
    from palaestra.vector import AsyncVectorEnv, SyncVectorEnv

    if env_spec.entry_point is None:
        raise error.Error(
            f"Cannot create vectorized environment for {env_spec.id} because it doesn't have "
            "an entry point defined."
        )

    make_sub_env = functools.partial(_sub_env, env_spec, dict(env_kwargs), list(wrappers))
    vector_class = SyncVectorEnv if mode is VectorizeMode.SYNC else AsyncVectorEnv
    return vector_class(env_fns=[make_sub_env] * num_envs, **vector_kwargs)


def _pool_native_group(env_spec: EnvSpec, env_kwargs: dict[str, Any], num_envs: int) -> VectorEnv:
    """Build one pool worker's natively batched group (a picklable worker-side builder)."""
    return make_vec(env_spec, num_envs, vectorization_mode="vector_entry_point", **env_kwargs)


def _make_group_vector_env(
    env_spec: EnvSpec,
    mode: VectorizeMode,
    num_envs: int,
    vector_kwargs: dict[str, Any],
    wrappers: Sequence[Callable[[Env], Wrapper]],
    env_kwargs: dict[str, Any],
) -> VectorEnv:
    """Build a pool or Ray vector env; per-sub-env parameters reach each group's rows.

    Groups of a natively batched env are built with the shared arguments, then each
    parameter given as a list/tuple/array of one value per sub-env is set with ``set_attr``,
    which hands every group the values of its own rows.
    """
    group_kwargs, row_values = dict(env_kwargs), {}
    sequences = [n for n, v in env_kwargs.items() if isinstance(v, (list, tuple, np.ndarray))]
    native = env_spec.vector_entry_point is not None and not (
        wrappers or env_spec.additional_wrappers
    )
    if sequences and native:
        names = getattr(resolve_creator(env_spec.vector_entry_point), "parameter_names", None)
        for name in set(sequences) & set(names() if callable(names) else ()):
            values = group_kwargs.pop(name)
            row_values[name] = values.tolist() if isinstance(values, np.ndarray) else values
    if mode is VectorizeMode.POOL:
        envs = _make_pool_vector_env(env_spec, num_envs, vector_kwargs, wrappers, group_kwargs)
    else:
        from palaestra.vector.ray import make_ray_vector_env

        envs = make_ray_vector_env(env_spec, num_envs, vector_kwargs, wrappers, group_kwargs)
    try:
        for name, values in row_values.items():
            envs.set_attr(name, list(values))
    except BaseException:
        envs.close()
        raise
    return envs


def _sub_env(
    env_spec: EnvSpec, env_kwargs: dict[str, Any], wrappers: Sequence[Callable[[Env], Wrapper]]
) -> Env:
    """Build one wrapped sub-env of a sync, async or pool vector env (picklable)."""
    env = make(env_spec, **env_kwargs)
    for wrapper in wrappers:
        env = wrapper(env)
    return env


# The name the Ray mode (palaestra.vector.ray) builds its single-env groups with.
_pool_single_env = _sub_env


def _make_pool_vector_env(
    env_spec: EnvSpec,
    num_envs: int,
    vector_kwargs: dict[str, Any],
    wrappers: Sequence[Callable[[Env], Wrapper]],
    env_kwargs: dict[str, Any],
) -> VectorEnv:
    """Return a :class:`~palaestra.vector.PoolVectorEnv` of ``num_envs`` copies of ``env_spec``.

    ``vector_kwargs`` are the pool's arguments (``num_workers``, ``batch_size``,
    ``autoreset_mode``, ``context``, ``timeout``, ``restart_failed``, ``max_restarts``,
    ``spin_us``, ``parent_group``, ``pin_workers``); the groups are :func:`_group_arguments`'.
    """
    from palaestra.vector.pool import PoolVectorEnv

    return PoolVectorEnv(
        **_group_arguments(env_spec, num_envs, vector_kwargs, wrappers, env_kwargs)
    )


def _group_arguments(
    env_spec: EnvSpec,
    num_envs: int,
    vector_kwargs: dict[str, Any],
    wrappers: Sequence[Callable[[Any], Any]],
    env_kwargs: dict[str, Any],
) -> dict[str, Any]:
    """Return the keyword arguments of a vector env of worker groups (pool, Ray mode).

    Workers run the spec's natively batched env when it has one and neither ``wrappers``
    nor the spec's additional wrappers need single envs (``vector_env_fn``, with
    ``autoreset_mode`` and the spec's time limit passed to it); otherwise a sync vector env
    of single envs made with ``make`` (``env_fns``). The other ``vector_kwargs`` are kept.
    """
    vector_kwargs = dict(vector_kwargs)
    native = env_spec.vector_entry_point is not None and not (
        wrappers or env_spec.additional_wrappers
    )
    if not native:
        make_one = functools.partial(_sub_env, env_spec, dict(env_kwargs), list(wrappers))
        return {"env_fns": [make_one] * num_envs, **vector_kwargs}
    kwargs = dict(env_kwargs)
    if "autoreset_mode" in vector_kwargs:
        kwargs["autoreset_mode"] = vector_kwargs.pop("autoreset_mode")
    if env_spec.max_episode_steps is not None:
        kwargs.setdefault("max_episode_steps", env_spec.max_episode_steps)
    return {
        "vector_env_fn": functools.partial(_pool_native_group, env_spec, kwargs),
        "num_envs": num_envs,
        **vector_kwargs,
    }


def _vector_spec(
    env_spec: EnvSpec,
    env_kwargs: dict[str, Any],
    num_envs: int,
    mode: VectorizeMode,
    vector_kwargs: dict[str, Any],
    wrappers: Sequence[Callable[[Env], Wrapper]],
) -> EnvSpec:
    """Return the spec from which ``make_vec`` rebuilds this vector env (defaults left out)."""
    vector_spec = copy.deepcopy(env_spec)
    vector_spec.kwargs = env_kwargs.copy()
    if num_envs != 1:
        vector_spec.kwargs["num_envs"] = num_envs
    vector_spec.kwargs["vectorization_mode"] = mode.value
    if vector_kwargs:
        vector_spec.kwargs["vector_kwargs"] = vector_kwargs
    if wrappers:
        vector_spec.kwargs["wrappers"] = wrappers
    return vector_spec
