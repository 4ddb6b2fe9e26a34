"""Choosing how a natively batched environment computes: plain numpy or numba.

``"auto"`` (the default) takes numba when it is installed and numpy otherwise; the
``PALAESTRA_ACCELERATOR`` environment variable overrides the default for a whole process
(``PALAESTRA_ACCELERATOR=numpy`` runs everything without numba, as a machine without it would).
The natively batched classic-control envs take ``"auto"`` in tiers: they start on numpy and
move to numba once a run has lasted long enough to pay for loading it
(:mod:`palaestra.vector.native.tiers`).

Example:
    >>> resolve_accelerator("numpy")
    'numpy'
    >>> resolve_accelerator("auto") in ("numpy", "numba")
    True
    >>> requested_accelerator("auto")
    'auto'
"""

from __future__ import annotations

import functools
import importlib.util
import os

from palaestra.error import DependencyNotInstalled

__all__ = [
    "ACCELERATOR_VARIABLE",
    "ACCELERATORS",
    "numba_available",
    "numba_installed",
    "requested_accelerator",
    "resolve_accelerator",
]

ACCELERATOR_VARIABLE = "PALAESTRA_ACCELERATOR"
ACCELERATORS = ("auto", "numpy", "numba")


@functools.cache
def numba_available() -> bool:
    """Whether numba is installed and imports (checked once per process).

    A numba that is installed but fails to import (say, built for another numpy) counts as
    missing, so that ``"auto"`` falls back to numpy instead of failing.

    Example:
        >>> isinstance(numba_available(), bool)
        True
    """
    if importlib.util.find_spec("numba") is None:
        return False
    try:
        import numba  # noqa: F401
    except Exception:  # any failure to import means: not usable here
        return False
    return True


@functools.cache
def numba_installed() -> bool:
    """Whether numba is installed, checked without importing it (checked once per process).

    Importing numba costs a few tenths of a second and ~50 MiB: the tiered ``"auto"`` asks
    only this until it actually loads the compiled path (and stays on numpy if that fails).

    Example:
        >>> isinstance(numba_installed(), bool)
        True
    """
    return importlib.util.find_spec("numba") is not None


def requested_accelerator(requested: str | None) -> str:
    """Return the accelerator asked for: ``"auto"``, ``"numpy"`` or ``"numba"``.

    Args:
        requested: a name or ``None``; ``None`` reads ``$PALAESTRA_ACCELERATOR``, and without
            it means ``"auto"``.

    Raises:
        ValueError: for an unknown name (from the argument or the environment variable).

    Example:
        >>> requested_accelerator("numpy")
        'numpy'
    """
    choice = requested or os.environ.get(ACCELERATOR_VARIABLE) or "auto"
    if choice not in ACCELERATORS:
        raise ValueError(
            f"Unknown accelerator {choice!r} (from the argument or ${ACCELERATOR_VARIABLE}); "
            f"expected one of {ACCELERATORS}."
        )
    return choice


def resolve_accelerator(requested: str | None) -> str:
    """Return the accelerator to use, ``"numpy"`` or ``"numba"``.

    Args:
        requested: ``"auto"``, ``"numpy"``, ``"numba"`` or ``None``; ``None`` reads
            ``$PALAESTRA_ACCELERATOR``, and without it means ``"auto"``. ``"auto"`` is numba
            when it is installed, numpy otherwise.

    Raises:
        ValueError: for an unknown name (from the argument or the environment variable).
        palaestra.error.DependencyNotInstalled: for ``"numba"`` when numba is missing.
    """
    choice = requested_accelerator(requested)
    if choice == "auto":
        return "numba" if numba_available() else "numpy"
    if choice == "numba" and not numba_available():
        raise DependencyNotInstalled(
            'The numba accelerator needs numba: `pip install "palaestra[fast]"`, or use '
            "accelerator='numpy' (or 'auto', which falls back to numpy)."
        )
    return choice
