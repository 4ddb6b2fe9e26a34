"""Importing Gymnasium lazily, with an install hint when it is missing."""

from __future__ import annotations

from types import ModuleType

from palaestra.error import DependencyNotInstalled

INSTALL_HINT = (
    "Gymnasium is not installed; the interop adapters need it: run "
    '`pip install "palaestra[gymnasium]"`'
)


def require_gymnasium() -> ModuleType:
    """Import and return :mod:`gymnasium`.

    Raises:
        palaestra.error.DependencyNotInstalled: Gymnasium is not installed (the message names
            the ``gymnasium`` extra).

    Example:
        >>> require_gymnasium().__name__
        'gymnasium'
    """
    try:
        import gymnasium
    except ImportError as e:
        raise DependencyNotInstalled(INSTALL_HINT) from e
    return gymnasium
