"""Registry bridges: palaestra ids in Gymnasium's registry, Gymnasium ids in ``palaestra.make``.

* :func:`register_in_gymnasium` adds every palaestra id to Gymnasium's registry under a
  ``palaestra/`` namespace; ``gymnasium.make("palaestra/Taxi-v4")`` then builds the palaestra
  env through :func:`~palaestra.compat.to_gymnasium`, with Gymnasium's own wrapper stack.
* ``palaestra.make("gymnasium:CartPole-v1")`` (and ``make_vec``) builds the Gymnasium env
  through :func:`~palaestra.compat.from_gymnasium`; the spec that makes this possible comes
  from :func:`gymnasium_spec`.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

from palaestra.compat._gymnasium import require_gymnasium
from palaestra.envs.registration import EnvSpec, registry

__all__ = [
    "register_in_gymnasium",
    "gymnasium_id",
    "gymnasium_spec",
    "make_for_gymnasium",
    "make_vec_for_gymnasium",
    "make_from_gymnasium",
    "make_vec_from_gymnasium",
    "GYMNASIUM_PREFIX",
]

GYMNASIUM_PREFIX = "gymnasium:"
_HERE = "palaestra.compat._registration"


def gymnasium_id(palaestra_id: str, namespace: str = "palaestra") -> str:
    """Return the id under which :func:`register_in_gymnasium` registers ``palaestra_id``.

    Gymnasium ids have a single namespace, so a namespaced palaestra id keeps its namespace
    as a dotted prefix of the name.

    Args:
        palaestra_id: a palaestra id.
        namespace: the Gymnasium namespace.

    Example:
        >>> gymnasium_id("Taxi-v4"), gymnasium_id("phys2d/CartPole-v1")
        ('palaestra/Taxi-v4', 'palaestra/phys2d.CartPole-v1')
    """
    return f"{namespace}/{palaestra_id.replace('/', '.')}"


def make_for_gymnasium(
    palaestra_id: str | None = None, palaestra_spec: EnvSpec | None = None, **kwargs: Any
) -> Any:
    """Entry point of the Gymnasium specs: ``to_gymnasium(palaestra.make(...))``.

    Gymnasium's ``make`` adds the time limit, order enforcement and checker itself (from its
    spec), so the palaestra env is made without them.

    Args:
        palaestra_id: the palaestra id to make (the specs :func:`register_in_gymnasium` adds).
        palaestra_spec: the palaestra spec to make (the spec of a :class:`ToGymnasium`).
        kwargs: constructor arguments.

    Raises:
        TypeError: neither ``palaestra_id`` nor ``palaestra_spec`` is given.

    Example:
        >>> make_for_gymnasium("CartPole-v1").spec.max_episode_steps is None
        True
    """
    from palaestra.compat import to_gymnasium
    from palaestra.envs.registration import make

    if palaestra_spec is not None:
        bare = dataclasses.replace(
            palaestra_spec, max_episode_steps=None, order_enforce=False, disable_env_checker=True
        )
        return to_gymnasium(make(bare, **kwargs))
    if palaestra_id is None:
        raise TypeError("make_for_gymnasium needs `palaestra_id` or `palaestra_spec`.")
    return to_gymnasium(
        make(palaestra_id, max_episode_steps=-1, disable_env_checker=True, **kwargs)
    )


def make_vec_for_gymnasium(palaestra_id: str, num_envs: int = 1, **kwargs: Any) -> Any:
    """Vector entry point of the Gymnasium registrations: palaestra's native vector env.

    Args:
        palaestra_id: the palaestra id.
        num_envs: the number of sub-environments.
        kwargs: constructor arguments (``max_episode_steps`` among them).

    Example:
        >>> envs = make_vec_for_gymnasium("CartPole-v1", num_envs=2)
        >>> envs.num_envs
        2
        >>> envs.close()
    """
    from palaestra.compat import to_gymnasium_vector
    from palaestra.envs.registration import make_vec

    return to_gymnasium_vector(
        make_vec(palaestra_id, num_envs, vectorization_mode="vector_entry_point", **kwargs)
    )


def register_in_gymnasium(ids: list[str] | None = None, namespace: str = "palaestra") -> list[str]:
    """Register palaestra ids in Gymnasium's registry as ``f"{namespace}/{id}"``.

    The Gymnasium spec carries the palaestra spec's step limit, reward threshold and checker
    and order settings (Gymnasium's ``make`` applies them) and a vector entry point where the
    palaestra env has one (``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``
    runs palaestra's native batch). Calling it again registers only new ids.

    Args:
        ids: the palaestra ids to register (default: all of them).
        namespace: the Gymnasium namespace.

    Returns:
        The Gymnasium ids registered by this call.

    Raises:
        palaestra.error.Error: an id in ``ids`` is not registered in palaestra.
        palaestra.error.DependencyNotInstalled: Gymnasium is not installed.

    Example:
        >>> import gymnasium
        >>> _ = register_in_gymnasium(["Taxi-v4"])  # returns the ids it newly registered
        >>> "palaestra/Taxi-v4" in gymnasium.registry
        True
        >>> gymnasium.make("palaestra/Taxi-v4").reset(seed=1)[0]
        252
    """
    gymnasium = require_gymnasium()
    from palaestra.envs.registration import spec as palaestra_spec

    specs = (
        [palaestra_spec(env_id) for env_id in ids] if ids is not None else list(registry.values())
    )
    registered = []
    for env_spec in specs:
        target = gymnasium_id(env_spec.id, namespace)
        if target in gymnasium.registry:
            continue
        gymnasium.register(
            id=target,
            entry_point=f"{_HERE}:make_for_gymnasium",
            reward_threshold=env_spec.reward_threshold,
            nondeterministic=env_spec.nondeterministic,
            max_episode_steps=env_spec.max_episode_steps,
            order_enforce=env_spec.order_enforce,
            disable_env_checker=env_spec.disable_env_checker,
            kwargs={"palaestra_id": env_spec.id},
            vector_entry_point=(
                None if env_spec.vector_entry_point is None else f"{_HERE}:make_vec_for_gymnasium"
            ),
        )
        registered.append(target)
    return registered


def make_from_gymnasium(
    gymnasium_id: str | None = None, gymnasium_spec: Any = None, **kwargs: Any
) -> Any:
    """Entry point of ``"gymnasium:"`` ids and adapted specs: a made Gymnasium env, adapted.

    Args:
        gymnasium_id: a Gymnasium id (``"module:Id"`` imports ``module`` first, as Gymnasium
            does); Gymnasium's ``make`` applies its whole wrapper stack.
        gymnasium_spec: a Gymnasium spec (the spec of a :class:`FromGymnasium`), made without
            its time limit, order enforcement and checker, which palaestra's ``make`` applies.
        kwargs: arguments for ``gymnasium.make``.

    Raises:
        TypeError: neither ``gymnasium_id`` nor ``gymnasium_spec`` is given.

    Example:
        >>> make_from_gymnasium("CartPole-v1").spec.id
        'CartPole-v1'
    """
    from palaestra.compat import from_gymnasium

    gymnasium = require_gymnasium()
    if gymnasium_spec is not None:
        bare = dataclasses.replace(
            gymnasium_spec, max_episode_steps=None, order_enforce=False, disable_env_checker=True
        )
        return from_gymnasium(gymnasium.make(bare, **kwargs))
    if gymnasium_id is None:
        raise TypeError("make_from_gymnasium needs `gymnasium_id` or `gymnasium_spec`.")
    return from_gymnasium(gymnasium.make(gymnasium_id, **kwargs))


def make_vec_from_gymnasium(gymnasium_id: str, num_envs: int = 1, **kwargs: Any) -> Any:
    """Vector entry point of ``"gymnasium:"`` ids: Gymnasium's own vector entry point.

    Args:
        gymnasium_id: a Gymnasium id.
        num_envs: the number of sub-environments.
        kwargs: arguments for ``gymnasium.make_vec``.

    Example:
        >>> envs = make_vec_from_gymnasium("CartPole-v1", num_envs=2)
        >>> type(envs).__name__, envs.num_envs
        ('FromGymnasiumVector', 2)
        >>> envs.close()
    """
    from palaestra.compat import from_gymnasium_vector

    kwargs.pop("max_episode_steps", None)  # Gymnasium's make_vec adds its spec's own
    return from_gymnasium_vector(
        require_gymnasium().make_vec(
            gymnasium_id, num_envs, vectorization_mode="vector_entry_point", **kwargs
        )
    )


def gymnasium_spec(gymnasium_id: str) -> EnvSpec:
    """Return the palaestra spec behind ``palaestra.make("gymnasium:" + gymnasium_id)``.

    Gymnasium's ``make`` builds the env with its own wrappers (time limit included), so the
    spec adds none; ``reward_threshold`` and ``nondeterministic`` are Gymnasium's.

    Args:
        gymnasium_id: a Gymnasium id, optionally ``"module:Id"``.

    Raises:
        gymnasium.error.Error: Gymnasium does not know the id.
        palaestra.error.DependencyNotInstalled: Gymnasium is not installed.

    Example:
        >>> gymnasium_spec("CartPole-v1").reward_threshold
        475.0
    """
    gymnasium = require_gymnasium()
    module, separator, name = gymnasium_id.partition(":")
    if separator:
        importlib.import_module(module)
    else:
        name = gymnasium_id
    source = gymnasium.spec(name)
    return EnvSpec(
        id=source.id,
        entry_point=f"{_HERE}:make_from_gymnasium",
        reward_threshold=source.reward_threshold,
        nondeterministic=source.nondeterministic,
        max_episode_steps=None,
        order_enforce=False,
        disable_env_checker=True,
        kwargs={"gymnasium_id": gymnasium_id},
        vector_entry_point=(
            None if source.vector_entry_point is None else f"{_HERE}:make_vec_from_gymnasium"
        ),
    )
