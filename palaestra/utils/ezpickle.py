"""Pickling by re-construction, for objects that hold unpicklable state."""

from __future__ import annotations

from typing import Any


class EzPickle:
    """Make an object picklable by recording its constructor arguments.

    Subclasses call ``EzPickle.__init__(self, *args, **kwargs)`` with the arguments they were
    built with; unpickling builds a new object from them instead of copying ``__dict__``. Use it
    for environments that own windows, simulators or other state that cannot be pickled.

    Example:
        >>> import copy
        >>> class Thing(EzPickle):
        ...     def __init__(self, size):
        ...         EzPickle.__init__(self, size)
        ...         self.size = size
        >>> copy.copy(Thing(3)).size
        3
    """

    def __init__(self, *args: Any, **kwargs: Any):
        self._ezpickle_args = args
        self._ezpickle_kwargs = kwargs

    def __getstate__(self) -> dict[str, Any]:
        return {"_ezpickle_args": self._ezpickle_args, "_ezpickle_kwargs": self._ezpickle_kwargs}

    def __setstate__(self, d: dict[str, Any]) -> None:
        rebuilt = type(self)(*d["_ezpickle_args"], **d["_ezpickle_kwargs"])
        self.__dict__.update(rebuilt.__dict__)
