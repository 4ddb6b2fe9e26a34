"""Lazy attribute loading for packages whose members pull in optional dependencies."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_attributes(
    package: str, locations: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Build a module ``__getattr__``/``__dir__`` pair that imports members on first access.

    Args:
        package: the package's ``__name__``.
        locations: attribute name to the submodule (relative to ``package``) defining it;
            a name mapped to itself is that submodule.

    Returns:
        ``(__getattr__, __dir__)`` to assign at module level.

    Example:
        >>> getattr_, dir_ = lazy_attributes("palaestra.utils", {"EzPickle": "ezpickle"})
        >>> getattr_("EzPickle").__name__
        'EzPickle'
        >>> dir_()
        ['EzPickle']
    """

    def __getattr__(name: str) -> Any:
        if name not in locations:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(f"{package}.{locations[name]}")
        # A name that maps to itself is a subpackage, not a member of one.
        return module if locations[name] == name else getattr(module, name)

    def __dir__() -> list[str]:
        return sorted(locations)

    return __getattr__, __dir__
