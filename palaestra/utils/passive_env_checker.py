"""Checks that watch an environment's API use without changing what it returns.

These functions look at spaces and at what ``reset``, ``step`` and ``render`` return. A
problem that an algorithm can survive is reported through :func:`palaestra.logger.warn`; a
problem that breaks the API contract raises. The ``PassiveEnvChecker`` wrapper runs them on
the first call of each method, and :func:`palaestra.utils.env_checker.check_env` runs them as
part of its more thorough, invasive checks.

Warning and error messages are worded as Gymnasium 1.4 words them, so filters written against
Gymnasium match.

Example:
    >>> import numpy as np
    >>> from palaestra import spaces
    >>> from palaestra.utils.passive_env_checker import check_obs
    >>> check_obs(np.zeros(2, dtype=np.float32), spaces.Box(-1, 1, (2,)), "reset")
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from palaestra import error, logger, spaces
from palaestra.core import Env, RenderFrame
from palaestra.utils.library_name import (
    CUSTOM_ENV_DOCS,
    acting_name,
    library_name,
    not_an_env_message,
)

__all__ = [
    "check_space",
    "check_observation_space",
    "check_action_space",
    "env_observation_space_check",
    "env_action_space_check",
    "check_is_env",
    "check_env_spaces",
    "check_space_limit",
    "check_obs",
    "reset_accepts",
    "data_shares_objects",
    "env_data_reuse_passive_checker",
    "env_reset_passive_checker",
    "env_step_passive_checker",
    "env_render_passive_checker",
]

_BOOLS = (bool, np.bool_)


def _is_real_number(value: Any) -> bool:
    """Whether ``value`` is a Python or NumPy integer or float (``bool`` is not)."""
    kind = type(value)
    return np.issubdtype(kind, np.integer) or np.issubdtype(kind, np.floating)


def _check_box_bounds(space: spaces.Box, space_type: str) -> None:
    """Assert the bounds of a Box have its shape; warn on empty (degenerate) ranges."""
    for bound_name in ("low", "high"):
        bound = getattr(space, bound_name)
        # Gymnasium's wording doubles "have" for the observation high and action low bounds.
        doubled = (space_type, bound_name) in (("observation", "high"), ("action", "low"))
        assert bound.shape == space.shape, (
            f"The Box {space_type} space shape and {bound_name} shape have "
            f"{'have ' if doubled else ''}different shapes, "
            f"{bound_name} shape: {bound.shape}, box shape: {space.shape}"
        )
    if np.any(space.low == space.high):
        logger.warn(f"A Box {space_type} space maximum and minimum values are equal.")
    elif space_type == "observation" and np.any(space.high < space.low):
        logger.warn("A Box observation space low value is greater than a high value.")


def check_space(
    space: spaces.Space[Any],
    space_type: str,
    check_box_space_fn: Callable[[spaces.Box], None] | None = None,
) -> None:
    """Check that a space is a palaestra ``Space`` and that its parameters make sense.

    Composite spaces (``Tuple``, ``Dict``) are checked recursively.

    Args:
        space: the space to check.
        space_type: ``"observation"`` or ``"action"``, used in messages.
        check_box_space_fn: the check applied to ``Box`` spaces (Gymnasium passes
            ``check_box_observation_space`` or ``check_box_action_space``); by default the
            bounds are checked for shape agreement and equal or inverted limits.

    Raises:
        TypeError: if ``space`` is not a :class:`~palaestra.spaces.Space`.
        AssertionError: if a space is empty or its shape disagrees with its parameters.

    Example:
        >>> from palaestra import spaces
        >>> check_space(spaces.Discrete(3), "action")
        >>> check_space("left or right", "action")
        Traceback (most recent call last):
            ...
        TypeError: action space does not inherit from `palaestra.spaces.Space`, actual type: ...
    """
    if not isinstance(space, spaces.Space):
        if str(type(space).__base__) == "<class 'gym.spaces.space.Space'>":
            raise TypeError(
                "Gym is incompatible with Gymnasium, please update the environment "
                f"{space_type}_space to `<class '{library_name()}.spaces.space.Space'>`."
            )
        raise TypeError(
            f"{space_type} space does not inherit from `{library_name()}.spaces.Space`, "
            f"actual type: {type(space)}"
        )
    if isinstance(space, spaces.Box):
        if check_box_space_fn is None:
            _check_box_bounds(space, space_type)
        else:
            check_box_space_fn(space)
    elif isinstance(space, spaces.Discrete):
        assert space.n > 0, (
            f"Discrete {space_type} space's number of elements must be positive, "
            f"actual number of elements: {space.n}"
        )
        assert space.shape == (), (
            f"Discrete {space_type} space's shape should be empty, actual shape: {space.shape}"
        )
    elif isinstance(space, spaces.MultiDiscrete):
        assert space.shape == space.nvec.shape, (
            f"Multi-discrete {space_type} space's shape must be equal to the nvec shape, "
            f"space shape: {space.shape}, nvec shape: {space.nvec.shape}"
        )
        assert np.all(space.nvec > 0), (
            f"Multi-discrete {space_type} space's all nvec elements must be greater than 0, "
            f"actual nvec: {space.nvec}"
        )
    elif isinstance(space, spaces.MultiBinary):
        assert np.all(np.asarray(space.shape) > 0), (
            f"Multi-binary {space_type} space's all shape elements must be greater than 0, "
            f"actual shape: {space.shape}"
        )
    elif isinstance(space, (spaces.Tuple, spaces.Dict)):
        kind = type(space).__name__
        assert len(space.spaces) > 0, f"An empty {kind} {space_type} space is not allowed."
        children = space.spaces.values() if isinstance(space, spaces.Dict) else space.spaces
        for child in children:
            check_space(child, space_type, check_box_space_fn)


check_observation_space: Callable[[spaces.Space[Any]], None] = partial(
    check_space, space_type="observation"
)
check_action_space: Callable[[spaces.Space[Any]], None] = partial(check_space, space_type="action")
# Names used by the issue tracker and older code; the same checks.
env_observation_space_check = check_observation_space
env_action_space_check = check_action_space


def check_is_env(env: Any) -> None:
    """Check that ``env`` is a :class:`palaestra.Env`.

    Args:
        env: the object to check.

    Raises:
        TypeError: if it is not, naming its class.

    Example:
        >>> check_is_env("CartPole-v1")
        Traceback (most recent call last):
            ...
        TypeError: The environment must inherit from the palaestra.Env class, ...
    """
    if not isinstance(env, Env):
        raise TypeError(not_an_env_message(env))


def check_env_spaces(env: Env[Any, Any]) -> None:
    """Check that ``env`` has an action and an observation space, and check both.

    Args:
        env: the environment.

    Raises:
        AttributeError: if a space is missing.
        TypeError: if a space is not a :class:`~palaestra.spaces.Space`.

    Example:
        >>> from palaestra import Env, spaces
        >>> class Blind(Env):
        ...     action_space = spaces.Discrete(2)
        >>> check_env_spaces(Blind())
        Traceback (most recent call last):
            ...
        AttributeError: The environment must specify an observation space. See ...
    """
    for space_type, check in (
        ("action", check_action_space),
        ("observation", check_observation_space),
    ):
        if not hasattr(env, f"{space_type}_space"):
            raise AttributeError(
                f"The environment must specify an {space_type} space. {CUSTOM_ENV_DOCS} "
                f"Set e.g. `self.{space_type}_space = spaces.Box(...)` in `__init__`."
            )
        check(getattr(env, f"{space_type}_space"))


def _warn_on_unnormalised_action_box(space: spaces.Box) -> None:
    """Recommend a symmetric, normalised range for a 1-D Box of actions."""
    if len(space.shape) != 1:
        return
    asymmetric = np.logical_and(space.low != 0, np.abs(space.low) != np.abs(space.high))
    if np.any(asymmetric) or np.any(space.low < -1) or np.any(space.high > 1):
        logger.warn(
            "For Box action spaces, we recommend using a symmetric and normalized space "
            "(range=[-1, 1] or [0, 1]). See "
            "https://stable-baselines3.readthedocs.io/en/master/guide/rl_tips.html "
            "for more information."
        )


def check_space_limit(space: spaces.Space[Any], space_type: str) -> None:
    """Warn about Box bounds that make learning hard: infinite, or unnormalised actions.

    Only ``check_env`` runs this; the passive wrapper does not, since infinite bounds are
    legitimate for many environments.

    Args:
        space: the space to inspect (``Tuple`` and ``Dict`` are searched recursively).
        space_type: ``"observation"`` or ``"action"``.

    Example:
        >>> import warnings
        >>> from palaestra import spaces
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     check_space_limit(spaces.Box(-1, 1, (2,)), "action")
        >>> caught
        []
    """
    if isinstance(space, spaces.Box):
        if np.any(np.equal(space.low, -np.inf)):
            logger.warn(
                f"A Box {space_type} space minimum value is -infinity. This is probably too low."
            )
        if np.any(np.equal(space.high, np.inf)):
            logger.warn(
                f"A Box {space_type} space maximum value is infinity. This is probably too high."
            )
        if space_type == "action":
            _warn_on_unnormalised_action_box(space)
    elif isinstance(space, spaces.Tuple):
        for child in space.spaces:
            check_space_limit(child, space_type)
    elif isinstance(space, spaces.Dict):
        for child in space.spaces.values():
            check_space_limit(child, space_type)


def _check_obs_structure(obs: Any, space: spaces.Space[Any], method_name: str) -> None:
    """Warn (or, for dicts, raise) when ``obs`` has the wrong Python type for ``space``."""
    pre = f"The obs returned by the `{method_name}()` method"
    if isinstance(space, spaces.Discrete):
        if not isinstance(obs, (np.int64, int)):
            logger.warn(f"{pre} should be an int or np.int64, actual type: {type(obs)}")
    elif isinstance(space, spaces.Box):
        if space.shape == ():
            return
        if not isinstance(obs, np.ndarray):
            logger.warn(f"{pre} was expecting a numpy array, actual type: {type(obs)}")
        elif obs.dtype != space.dtype:
            logger.warn(
                f"{pre} was expecting numpy array dtype to be {space.dtype}, "
                f"actual type: {obs.dtype}"
            )
    elif isinstance(space, (spaces.MultiBinary, spaces.MultiDiscrete)):
        if not isinstance(obs, np.ndarray):
            logger.warn(f"{pre} was expecting a numpy array, actual type: {type(obs)}")
    elif isinstance(space, spaces.Tuple):
        if not isinstance(obs, tuple):
            logger.warn(f"{pre} was expecting a tuple, actual type: {type(obs)}")
        assert len(obs) == len(space.spaces), (
            f"{pre} length is not same as the observation space length, "
            f"obs length: {len(obs)}, space length: {len(space.spaces)}"
        )
        for child_obs, child_space in zip(obs, space.spaces):
            check_obs(child_obs, child_space, method_name)
    elif isinstance(space, spaces.Dict):
        assert isinstance(obs, dict), f"{pre} must be a dict, actual type: {type(obs)}"
        assert obs.keys() == space.spaces.keys(), (
            f"{pre} observation keys is not same as the observation space keys, "
            f"obs keys: {list(obs.keys())}, space keys: {list(space.spaces.keys())}"
        )
        for key, child_space in space.spaces.items():
            check_obs(obs[key], child_space, method_name)


def check_obs(obs: Any, observation_space: spaces.Space[Any], method_name: str) -> None:
    """Check an observation against the space it should belong to.

    Warns when the observation's type or dtype is not what the space produces, or when it is
    not contained in the space.

    Args:
        obs: the observation.
        observation_space: the space it should belong to.
        method_name: ``"reset"`` or ``"step"``, used in messages.

    Raises:
        AssertionError: if a ``Tuple`` observation has the wrong length, or a ``Dict``
            observation is not a dict with the space's keys.

    Example:
        >>> from palaestra import spaces
        >>> check_obs(1, spaces.Discrete(2), "step")
    """
    _check_obs_structure(obs, observation_space, method_name)
    pre = f"The obs returned by the `{method_name}()` method"
    try:
        inside = obs in observation_space
    except Exception as e:
        logger.warn(f"{pre} is not within the observation space with exception: {e}")
        return
    if not inside:
        logger.warn(f"{pre} is not within the observation space.")


def data_shares_objects(data_1: Any, data_2: Any) -> bool:
    """Whether two pieces of timestep data share a mutable object (an array buffer, a dict).

    Immutable values (numbers, strings) and unknown objects never count as shared.

    Args:
        data_1: an observation or info.
        data_2: another one, of the same structure.

    Returns:
        ``True`` if changing one would change the other.

    Example:
        >>> import numpy as np
        >>> buffer = np.zeros(3)
        >>> data_shares_objects(buffer, buffer[:]), data_shares_objects(buffer, buffer.copy())
        (True, False)
    """
    if type(data_1) is not type(data_2):
        return False
    if isinstance(data_1, dict):
        if data_1 is data_2:
            return True
        common_keys = data_1.keys() & data_2.keys()
        return any(data_shares_objects(data_1[k], data_2[k]) for k in common_keys)
    if isinstance(data_1, tuple):
        return any(data_shares_objects(a, b) for a, b in zip(data_1, data_2))
    if isinstance(data_1, np.ndarray):
        if data_1.dtype != object:
            # A fresh view of a reused buffer is as bad as the buffer itself.
            return bool(np.shares_memory(data_1, data_2))
        return data_1 is data_2 or any(
            data_shares_objects(a, b) for a, b in zip(data_1.flat, data_2.flat)
        )
    return False


def env_data_reuse_passive_checker(
    previous_data: tuple[Any, dict[str, Any]],
    data: tuple[Any, dict[str, Any]],
    previous_source: str,
    source: str,
) -> None:
    """Warn if two consecutive calls returned observations or infos sharing an object.

    Users keep returned data (replay buffers, rollouts); an environment that writes into the
    same buffer every step silently corrupts it.

    Args:
        previous_data: ``(obs, info)`` of the earlier call.
        data: ``(obs, info)`` of the later call.
        previous_source: the earlier method's name, for the message.
        source: the later method's name.

    Example:
        >>> import numpy as np
        >>> env_data_reuse_passive_checker((np.zeros(2), {}), (np.zeros(2), {}), "reset", "step")
    """
    (previous_obs, previous_info), (obs, info) = previous_data, data
    for plural, singular, old, new in (
        ("observations", "observation", previous_obs, obs),
        ("infos", "info", previous_info, info),
    ):
        if data_shares_objects(old, new):
            logger.warn(
                f"The {plural} returned by `{previous_source}` and the following `{source}` "
                "share an object, therefore, modifying one will modify the other. Environments "
                f"should return new {singular} data on every call as users commonly keep the "
                "data returned to them."
            )


def reset_accepts(env: Env[Any, Any], keyword: str) -> bool:
    """Whether ``env.reset`` takes ``keyword``, by name or through ``**kwargs``.

    Args:
        env: the environment.
        keyword: ``"seed"`` or ``"options"``.

    Example:
        >>> from palaestra import Env
        >>> reset_accepts(Env(), "seed"), reset_accepts(Env(), "return_info")
        (True, False)
    """
    parameters = inspect.signature(env.reset).parameters.values()
    return any(p.name == keyword or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def _warn_about_reset_signature(env: Env[Any, Any]) -> None:
    """Warn (deprecation) when ``reset`` cannot take ``seed``/``options``, or defaults the seed."""
    parameters = inspect.signature(env.reset).parameters
    if not reset_accepts(env, "seed"):
        logger.deprecation(
            f"Current {acting_name('gymnasium')} version requires that `Env.reset` can be passed "
            "a `seed` "
            "instead of using `Env.seed` for resetting the environment random number generator."
        )
    elif "seed" in parameters and parameters["seed"].default is not None:
        logger.warn(
            "The default seed argument in `Env.reset` should be `None`, otherwise the "
            "environment will by default always be deterministic. "
            f"Actual default: {parameters['seed']}"
        )
    if not reset_accepts(env, "options"):
        logger.deprecation(
            f"Current {acting_name('gymnasium')} version requires that `Env.reset` can be passed "
            "`options` to "
            "allow the environment initialisation to be passed additional information."
        )


def env_reset_passive_checker(env: Env[Any, Any], **kwargs: Any) -> Any:
    """Call ``env.reset(**kwargs)``, check what it returns and return it unchanged.

    Args:
        env: the environment.
        kwargs: ``seed`` and ``options`` for ``reset``.

    Returns:
        Whatever ``reset`` returned.

    Raises:
        AssertionError: if the info is not a dict.

    Example:
        >>> from palaestra import Env, spaces
        >>> class Still(Env):
        ...     observation_space = action_space = spaces.Discrete(1)
        ...     def reset(self, *, seed=None, options=None):
        ...         return 0, {}
        >>> env_reset_passive_checker(Still(), seed=0)
        (0, {})
    """
    _warn_about_reset_signature(env)
    result = env.reset(**kwargs)
    if not isinstance(result, tuple):
        logger.warn(
            "The result returned by `env.reset()` was not a tuple of the form `(obs, info)`, "
            "where `obs` is a observation and `info` is a dictionary containing additional "
            f"information. Actual type: `{type(result)}`"
        )
    elif len(result) != 2:
        logger.warn(
            "The result returned by `env.reset()` should be `(obs, info)` by default, , where "
            "`obs` is a observation and `info` is a dictionary containing additional "
            "information."
        )
    else:
        obs, info = result
        check_obs(obs, env.observation_space, "reset")
        assert isinstance(info, dict), (
            "The second element returned by `env.reset()` was not a dictionary, "
            f"actual type: {type(info)}"
        )
    return result


def _check_flag(value: Any, name: str) -> None:
    if not isinstance(value, _BOOLS):
        logger.warn(f"Expects `{name}` signal to be a boolean, actual type: {type(value)}")


def _check_reward(reward: Any) -> None:
    if not _is_real_number(reward):
        logger.warn(
            "The reward returned by `step()` must be a float, int, np.integer or np.floating, "
            f"actual type: {type(reward)}"
        )
        return
    if np.isnan(reward):
        logger.warn("The reward is a NaN value.")
    if np.isinf(reward):
        logger.warn("The reward is an inf value.")


def env_step_passive_checker(env: Env[Any, Any], action: Any) -> Any:
    """Call ``env.step(action)``, check what it returns and return it unchanged.

    The action itself is not checked: some environments accept actions outside their space.
    An old-style 4-tuple ``(obs, reward, done, info)`` is accepted with a deprecation warning.

    Args:
        env: the environment.
        action: the action to step with.

    Returns:
        Whatever ``step`` returned.

    Raises:
        AssertionError: if the result is not a tuple or the info is not a dict.
        palaestra.error.Error: if the tuple does not have four or five elements.

    Example:
        >>> from palaestra import Env, spaces
        >>> class Still(Env):
        ...     observation_space = action_space = spaces.Discrete(1)
        ...     def step(self, action):
        ...         return 0, 0.0, False, False, {}
        >>> env_step_passive_checker(Still(), 0)
        (0, 0.0, False, False, {})
    """
    result = env.step(action)
    assert isinstance(result, tuple), (
        f"Expects step result to be a tuple, actual type: {type(result)}"
    )
    if len(result) == 4:
        logger.deprecation(
            "Core environment is written in old step API which returns one bool instead of two. "
            "It is recommended to rewrite the environment with new step API. "
        )
        obs, reward, done, info = result
        _check_flag(done, "done")
    elif len(result) == 5:
        obs, reward, terminated, truncated, info = result
        _check_flag(terminated, "terminated")
        _check_flag(truncated, "truncated")
    else:
        raise error.Error(
            "Expected `Env.step` to return a four or five element tuple, actual number of "
            f"elements returned: {len(result)}."
        )
    check_obs(obs, env.observation_space, "step")
    _check_reward(reward)
    assert isinstance(info, dict), (
        f"The `info` returned by `step()` must be a python dictionary, actual type: {type(info)}"
    )
    return result


def _check_rgb_frame(frame: Any) -> None:
    if not isinstance(frame, np.ndarray):
        logger.warn(f"RGB-array rendering should return a numpy array, got {type(frame)}")
        return
    if frame.dtype != np.uint8:
        logger.warn(
            f"RGB-array rendering should return a numpy array with dtype uint8, got {frame.dtype}"
        )
    if frame.ndim != 3:
        logger.warn(
            f"RGB-array rendering should return a numpy array with three axes, got {frame.ndim}"
        )
    elif frame.shape[2] != 3:
        logger.warn(
            "RGB-array rendering should return a numpy array in which the last axis has three "
            f"dimensions, got {frame.shape[2]}"
        )


def _check_depth_frame(frame: Any) -> None:
    if not isinstance(frame, np.ndarray):
        logger.warn(f"Depth-array rendering should return a numpy array, got {type(frame)}")
    elif frame.ndim != 2:
        logger.warn(
            f"Depth-array rendering should return a numpy array with two axes, got {frame.ndim}"
        )


def _check_render_return(render_mode: str, rendered: Any) -> None:
    """Warn when what ``render`` returned does not fit ``render_mode``."""
    if render_mode == "human":
        if rendered is not None:
            logger.warn(f"Human rendering should return `None`, got {type(rendered)}")
    elif render_mode == "rgb_array":
        _check_rgb_frame(rendered)
    elif render_mode == "depth_array":
        _check_depth_frame(rendered)
    elif render_mode in ("ansi", "ascii"):
        if not isinstance(rendered, str):
            logger.warn(f"ANSI/ASCII rendering should produce a string, got {type(rendered)}")
    elif render_mode.endswith("_list"):
        if not isinstance(rendered, list):
            logger.warn(f"Render mode `{render_mode}` should produce a list, got {type(rendered)}")
            return
        for frame in rendered:
            _check_render_return(render_mode.removesuffix("_list"), frame)


def _check_render_fps(render_fps: Any) -> None:
    if render_fps is None:
        logger.warn(
            "No render fps was declared in the environment (env.metadata['render_fps'] is None "
            "or not defined), rendering may occur at inconsistent fps."
        )
    elif not _is_real_number(render_fps):
        logger.warn(
            "Expects the `env.metadata['render_fps']` to be an integer or a float, "
            f"actual type: {type(render_fps)}"
        )
    else:
        assert render_fps > 0, (
            "Expects the `env.metadata['render_fps']` to be greater than zero, "
            f"actual value: {render_fps}"
        )


def _check_render_metadata(env: Env[Any, Any]) -> None:
    """Check the render metadata and that ``render_mode`` is one of the declared modes."""
    render_modes = env.metadata.get("render_modes")
    if render_modes is None:
        logger.warn(
            "No render modes was declared in the environment (env.metadata['render_modes'] is "
            "None or not defined), you may have trouble when calling `.render()`."
        )
        return
    if not isinstance(render_modes, (list, tuple)):
        logger.warn(
            "Expects the render_modes to be a sequence (i.e. list, tuple), "
            f"actual type: {type(render_modes)}"
        )
    elif not all(isinstance(mode, str) for mode in render_modes):
        logger.warn(
            "Expects all render modes to be strings, actual types: "
            f"{[type(mode) for mode in render_modes]}"
        )
    if len(render_modes) == 0:
        assert env.render_mode is None, (
            "With no render_modes, expects the Env.render_mode to be None, "
            f"actual value: {env.render_mode}"
        )
        return
    # A frame rate matters only for environments that can render at all.
    _check_render_fps(env.metadata.get("render_fps"))
    assert env.render_mode is None or env.render_mode in render_modes, (
        "The environment was initialized successfully however with an unsupported render mode. "
        f"Render mode: {env.render_mode}, modes: {render_modes}"
    )


def env_render_passive_checker(env: Env[Any, Any]) -> RenderFrame | list[RenderFrame] | None:
    """Check the render metadata, call ``env.render()``, check and return its result.

    Args:
        env: the environment.

    Returns:
        Whatever ``render`` returned.

    Raises:
        AssertionError: if ``render_mode`` is not one of ``metadata["render_modes"]`` or
            ``render_fps`` is not positive.

    Example:
        >>> from palaestra import Env
        >>> class Text(Env):
        ...     metadata = {"render_modes": ["ansi"], "render_fps": 4}
        ...     render_mode = "ansi"
        ...     def render(self):
        ...         return "|o  |"
        >>> env_render_passive_checker(Text())
        '|o  |'
    """
    _check_render_metadata(env)
    rendered = env.render()
    if env.render_mode is not None:
        _check_render_return(env.render_mode, rendered)
    return rendered
