"""Choosing how the natively batched environments compute: plain numpy or numba.

Example:
    >>> resolve_accelerator("numpy")
    'numpy'
"""

from __future__ import annotations

import importlib.util
import os

from palaestra.error import DependencyNotInstalled

__all__ = ["ACCELERATOR_VARIABLE", "ACCELERATORS", "resolve_accelerator"]

ACCELERATOR_VARIABLE = "PALAESTRA_ACCELERATOR"
ACCELERATORS = ("numpy", "numba")


def resolve_accelerator(requested: str | None) -> str:
    """Return the accelerator to use: ``requested``, else the environment variable, else numpy.

    Args:
        requested: ``"numpy"``, ``"numba"`` or ``None``.

    Raises:
        ValueError: for an unknown name.
        palaestra.error.DependencyNotInstalled: for ``"numba"`` when numba is missing.
    """
    choice = requested or os.environ.get(ACCELERATOR_VARIABLE) or "numpy"
    if choice not in ACCELERATORS:
        raise ValueError(
            f"Unknown accelerator {choice!r} (from the argument or ${ACCELERATOR_VARIABLE}); "
            f"expected one of {ACCELERATORS}."
        )
    if choice == "numba" and importlib.util.find_spec("numba") is None:
        raise DependencyNotInstalled(
            "The numba accelerator needs numba: `pip install palaestra[fast]`, or use "
            "accelerator='numpy'."
        )
    return choice
