"""Copying an ``EnvSpec`` between palaestra's and Gymnasium's dataclasses of the same shape."""

from __future__ import annotations

import dataclasses
from typing import Any

from palaestra import logger


def convert_spec(spec: Any, env_spec_class: type, wrapper_spec_class: type) -> Any:
    """Return ``spec`` rebuilt as ``env_spec_class``, its wrapper specs as ``wrapper_spec_class``.

    Both libraries' specs have the same fields; the ones set in ``__init__`` are copied (the
    kwargs dict shallowly). An id the other library cannot parse gives ``None`` and a warning.

    Args:
        spec: an ``EnvSpec`` of either library, or ``None``.
        env_spec_class: the target ``EnvSpec`` class.
        wrapper_spec_class: the target ``WrapperSpec`` class.

    Example:
        >>> from palaestra.envs.registration import EnvSpec, WrapperSpec
        >>> convert_spec(EnvSpec("A-v0", kwargs={"x": 1}), EnvSpec, WrapperSpec).kwargs
        {'x': 1}
    """
    if spec is None:
        return None
    values: dict[str, Any] = {}
    for field in dataclasses.fields(env_spec_class):
        if field.init and hasattr(spec, field.name):
            values[field.name] = getattr(spec, field.name)
    values["kwargs"] = dict(values.get("kwargs") or {})
    values["additional_wrappers"] = tuple(
        wrapper_spec_class(wrapper.name, wrapper.entry_point, wrapper.kwargs)
        for wrapper in values.get("additional_wrappers", ())
    )
    try:
        return env_spec_class(**values)
    except Exception as e:  # an id the other library rejects
        logger.warn(
            f"The spec {spec.id!r} could not be converted ({e}); the adapter's spec is None."
        )
        return None


def _adapter_spec(spec: Any, env_spec_class: type, maker: str, key: str, library: str) -> Any:
    """Return an ``env_spec_class`` whose entry point ``maker`` rebuilds ``spec`` (under ``key``).

    It copies ``spec``'s id and settings; an id ``library`` rejects gives ``None`` and a
    warning, and so does ``spec=None`` (without the warning).
    """
    if spec is None:
        return None
    try:
        return env_spec_class(
            entry_point=f"palaestra.compat._registration:{maker}",
            disable_env_checker=spec.disable_env_checker,
            kwargs={key: spec},
            id=spec.id,
            reward_threshold=spec.reward_threshold,
            nondeterministic=spec.nondeterministic,
            max_episode_steps=spec.max_episode_steps,
            order_enforce=spec.order_enforce,
        )
    except Exception as e:  # an id the other library rejects
        logger.warn(f"The spec {spec.id!r} has no {library} counterpart ({e}); spec is None.")
        return None


def gymnasium_spec_of(spec: Any) -> Any:
    """Return a Gymnasium ``EnvSpec`` from which ``gymnasium.make`` rebuilds the adapted env.

    Its entry point makes ``spec`` with palaestra's ``make`` (less the time limit, order
    enforcement and checker, which Gymnasium's ``make`` applies from the copied settings) and
    adapts the result; its only kwarg is the palaestra spec, under ``"palaestra_spec"``.

    Args:
        spec: the palaestra env's spec, or ``None``.

    Example:
        >>> import gymnasium
        >>> import palaestra
        >>> gymnasium.make(gymnasium_spec_of(palaestra.make("CartPole-v1").spec))
        <TimeLimit<OrderEnforcing<PassiveEnvChecker<ToGymnasium<CartPoleEnv<CartPole-v1>>>>>>
    """
    import gymnasium

    return _adapter_spec(
        spec,
        gymnasium.envs.registration.EnvSpec,
        "make_for_gymnasium",
        "palaestra_spec",
        "Gymnasium",
    )


def palaestra_spec_of(spec: Any) -> Any:
    """Return a palaestra ``EnvSpec`` from which ``palaestra.make`` rebuilds an adapted env.

    The mirror of :func:`gymnasium_spec_of` (the Gymnasium spec under ``"gymnasium_spec"``).

    Args:
        spec: the Gymnasium env's spec, or ``None``.

    Example:
        >>> import gymnasium
        >>> import palaestra
        >>> palaestra.make(palaestra_spec_of(gymnasium.make("CartPole-v1").spec)).spec.id
        'CartPole-v1'
    """
    from palaestra.envs.registration import EnvSpec

    return _adapter_spec(spec, EnvSpec, "make_from_gymnasium", "gymnasium_spec", "palaestra")
