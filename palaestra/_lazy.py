"""Lazy attribute loading for packages whose members pull in optional dependencies."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from typing import Any


def submodule_getattr(package: str) -> Callable[[str], Any]:
    """Build a module ``__getattr__`` that imports a package's submodules on first access.

    ``import palaestra as gym`` then makes ``gym.wrappers.common`` reachable as an attribute,
    as in Gymnasium, without importing every submodule up front.

    Args:
        package: the package's ``__name__``.

    Returns:
        A function to assign as the package's ``__getattr__``.

    Raises:
        AttributeError: (from the returned function) for a name that is not a submodule.

    Example:
        >>> getattr_ = submodule_getattr("palaestra.utils")
        >>> getattr_("seeding").__name__
        'palaestra.utils.seeding'
    """

    def __getattr__(name: str) -> Any:
        if not name.startswith("__"):
            qualified = f"{package}.{name}"
            try:
                found = importlib.util.find_spec(qualified) is not None
            except ModuleNotFoundError:
                found = False
            if found:
                return importlib.import_module(qualified)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


def lazy_attributes(
    package: str, locations: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Build a module ``__getattr__``/``__dir__`` pair that imports members on first access.

    Args:
        package: the package's ``__name__``.
        locations: attribute name to the submodule (relative to ``package``) defining it;
            a name mapped to itself is that submodule.

    Returns:
        ``(__getattr__, __dir__)`` to assign at module level. Names that are not members
        but submodules of ``package`` are imported and returned too.

    Example:
        >>> getattr_, dir_ = lazy_attributes("palaestra.utils", {"EzPickle": "ezpickle"})
        >>> getattr_("EzPickle").__name__
        'EzPickle'
        >>> dir_()
        ['EzPickle']
    """
    submodule = submodule_getattr(package)

    def __getattr__(name: str) -> Any:
        if name not in locations:
            return submodule(name)
        module = importlib.import_module(f"{package}.{locations[name]}")
        # A name that maps to itself is a subpackage, not a member of one.
        return module if locations[name] == name else getattr(module, name)

    def __dir__() -> list[str]:
        return sorted(locations)

    return __getattr__, __dir__
