"""``make``: build one environment from its spec and wrap it in the standard wrapper stack."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any

from palaestra import error, logger
from palaestra.core import Env
from palaestra.envs.registration._loading import load_env_creator, resolve_creator
from palaestra.envs.registration._lookup import find_spec
from palaestra.envs.registration._render_modes import declared_render_modes, plan_rendering
from palaestra.envs.registration._specs import EnvSpec, WrapperSpec
from palaestra.utils.library_name import acting_name, library_name, not_an_env_message


def make(
    id: str | EnvSpec,
    max_episode_steps: int | None = None,
    disable_env_checker: bool | None = None,
    **kwargs: Any,
) -> Env:
    """Build a registered environment with its standard wrappers.

    The stack, innermost first: the env, :class:`PassiveEnvChecker` (unless disabled),
    :class:`OrderEnforcing` (if the spec's ``order_enforce``), :class:`TimeLimit` (if a step
    limit is known), the spec's ``additional_wrappers``, and finally :class:`HumanRendering` or
    :class:`RenderCollection` when the requested render mode is provided by a wrapper.

    Args:
        id: an id (optionally ``"module:Id"``, importing ``module`` first) or an
            :class:`EnvSpec`. An unversioned id means the latest version.
        max_episode_steps: overrides the spec's step limit; ``-1`` applies no :class:`TimeLimit`.
        disable_env_checker: overrides the spec's ``disable_env_checker`` unless ``None``.
        kwargs: constructor arguments, overriding the spec's ``kwargs``.

    Returns:
        The wrapped environment; ``env.spec`` describes it fully.

    Raises:
        TypeError: ``id`` is neither a string nor an EnvSpec; the constructor rejected the
            kwargs; or it did not return a :class:`~palaestra.Env`.
        palaestra.error.Error: the id is unknown (see :func:`spec` for the subclasses), or
            the spec has no entry point.
        palaestra.error.InvalidMetadata: the env class's ``metadata`` is not a dict.
        ValueError: a wrapper in ``additional_wrappers`` cannot be rebuilt.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1", max_episode_steps=10)
        >>> env
        <TimeLimit<OrderEnforcing<PassiveEnvChecker<CartPoleEnv<CartPole-v1>>>>>
        >>> env.spec.max_episode_steps
        10
    """
    env_spec = _spec_of(id)
    env_kwargs = copy.deepcopy(env_spec.kwargs)
    env_kwargs.update(kwargs)
    if env_spec.entry_point is None:
        raise error.Error(f"{env_spec.id} registered but entry_point is not specified")
    env_creator = resolve_creator(env_spec.entry_point)

    built_mode, render_wrapper = plan_rendering(
        env_kwargs.get("render_mode"), declared_render_modes(env_creator)
    )
    if render_wrapper is not None:
        env_kwargs["render_mode"] = built_mode

    env = _instantiate(env_spec, env_creator, env_kwargs, render_wrapper)
    # The wrappers added below extend this bare spec through their own ``spec`` properties.
    env.unwrapped.spec = dataclasses.replace(
        env_spec,
        max_episode_steps=None,
        order_enforce=False,
        disable_env_checker=True,
        kwargs=env_kwargs,
        additional_wrappers=(),
    )
    prior_wrappers = _check_prior_wrappers(env_spec, env)
    return _wrap(
        env,
        env_spec,
        max_episode_steps=max_episode_steps,
        disable_env_checker=disable_env_checker,
        prior_wrappers=prior_wrappers,
        render_wrapper=render_wrapper,
    )


def _spec_of(id: str | EnvSpec) -> EnvSpec:
    if isinstance(id, str):
        return find_spec(id)
    if not isinstance(id, EnvSpec):
        raise TypeError(f"Expected id to be a string or EnvSpec, got {type(id)}")
    if not hasattr(id, "additional_wrappers"):
        logger.warn(
            "The env spec passed to `make` does not have a `additional_wrappers`, set it to "
            f"an empty tuple. Env_spec id={id.id}"
        )
        id.additional_wrappers = ()
    return id


def _instantiate(
    env_spec: EnvSpec, env_creator: Callable, kwargs: dict[str, Any], render_wrapper: str | None
) -> Env:
    try:
        env = env_creator(**kwargs)
    except TypeError as e:
        if (
            render_wrapper == "HumanRendering"
            and "unexpected keyword argument 'render_mode'" in str(e)
        ):
            raise error.Error(
                f"You passed render_mode='human' although {env_spec.id} doesn't implement "
                f"human-rendering natively. {acting_name('Gym')} tried to apply the HumanRendering "
                "wrapper "
                "but it looks like your environment is using the old rendering API, which is not "
                "supported by the HumanRendering wrapper. Accept a `render_mode` argument in the "
                "environment's constructor."
            ) from e
        raise TypeError(
            f"{e} was raised from the environment creator for {env_spec.id} with kwargs ({kwargs})"
        ) from e
    if not isinstance(env, Env):
        raise TypeError(not_an_env_message(env))
    return env


def _check_prior_wrappers(env_spec: EnvSpec, env: Env) -> int:
    """Count wrappers the entry point applied itself; they must match the spec's first ones."""
    assert env.spec is not None
    prior = env.spec.additional_wrappers
    # More wrappers than the spec lists: the entry point's own stack, nothing to compare with.
    if len(prior) <= len(env_spec.additional_wrappers):
        for saved, recreated in zip(env_spec.additional_wrappers, prior):
            if saved != recreated:
                raise ValueError(
                    f"The environment's wrapper spec {recreated} is different from the saved "
                    f"`EnvSpec` additional wrapper {saved}"
                )
    return len(prior)


def _wrap(
    env: Env,
    env_spec: EnvSpec,
    *,
    max_episode_steps: int | None,
    disable_env_checker: bool | None,
    prior_wrappers: int,
    render_wrapper: str | None,
) -> Env:
    from palaestra.wrappers.common import OrderEnforcing, PassiveEnvChecker, TimeLimit

    if disable_env_checker is None:
        disable_env_checker = env_spec.disable_env_checker
    if disable_env_checker is False:
        env = PassiveEnvChecker(env)
    if env_spec.order_enforce:
        env = OrderEnforcing(env)
    if max_episode_steps is None:
        max_episode_steps = env_spec.max_episode_steps
    if max_episode_steps is not None and max_episode_steps != -1:
        env = TimeLimit(env, max_episode_steps)
    for wrapper_spec in env_spec.additional_wrappers[prior_wrappers:]:
        env = _apply_wrapper_spec(env, wrapper_spec)
    if render_wrapper is not None:
        from palaestra.wrappers import rendering

        env = getattr(rendering, render_wrapper)(env)
    return env


def _apply_wrapper_spec(env: Env, wrapper_spec: WrapperSpec) -> Env:
    if wrapper_spec.kwargs is None:
        raise ValueError(
            f"{wrapper_spec.name} wrapper does not inherit from "
            f"`{library_name()}.utils.RecordConstructorArgs`, therefore, the wrapper cannot be "
            "recreated."
        )
    return load_env_creator(wrapper_spec.entry_point)(env=env, **wrapper_spec.kwargs)
