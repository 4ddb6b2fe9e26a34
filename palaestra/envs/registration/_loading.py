"""Turning entry points, callables or ``"module:Attr"`` strings, into the objects they name."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from palaestra.envs.registration._specs import EnvCreator, VectorEnvCreator


def load_env_creator(name: str) -> EnvCreator | VectorEnvCreator:
    """Import the object named by an entry point string ``"module.path:Attr"``.

    Args:
        name: the entry point.

    Returns:
        The named attribute, normally an env class.

    Raises:
        ValueError: ``name`` is not of the form ``"module:Attr"``.
        ModuleNotFoundError: the module cannot be imported.
        AttributeError: the module has no such attribute.

    Example:
        >>> load_env_creator("palaestra.core:Env").__name__
        'Env'
    """
    module_name, separator, attribute = name.partition(":")
    if not separator or not module_name or not attribute or ":" in attribute:
        # Gymnasium unpacks ``name.split(":")``; its error text starts ours.
        parts = name.count(":") + 1
        unpacking = (
            "not enough values to unpack (expected 2, got 1)"
            if parts < 2
            else "too many values to unpack (expected 2)"
            if parts > 2
            else "Empty module name"
            if not module_name
            else "the attribute name is empty"
        )
        raise ValueError(
            f"{unpacking}: entry point {name!r} is malformed: expected "
            "'module.path:Attribute', e.g. 'palaestra.envs.classic_control.cartpole:CartPoleEnv'."
        )
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attribute)
    except AttributeError as e:
        raise AttributeError(
            f"Entry point {name!r}: module {module_name!r} has no attribute {attribute!r}."
        ) from e


def resolve_creator(entry_point: Callable | str) -> Callable:
    """Return ``entry_point`` itself when callable, else the object its string names.

    Raises:
        ValueError, ModuleNotFoundError, AttributeError: see :func:`load_env_creator`.
    """
    return entry_point if callable(entry_point) else load_env_creator(entry_point)
