"""Import PyTorch on demand, with an install hint when it is missing."""

from __future__ import annotations

from types import ModuleType

from palaestra import error

INSTALL_HINT = (
    "PyTorch is needed for palaestra.train: run `pip install torch==2.13.0`, "
    'then `pip install "palaestra[train]"`.'
)


def require_torch() -> ModuleType:
    """Return the ``torch`` module, or explain how to install it.

    Returns:
        The imported ``torch`` module.

    Raises:
        palaestra.error.DependencyNotInstalled: if PyTorch is not installed.

    Example:
        >>> require_torch().__name__
        'torch'
    """
    try:
        import torch
    except ImportError as exc:
        raise error.DependencyNotInstalled(INSTALL_HINT) from exc
    return torch
