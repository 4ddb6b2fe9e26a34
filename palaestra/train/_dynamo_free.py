"""Build and save ``torch.optim`` optimizers without importing ``torch._dynamo``.

PyTorch marks ``Optimizer.add_param_group``, ``zero_grad``, ``state_dict`` and
``load_state_dict`` with ``torch._disable_dynamo``, which imports ``torch._dynamo`` on
their first call so that ``torch.compile`` skips them. That import takes about 2 s on a
quiet 2-core machine (8 s under load): more than a whole CartPole training run, paid just
for building an ``Adam``. It buys nothing while ``torch._dynamo`` is not loaded, since no
frame can then be under compilation.

:func:`skip_dynamo_import` stores, where ``torch._disable_dynamo`` looks for its cached
wrapper, a stand-in that calls the method directly while ``torch._dynamo`` is not
imported and hands over to ``torch._dynamo.disable`` (exactly PyTorch's behaviour) once
it is. It relies on two private details (the ``__dynamo_disable`` attribute and the
``__wrapped__`` of the decorated method); when a PyTorch release changes either, it does
nothing and the import happens as before. See docs/training.md ("Start-up").
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

_CACHE_ATTRIBUTE = "__dynamo_disable"
_METHODS = ("add_param_group", "zero_grad", "state_dict", "load_state_dict")


def skip_dynamo_import() -> bool:
    """Let ``torch.optim`` optimizers be built and saved without importing ``torch._dynamo``.

    Idempotent; changes nothing once ``torch._dynamo`` is loaded (by ``torch.compile`` or
    any optimizer ``step``).

    Returns:
        Whether the stand-ins are in place (``False`` on a PyTorch whose internals differ).

    Example:
        >>> skip_dynamo_import() in (True, False)
        True
    """
    import torch

    decorate = getattr(getattr(torch, "_compile", None), "_disable_dynamo", None)
    if decorate is None:
        return False
    methods = [getattr(torch.optim.Optimizer, name, None) for name in _METHODS]
    originals = [getattr(method, "__wrapped__", None) for method in methods]
    if any(original is None for original in originals):
        return False
    for original in originals:
        if getattr(original, _CACHE_ATTRIBUTE, None) is None:
            setattr(original, _CACHE_ATTRIBUTE, _deferring(original))
    return True


def _deferring(method: Callable[..., Any]) -> Callable[..., Any]:
    """Call ``method`` directly until ``torch._dynamo`` is imported, then dynamo's wrapper."""
    disabled: list[Callable[..., Any]] = []

    def call(*args: Any, **kwargs: Any) -> Any:
        dynamo = sys.modules.get("torch._dynamo")
        if dynamo is None:
            return method(*args, **kwargs)
        if not disabled:
            disabled.append(dynamo.disable(method, True, wrapping=False))
        return disabled[0](*args, **kwargs)

    return call
