"""Looking registered specs up by id, with did-you-mean errors for ids that are not there."""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable

from palaestra import error, logger
from palaestra.envs.registration._ids import get_env_id, parse_env_id
from palaestra.envs.registration._registry import find_highest_version, registry, specs_named
from palaestra.envs.registration._specs import EnvSpec
from palaestra.utils.library_name import library_name


def spec(env_id: str) -> EnvSpec:
    """Return the registered :class:`EnvSpec` of ``env_id`` (taken literally, no version guessing).

    Args:
        env_id: ``[namespace/]name[-vN]``.

    Raises:
        palaestra.error.NamespaceNotFound: no env has that namespace.
        palaestra.error.NameNotFound: no env has that name (with a did-you-mean hint).
        palaestra.error.VersionNotFound: the version is newer than any registered one.
        palaestra.error.DeprecatedEnv: a newer version replaces the requested one.
        palaestra.error.Error: the id is malformed or otherwise unregistered.
        AssertionError: the registry holds something other than an ``EnvSpec`` for the id.

    Example:
        >>> spec("CartPole-v1").reward_threshold
        475.0
    """
    env_spec = registry.get(env_id)
    if env_spec is None:
        ns, name, version = parse_env_id(env_id)
        _check_version_exists(ns, name, version)
        raise error.Error(f"No registered env with id: {env_id}")
    if not isinstance(env_spec, EnvSpec):
        raise AssertionError(
            f"Expected the registry for {env_id} to be an `EnvSpec`, actual type is "
            f"{type(env_spec)}; register envs with `register`, not by assigning to `registry`."
        )
    return env_spec


def find_spec(env_id: str) -> EnvSpec:
    """Look an id up as ``make`` understands it: ``"module:"`` prefix, unversioned = latest.

    Args:
        env_id: ``[module:][namespace/]name[-vN]``; ``module`` is imported first, except
            ``"gymnasium:Id"``: Gymnasium's ``Id``, adapted with ``palaestra.compat``.

    Raises:
        ModuleNotFoundError: ``module`` cannot be imported.
        palaestra.error.Error: the id is not registered (see :func:`spec` for the subclasses).
    """
    module, separator, env_name = env_id.partition(":")
    if separator and module == "gymnasium":  # a Gymnasium-registered env, adapted
        from palaestra.compat._registration import gymnasium_spec

        return gymnasium_spec(env_name)
    if separator:
        _import_id_module(module)
    else:
        env_name = env_id

    ns, name, version = parse_env_id(env_name)
    env_spec = registry.get(env_name)
    latest = find_highest_version(ns, name)
    if version is not None and latest is not None and latest > version:
        logger.deprecation(
            f"The environment {env_name} is out of date. You should consider "
            f"upgrading to version `v{latest}`."
        )
    if version is None and latest is not None:
        latest_id = get_env_id(ns, name, latest)
        env_spec = registry.get(latest_id)
        logger.warn(
            f"Using the latest versioned environment `{latest_id}` "
            f"instead of the unversioned environment `{env_name}`."
        )
        version = latest

    if env_spec is None:
        _check_version_exists(ns, name, version)
        raise error.Error(
            f"No registered env with id: {env_name}. Did you register it, or import the package "
            f"that registers it? Use `{library_name()}.pprint_registry()` to see all of the "
            "registered environments."
        )
    return env_spec


def _import_id_module(module: str) -> None:
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(
            f"{e}. Environment registration via importing a module failed. "
            f"Check whether '{module}' contains env registration and can be imported."
        ) from e


def _closest(word: str, candidates: Iterable[str]) -> str | None:
    matches = difflib.get_close_matches(word, list(candidates), n=1)
    return matches[0] if matches else None


def _check_namespace_exists(ns: str | None) -> None:
    if ns is None:
        return
    namespaces = {s.namespace for s in registry.values() if s.namespace is not None}
    if ns in namespaces:
        return
    suggestion = _closest(ns, namespaces)
    if suggestion is not None:
        hint = f"Did you mean: `{suggestion}`?"
    else:
        hint = f"Have you installed the proper package for {ns}?"
    raise error.NamespaceNotFound(f"Namespace {ns} not found. {hint}")


def _check_name_exists(ns: str | None, name: str) -> None:
    _check_namespace_exists(ns)
    names = {s.name for s in registry.values() if s.namespace == ns}
    if name in names:
        return
    suggestion = _closest(name, names)
    where = f" in namespace {ns}" if ns else ""
    hint = f" Did you mean: `{suggestion}`?" if suggestion is not None else ""
    raise error.NameNotFound(f"Environment `{name}` doesn't exist{where}.{hint}")


def _check_version_exists(ns: str | None, name: str, version: int | None) -> None:
    """Raise the most helpful error for an id that is not registered as written.

    Returns silently when the id is registered, or when nothing more specific than "not
    registered" can be said.
    """
    if get_env_id(ns, name, version) in registry:
        return
    _check_name_exists(ns, name)
    if version is None:
        return

    unversioned_id = get_env_id(ns, name, None)
    message = f"Environment version `v{version}` for environment `{unversioned_id}` doesn't exist."
    same_name = sorted(specs_named(ns, name), key=lambda s: -1 if s.version is None else s.version)
    default = next((s for s in same_name if s.version is None), None)
    if default is not None:
        message += f" It provides the default version `{default.id}`."
        if len(same_name) == 1:
            raise error.DeprecatedEnv(message)

    versioned = [s for s in same_name if s.version is not None]
    if not versioned:
        return
    latest = versioned[-1]
    if version > latest.version:
        listed = ", ".join(f"`v{s.version}`" for s in same_name)
        raise error.VersionNotFound(f"{message} It provides versioned environments: [ {listed} ].")
    if version < latest.version:
        raise error.DeprecatedEnv(
            f"Environment version v{version} for `{unversioned_id}` is deprecated. "
            f"Please use `{latest.id}` instead."
        )
