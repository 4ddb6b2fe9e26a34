"""Run palaestra's numpy dynamics on another array namespace (jax.numpy) from the same source.

The dynamics of the classic-control and toy-text environments are pure functions written
against ``np``. :func:`rebind` returns a copy of such a function that shares its code object
(so no equation is written twice) but resolves ``np`` to another namespace, recursively for
the palaestra functions it calls. The few array *helpers* whose numpy versions branch on
Python scalars for speed (``select``, ``clip``, ``components``...) are replaced by
trace-friendly versions, so the rebound functions can be ``jax.jit``-ed and ``jax.vmap``-ed.

Example:
    >>> import numpy as np
    >>> from palaestra.envs.classic_control.dynamics.pendulum import angle_normalize
    >>> rebind(angle_normalize, np)(np.array([4.0])).round(4).tolist()
    [-2.2832]
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable
from typing import Any

__all__ = ["rebind", "jax_namespace", "import_jax"]

_PACKAGES = ("palaestra.envs.",)
# Angle wraps per traced wrap_angle call (one acrobot step moves an angle < 2 turns).
_WRAPS = 2


def import_jax() -> Any:
    """Import and return jax, or explain how to install it.

    Raises:
        palaestra.error.DependencyNotInstalled: if jax is not installed.
    """
    try:
        import jax
    except ImportError as e:
        from palaestra.error import DependencyNotInstalled

        raise DependencyNotInstalled(
            "jax is not installed; the functional jax environments need it: "
            'run `pip install "palaestra[jax]"`'
        ) from e
    return jax


class _JaxNamespace:
    """``jax.numpy`` with ``float64`` meaning jax's default float (float32 without x64)."""

    def __init__(self) -> None:
        import jax.numpy as jnp

        self._jnp = jnp
        self.float64 = jnp.result_type(float)
        self.ndarray = __import__("jax").Array
        self.asanyarray = jnp.asarray

    def __getattr__(self, name: str) -> Any:
        return getattr(self._jnp, name)


def _jax_helpers(xp: Any) -> dict[str, Callable[..., Any]]:
    def components(state: Any) -> Any:
        return tuple(state[..., i] for i in range(state.shape[-1]))

    def stack_components(*parts: Any, dtype: Any = None) -> Any:
        return xp.stack(xp.broadcast_arrays(*parts), axis=-1).astype(dtype or xp.float64)

    def select(condition: Any, if_true: Any, if_false: Any) -> Any:
        return xp.where(condition, if_true, if_false)

    def clip(value: Any, low: Any, high: Any) -> Any:
        return xp.clip(value, low, high)

    def any_true(condition: Any) -> Any:
        return xp.any(condition)

    def rounded_like(value: Any, other: Any) -> Any:
        return xp.asarray(value, dtype=xp.result_type(other))

    def as_type(value: Any, scalar_type: Any) -> Any:
        return xp.asarray(value).astype(scalar_type)

    def wrap_angle(angle: Any, low: float = -math.pi, high: float = math.pi) -> Any:
        # The numpy loop shifts while any angle is out of range; a traced loop cannot test
        # that, so it shifts a fixed number of times: enough for one step's change.
        span = high - low
        for _ in range(_WRAPS):
            angle = xp.where(angle > high, angle - span, angle)
        for _ in range(_WRAPS):
            angle = xp.where(angle < low, angle + span, angle)
        return angle

    return {
        "wrap_angle": wrap_angle,
        "components": components,
        "stack_components": stack_components,
        "select": select,
        "clip": clip,
        "any_true": any_true,
        "rounded_like": rounded_like,
        "as_type": as_type,
    }


_JAX: Any = None


def jax_namespace() -> Any:
    """Return the ``np`` stand-in for jax (made once).

    Raises:
        palaestra.error.DependencyNotInstalled: if jax is not installed.
    """
    global _JAX
    if _JAX is None:
        import_jax()
        _JAX = _JaxNamespace()
    return _JAX


_CACHE: dict[tuple[int, int], Callable[..., Any]] = {}


def rebind(func: Callable[..., Any], xp: Any) -> Callable[..., Any]:
    """Return ``func`` with ``np`` resolved to ``xp`` (its palaestra callees likewise).

    With numpy itself the function is returned unchanged.

    Args:
        func: a pure function of palaestra's dynamics.
        xp: the namespace: ``numpy``, or :func:`jax_namespace`'s stand-in.
    """
    import numpy

    if xp is numpy:
        return func
    key = (id(func), id(xp))
    if key in _CACHE:
        return _CACHE[key]
    helpers = _jax_helpers(xp)
    scope = dict(func.__globals__)
    scope["np"] = xp
    copy = types.FunctionType(
        func.__code__, scope, func.__name__, func.__defaults__, func.__closure__
    )
    copy.__kwdefaults__ = func.__kwdefaults__
    _CACHE[key] = copy
    for name in func.__code__.co_names:
        value = func.__globals__.get(name)
        if name in helpers:
            scope[name] = helpers[name]
        elif isinstance(value, types.FunctionType) and value.__module__.startswith(_PACKAGES):
            scope[name] = rebind(value, xp)
    return copy
