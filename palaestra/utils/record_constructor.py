"""Recording of constructor arguments, so a wrapper stack can be written into an env spec."""

from __future__ import annotations

from copy import deepcopy
from typing import Any


class RecordConstructorArgs:
    """Remember the keyword arguments an object was constructed with in ``_saved_kwargs``.

    Wrappers inherit from it so that ``env.spec.additional_wrappers`` records how to rebuild
    them. Only the first call records (a subclass's arguments win over its parents').

    Args:
        _disable_deepcopy: store the arguments as given instead of a deep copy (for arguments
            that cannot be copied, such as lambdas closing over environments).
        kwargs: the constructor's arguments.

    Example:
        >>> class Scaled(RecordConstructorArgs):
        ...     def __init__(self, scale):
        ...         RecordConstructorArgs.__init__(self, scale=scale)
        >>> Scaled(2.0)._saved_kwargs
        {'scale': 2.0}
    """

    def __init__(self, *, _disable_deepcopy: bool = False, **kwargs: Any):
        if not hasattr(self, "_saved_kwargs"):
            self._saved_kwargs = kwargs if _disable_deepcopy else deepcopy(kwargs)
