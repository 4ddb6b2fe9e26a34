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
        RuntimeError: ``as_gymnasium()`` made ``gymnasium`` an alias of palaestra here.
        palaestra.error.DependencyNotInstalled: Gymnasium is not installed (the message names
            the ``gymnasium`` extra).

    Example:
        >>> require_gymnasium().__name__
        'gymnasium'
    """
    from palaestra.compat._alias import is_active

    if is_active():
        raise RuntimeError(
            "palaestra.compat.as_gymnasium() is active: `gymnasium` is palaestra in this "
            "process, so there is no real Gymnasium to adapt to; pass palaestra envs to "
            "Gymnasium code directly"
        )
    try:
        import gymnasium
    except ImportError as e:
        raise DependencyNotInstalled(INSTALL_HINT) from e
    return gymnasium
