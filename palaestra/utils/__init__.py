"""Small utilities shared by environments and wrappers.

The heavier helpers live in their own modules and are imported on use:
``palaestra.utils.seeding``, ``env_checker``, ``passive_env_checker``, ``play``,
``save_video`` and ``performance``.
"""

from palaestra._lazy import submodule_getattr
from palaestra.utils.colorize import colorize
from palaestra.utils.ezpickle import EzPickle
from palaestra.utils.record_constructor import RecordConstructorArgs

__all__ = ["colorize", "EzPickle", "RecordConstructorArgs"]

# Submodules (e.g. ``palaestra.wrappers.common``) are imported when first named, as attributes.
__getattr__ = submodule_getattr(__name__)
