"""The global registry of environment specs and the ways to add to it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from types import ModuleType

from palaestra import error, logger
from palaestra.envs.registration._ids import get_env_id, parse_env_id
from palaestra.envs.registration._specs import EnvCreator, EnvSpec, VectorEnvCreator, WrapperSpec

registry: dict[str, EnvSpec] = {}
"""Every registered spec by id. A plain dict: ``del registry[id]`` unregisters."""

current_namespace: str | None = None
"""The namespace that :func:`register` forces on new ids inside :func:`namespace`."""


@contextlib.contextmanager
def namespace(ns: str) -> Iterator[None]:
    """Register every environment inside the ``with`` block under namespace ``ns``.

    Args:
        ns: the namespace to use.

    Example:
        >>> with namespace("Docs"):
        ...     register("Snake-v0", entry_point="my_game:Snake")
        >>> "Docs/Snake-v0" in registry
        True
        >>> del registry["Docs/Snake-v0"]
    """
    global current_namespace
    outer_namespace = current_namespace
    current_namespace = ns
    try:
        yield
    finally:
        current_namespace = outer_namespace


def register_envs(env_module: ModuleType) -> None:
    """Do nothing; it marks a module imported only to register its envs as used.

    Linters and IDEs drop imports that look unused; ``register_envs(module)`` keeps them.

    Args:
        env_module: the module whose import registered environments.

    Example:
        >>> import palaestra.envs
        >>> register_envs(palaestra.envs)
    """


def register(
    id: str,
    entry_point: EnvCreator | str | None = None,
    reward_threshold: float | None = None,
    nondeterministic: bool = False,
    max_episode_steps: int | None = None,
    order_enforce: bool = True,
    disable_env_checker: bool = False,
    additional_wrappers: tuple[WrapperSpec, ...] = (),
    vector_entry_point: VectorEnvCreator | str | None = None,
    kwargs: dict | None = None,
) -> None:
    """Add an environment to the registry so :func:`make` can build it by id.

    Registering an id again replaces the old spec (with a warning).

    Args:
        id: ``[namespace/]name[-vN]``; inside :func:`namespace` the namespace is replaced.
        entry_point: the env class or factory, or ``"module:Attr"`` (imported on ``make``).
        reward_threshold: the return at which the task counts as solved.
        nondeterministic: whether equal seeds and actions can give different outcomes.
        max_episode_steps: default episode length for :class:`TimeLimit`.
        order_enforce: whether ``make`` applies :class:`OrderEnforcing`.
        disable_env_checker: whether ``make`` leaves out :class:`PassiveEnvChecker`.
        additional_wrappers: wrappers ``make`` applies after the standard ones.
        vector_entry_point: the natively vectorized env class or factory, or its path.
        kwargs: default constructor arguments (``make``'s kwargs override them).

    Raises:
        ValueError: neither entry point is given.
        palaestra.error.Error: ``id`` is malformed.
        palaestra.error.RegistrationError: mixing versioned and unversioned ids of one name.

    Example:
        >>> register("Docs/Snake-v0", entry_point="my_game:Snake", max_episode_steps=50)
        >>> registry["Docs/Snake-v0"].max_episode_steps
        50
        >>> del registry["Docs/Snake-v0"]
    """
    if entry_point is None and vector_entry_point is None:
        raise ValueError(
            f"Either `entry_point` or `vector_entry_point` (or both) must be provided to "
            f"register {id!r}."
        )
    kwargs = {} if kwargs is None else kwargs
    new_spec = EnvSpec(
        id=_id_in_current_namespace(id, kwargs),
        entry_point=entry_point,
        reward_threshold=reward_threshold,
        nondeterministic=nondeterministic,
        max_episode_steps=max_episode_steps,
        order_enforce=order_enforce,
        disable_env_checker=disable_env_checker,
        kwargs=kwargs,
        additional_wrappers=additional_wrappers,
        vector_entry_point=vector_entry_point,
    )
    _check_versioning_is_consistent(new_spec)
    if new_spec.id in registry:
        logger.warn(f"Overriding environment {new_spec.id} already in registry.")
    registry[new_spec.id] = new_spec


def _id_in_current_namespace(env_id: str, kwargs: dict) -> str:
    """Return ``env_id`` moved into the active :func:`namespace`, if one is active."""
    ns, name, version = parse_env_id(env_id)
    if current_namespace is None:
        return get_env_id(ns, name, version)
    custom_namespace = kwargs.get("namespace")
    if custom_namespace is not None and custom_namespace != current_namespace:
        logger.warn(
            f"Custom namespace `{custom_namespace}` is being overridden by namespace "
            f"`{current_namespace}`. If you are developing a plugin you shouldn't specify a "
            "namespace in `register` calls. The namespace is specified through the entry "
            "point package metadata."
        )
    return get_env_id(current_namespace, name, version)


def specs_named(ns: str | None, name: str) -> list[EnvSpec]:
    """Return the registered specs of every version of ``ns/name``, in registration order."""
    return [s for s in registry.values() if s.namespace == ns and s.name == name]


def _check_versioning_is_consistent(new_spec: EnvSpec) -> None:
    """Refuse mixing versioned and unversioned ids of one name (``make("Name")`` is ambiguous)."""
    if new_spec.version is not None:
        # An unversioned spec of the name sits under its one id: a lookup, not a scan of
        # the registry (import palaestra registers hundreds of versioned ids).
        unversioned = registry.get(get_env_id(new_spec.namespace, new_spec.name, None))
        versioned = []
    else:
        same_name = specs_named(new_spec.namespace, new_spec.name)
        unversioned = next((s for s in same_name if s.version is None), None)
        versioned = [s for s in same_name if s.version is not None]
    if new_spec.version is not None and unversioned is not None:
        raise error.RegistrationError(
            f"Can't register the versioned environment `{new_spec.id}` when the unversioned "
            f"environment `{unversioned.id}` of the same name already exists."
        )
    if new_spec.version is None and versioned:
        latest = max(versioned, key=lambda s: s.version)
        raise error.RegistrationError(
            f"Can't register the unversioned environment `{new_spec.id}` when the versioned "
            f"environment `{latest.id}` of the same name already exists. Note: the default "
            "behavior is that `gym.make` with the unversioned environment will return "
            "the latest versioned environment"
        )


def find_highest_version(ns: str | None, name: str) -> int | None:
    """Return the highest registered version of ``ns/name``, or ``None`` if it has none.

    Args:
        ns: the namespace, or ``None``.
        name: the environment name.

    Example:
        >>> find_highest_version(None, "CartPole")
        1
    """
    versions = [s.version for s in specs_named(ns, name) if s.version is not None]
    return max(versions, default=None)
