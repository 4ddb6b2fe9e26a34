"""Environment ids ``[namespace/]name[-vN]``: splitting them into parts and joining them back."""

from __future__ import annotations

import re

from palaestra import error

# The name is matched lazily so that a trailing ``-vN`` is read as the version.
ENV_ID_RE = re.compile(r"(?:(?P<namespace>[\w:-]+)/)?(?P<name>[\w:.-]+?)(?:-v(?P<version>\d+))?")


def parse_env_id(env_id: str) -> tuple[str | None, str, int | None]:
    """Split an id ``[namespace/]name[-vN]`` into its namespace, name and version.

    Args:
        env_id: the id to split.

    Returns:
        ``(namespace, name, version)``; namespace and version are ``None`` when absent.

    Raises:
        palaestra.error.Error: the id does not have that form.

    Example:
        >>> parse_env_id("MyGame/Snake-v3")
        ('MyGame', 'Snake', 3)
        >>> parse_env_id("Snake")
        (None, 'Snake', None)
    """
    match = ENV_ID_RE.fullmatch(env_id)
    if match is None:
        raise error.Error(
            f"Malformed environment ID: {env_id}. (Currently all IDs must be of the form "
            "[namespace/](env-name)-v(version). (namespace is optional))"
        )
    version = match["version"]
    return match["namespace"], match["name"], None if version is None else int(version)


def get_env_id(ns: str | None, name: str, version: int | None) -> str:
    """Join a namespace, name and version into an id; the inverse of :func:`parse_env_id`.

    Args:
        ns: the namespace, or ``None``.
        name: the environment name.
        version: the version number, or ``None``.

    Returns:
        The environment id.

    Example:
        >>> get_env_id("MyGame", "Snake", 3)
        'MyGame/Snake-v3'
        >>> get_env_id(None, "Snake", None)
        'Snake'
    """
    env_id = name if ns is None else f"{ns}/{name}"
    return env_id if version is None else f"{env_id}-v{version}"
