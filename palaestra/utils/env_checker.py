"""A thorough, invasive check that an environment follows the palaestra (Gymnasium) API.

:func:`check_env` resets and steps the environment many times, with and without seeds, and
looks at everything it returns. Run it on a new environment, and in its continuous
integration. Problems an algorithm can live with are warnings; broken contracts raise
(``AssertionError`` mostly, as Gymnasium does, so the two checkers fail on the same envs).

Beyond Gymnasium's checks it verifies that ``reset`` and ``step`` leave the observation and
action spaces unchanged: vector environments and agents size their buffers from them once.

Example:
    >>> import numpy as np
    >>> from palaestra import Env, spaces
    >>> class Walk(Env):
    ...     observation_space = spaces.Box(-10.0, 10.0, (1,), np.float32)
    ...     action_space = spaces.Discrete(2)
    ...     def reset(self, *, seed=None, options=None):
    ...         super().reset(seed=seed)
    ...         self.x = self.np_random.uniform(-1, 1, (1,)).astype(np.float32)
    ...         return self.x.copy(), {}
    ...     def step(self, action):
    ...         self.x = self.x + (1.0 if action else -1.0)
    ...         done = bool(abs(self.x[0]) >= 9)
    ...         return self.x.copy(), 1.0, done, False, {}
    >>> check_env(Walk(), skip_render_check=True)
"""

from __future__ import annotations

import inspect
from copy import deepcopy
from itertools import combinations
from typing import Any

import numpy as np

from palaestra import error, logger
from palaestra.core import Env
from palaestra.utils.library_name import acting_name, library_name
from palaestra.utils.passive_env_checker import (
    check_env_spaces,
    check_is_env,
    check_space_limit,
    data_shares_objects,
    env_render_passive_checker,
    env_reset_passive_checker,
    env_step_passive_checker,
    reset_accepts,
)

__all__ = [
    "check_env",
    "data_equivalence",
    "check_reset_seed_determinism",
    "check_reset_options",
    "check_reset_return_info_deprecation",
    "check_reset_return_type",
    "check_seed_deprecation",
    "check_step_determinism",
    "check_returned_data_not_reused",
    "check_space_limit",
    "check_spaces_unchanged",
]

_TOLERANCE = 1e-5


def _arrays_equivalent(data_1: np.ndarray, data_2: np.ndarray, exact: bool) -> bool:
    if data_1.shape != data_2.shape or data_1.dtype != data_2.dtype:
        return False
    if data_1.dtype == object:
        return all(data_equivalence(a, b, exact) for a, b in zip(data_1, data_2))
    if exact:
        return bool(np.all(data_1 == data_2))
    return bool(np.allclose(data_1, data_2, rtol=_TOLERANCE, atol=_TOLERANCE))


def data_equivalence(data_1: Any, data_2: Any, exact: bool = False) -> bool:
    """Whether two observations, actions, rewards or infos hold the same data.

    Types must match exactly; dicts, tuples and lists are compared element by element; arrays
    must agree in shape and dtype, and in values within ``1e-5`` (absolute and relative)
    unless ``exact``.

    Args:
        data_1: the first piece of data.
        data_2: the second.
        exact: compare array values with ``==`` instead of a tolerance.

    Returns:
        ``True`` if they are equivalent.

    Example:
        >>> import numpy as np
        >>> data_equivalence({"x": np.ones(2)}, {"x": np.ones(2) + 1e-7})
        True
        >>> data_equivalence({"x": np.ones(2)}, {"x": np.ones(2) + 1e-7}, exact=True)
        False
        >>> data_equivalence(1, 1.0)
        False
    """
    if type(data_1) is not type(data_2):
        return False
    if isinstance(data_1, dict):
        return data_1.keys() == data_2.keys() and all(
            data_equivalence(data_1[key], data_2[key], exact) for key in data_1
        )
    if isinstance(data_1, (tuple, list)):
        return len(data_1) == len(data_2) and all(
            data_equivalence(a, b, exact) for a, b in zip(data_1, data_2)
        )
    if isinstance(data_1, np.ndarray):
        return _arrays_equivalent(data_1, data_2, exact)
    # ``==`` of NumPy scalars gives ``np.bool_``.
    return bool(data_1 == data_2)


def _reset_into_space(env: Env[Any, Any], seed: int | None = None) -> Any:
    """Reset, assert the observation is in the observation space, return a private copy of it."""
    if seed is None:
        obs, _ = env.reset()
        call = "env.reset()"
    else:
        obs, _ = env.reset(seed=seed)
        call = f"env.reset(seed={seed})"
    assert obs in env.observation_space, (
        f"The observation returned by `{call}` is not within the observation space."
    )
    # Some environments write the next observation into the same buffer.
    return deepcopy(obs)


def _seeded_generator(env: Env[Any, Any]) -> np.random.Generator:
    generator = env.unwrapped._np_random
    assert generator is not None, (
        "Expects the random number generator to have been generated given a seed was passed "
        "to reset. Most likely the environment reset function does not call "
        "`super().reset(seed=seed)`."
    )
    return deepcopy(generator)


def _assert_same_resets(first: Any, second: Any, description: str) -> None:
    """Assert two reset observations are equivalent; warn if they are only close."""
    assert data_equivalence(first, second), (
        f"{description} is non-deterministic as the observations are not equivalent."
    )
    if not data_equivalence(first, second, exact=True):
        logger.warn(f"{description} observations are not equal although similar.")


def _is_deterministic(env: Env[Any, Any]) -> bool:
    """Only an env whose spec says ``nondeterministic=False`` promises equal observations."""
    return env.spec is not None and env.spec.nondeterministic is False


def check_reset_seed_determinism(env: Env[Any, Any]) -> None:
    """Check that ``reset(seed=...)`` seeds the environment's generator reproducibly.

    Resets with seed 123, without a seed, with 123 again, without again, and with 456; the
    generator states after equal seeds must be equal and after different seeds different. When
    the env's spec declares it deterministic, the observations must repeat too.

    Args:
        env: the environment.

    Raises:
        palaestra.error.Error: if ``reset`` takes neither ``seed`` nor ``**kwargs``.
        AssertionError: if seeding is not reproducible, or ``reset`` raises ``TypeError``
            despite accepting ``seed``.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1").unwrapped
        >>> check_reset_seed_determinism(env)
    """
    if not reset_accepts(env, "seed"):
        raise error.Error(
            "The `reset` method does not provide a `seed` or `**kwargs` keyword argument."
        )
    try:
        _check_seeded_resets(env)
    except TypeError as e:
        raise AssertionError(
            "The environment cannot be reset with a random seed, even though `seed` or "
            "`kwargs` appear in the signature. This should never happen, please report this "
            f"issue. The error was: {e}"
        ) from e
    seed_parameter = inspect.signature(env.reset).parameters.get("seed")
    if seed_parameter is not None and seed_parameter.default is not None:
        logger.warn(
            "The default seed argument in reset should be `None`, otherwise the environment "
            f"will by default always be deterministic. Actual default: {seed_parameter.default}"
        )


def _check_seeded_resets(env: Env[Any, Any]) -> None:
    obs_seeded_1 = _reset_into_space(env, seed=123)
    generator_1 = _seeded_generator(env)
    obs_unseeded_1 = _reset_into_space(env)
    obs_seeded_2 = _reset_into_space(env, seed=123)
    generator_2 = _seeded_generator(env)
    obs_unseeded_2 = _reset_into_space(env)

    if _is_deterministic(env):
        _assert_same_resets(obs_seeded_1, obs_seeded_2, "Using `env.reset(seed=123)`")
        _assert_same_resets(
            obs_unseeded_1, obs_unseeded_2, "Using `env.reset(seed=123)` then `env.reset()`"
        )
    assert generator_1.bit_generator.state == generator_2.bit_generator.state, (
        "Most likely the environment reset function does not call `super().reset(seed=seed)` "
        "as the random generates are not same when the same seeds are passed to `env.reset`."
    )
    _reset_into_space(env, seed=456)
    assert env.unwrapped._np_random.bit_generator.state != generator_1.bit_generator.state, (
        "Most likely the environment reset function does not call `super().reset(seed=seed)` "
        "as the random number generators are not different when different seeds are passed "
        "to `env.reset`."
    )


def check_reset_options(env: Env[Any, Any]) -> None:
    """Check that ``reset`` accepts ``options``.

    Args:
        env: the environment.

    Raises:
        palaestra.error.Error: if ``reset`` takes neither ``options`` nor ``**kwargs``.
        AssertionError: if ``reset(options={})`` raises ``TypeError`` despite the signature.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1").unwrapped
        >>> check_reset_options(env)
    """
    if not reset_accepts(env, "options"):
        raise error.Error(
            "The `reset` method does not provide an `options` or `**kwargs` keyword argument."
        )
    try:
        env.reset(options={})
    except TypeError as e:
        raise AssertionError(
            "The environment cannot be reset with options, even though `options` or "
            "`**kwargs` appear in the signature. This should never happen, please report this "
            f"issue. The error was: {e}"
        ) from e


def check_reset_return_info_deprecation(env: Env[Any, Any]) -> None:
    """Warn if ``reset`` still takes the removed ``return_info`` argument.

    Args:
        env: the environment.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1").unwrapped
        >>> check_reset_return_info_deprecation(env)
    """
    if "return_info" in inspect.signature(env.reset).parameters:
        logger.warn(
            "`return_info` is deprecated as an optional argument to `reset`. `reset`should "
            "now always return `obs, info` where `obs` is an observation, and `info` is a "
            "dictionarycontaining additional information."
        )


def check_seed_deprecation(env: Env[Any, Any]) -> None:
    """Warn if the environment still has a ``seed`` method (seeding is ``reset(seed=...)``).

    Args:
        env: the environment.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1").unwrapped
        >>> check_seed_deprecation(env)
    """
    if callable(getattr(env, "seed", None)):
        logger.warn(
            "Official support for the `seed` function is dropped. Standard practice is to "
            f"reset {acting_name('gymnasium')} environments using "
            "`env.reset(seed=<desired seed>)`"
        )


def check_reset_return_type(env: Env[Any, Any]) -> None:
    """Check that ``reset()`` returns ``(obs, info)`` with ``obs`` in the space, ``info`` a dict.

    Args:
        env: the environment.

    Raises:
        AssertionError: at the first of these that fails.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1").unwrapped
        >>> check_reset_return_type(env)
    """
    result = env.reset()
    assert isinstance(result, tuple), (
        "The result returned by `env.reset()` was not a tuple of the form `(obs, info)`, where "
        "`obs` is a observation and `info` is a dictionary containing additional information. "
        f"Actual type: `{type(result)}`"
    )
    assert len(result) == 2, (
        f"Calling the reset method did not return a 2-tuple, actual length: {len(result)}"
    )
    obs, info = result
    assert obs in env.observation_space, (
        "The first element returned by `env.reset()` is not within the observation space."
    )
    assert isinstance(info, dict), (
        "The second element returned by `env.reset()` was not a dictionary, "
        f"actual type: {type(info)}"
    )


def _assert_same_steps(first: Any, second: Any, what: str) -> None:
    assert data_equivalence(first, second), (
        f"Deterministic step {what} are not equivalent for the same seed and action"
    )
    if not data_equivalence(first, second, exact=True):
        logger.warn(f"Step {what} are not equal although similar given the same seed and action")


def check_step_determinism(env: Env[Any, Any], seed: int = 123) -> None:
    """Check that one step after a seeded reset is reproducible.

    Skipped for envs whose spec declares ``nondeterministic=True``. Assumes seeded resets are
    reproducible (see :func:`check_reset_seed_determinism`).

    Args:
        env: the environment.
        seed: seeds the reset and the sampled action.

    Raises:
        AssertionError: if the two transitions differ, the generator is left in a different
            state, or the env truncates after one step.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1").unwrapped
        >>> check_step_determinism(env, seed=7)
    """
    if env.spec is not None and env.spec.nondeterministic is True:
        return
    env.action_space.seed(seed)
    action = env.action_space.sample()

    env.reset(seed=seed)
    obs_0, reward_0, terminated_0, truncated_0, info_0 = env.step(action)
    obs_0 = deepcopy(obs_0)
    generator = env.unwrapped._np_random
    assert generator is not None, "env.reset() should have initialized env._np_random"
    generator_after_first = deepcopy(generator)

    env.reset(seed=seed)
    obs_1, reward_1, terminated_1, truncated_1, info_1 = env.step(action)
    generator = env.unwrapped._np_random
    assert generator is not None, "env.reset() should have initialized env._np_random"
    assert generator.bit_generator.state == generator_after_first.bit_generator.state, (
        "The `.np_random` is not properly been updated after step."
    )

    _assert_same_steps(obs_0, obs_1, "observations")
    _assert_same_steps(reward_0, reward_1, "rewards")
    assert data_equivalence(terminated_0, terminated_1, exact=True), (
        "Deterministic step termination are not equivalent for the same seed and action"
    )
    assert truncated_0 is False and truncated_1 is False, (
        "Environment truncates after 1 step, something has gone very wrong."
    )
    _assert_same_steps(info_0, info_1, "info")


def check_returned_data_not_reused(env: Env[Any, Any], seed: int = 123) -> None:
    """Check that no two calls of ``reset``/``step`` return observations or infos sharing data.

    Compares a seeded reset, up to two steps and another seeded reset, pairwise, by identity
    (an array meant to be constant must still be copied into each result).

    Args:
        env: the environment.
        seed: seeds the resets and the sampled actions.

    Raises:
        AssertionError: naming the two calls whose data share an object.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("CartPole-v1").unwrapped
        >>> check_returned_data_not_reused(env)
    """
    env.action_space.seed(seed)
    calls = [("env.reset() (call 1)", env.reset(seed=seed))]
    for _ in range(2):
        obs, _, terminated, truncated, info = env.step(env.action_space.sample())
        calls.append((f"env.step() (call {len(calls) + 1})", (obs, info)))
        if terminated or truncated:
            break
    calls.append((f"env.reset() (call {len(calls) + 1})", env.reset(seed=seed)))

    for (source_1, (obs_1, info_1)), (source_2, (obs_2, info_2)) in combinations(calls, 2):
        assert not data_shares_objects(obs_1, obs_2), (
            f"The observations returned by `{source_1}` and `{source_2}` share an object, "
            "therefore, modifying one will modify the other. Environments must return new "
            "observation data on every call as users keep the data returned to them."
        )
        assert not data_shares_objects(info_1, info_2), (
            f"The infos returned by `{source_1}` and `{source_2}` share an object, therefore, "
            "modifying one will modify the other. Environments must return new info data on "
            "every call as users keep the data returned to them."
        )


def check_spaces_unchanged(env: Env[Any, Any], spaces_before: dict[str, Any], during: str) -> None:
    """Check that the observation and action spaces still equal an earlier snapshot.

    Spaces are fixed at construction: vector environments batch them and agents allocate
    buffers from them once, so an env that edits its spaces while running breaks both.

    Args:
        env: the environment.
        spaces_before: ``{"observation_space": ..., "action_space": ...}``, deep copies taken
            earlier.
        during: the calls made since the snapshot, for the message.

    Raises:
        AssertionError: naming the space that changed, with both versions.

    Example:
        >>> from copy import deepcopy
        >>> from palaestra import Env, spaces
        >>> class Growing(Env):
        ...     observation_space = action_space = spaces.Discrete(2)
        >>> env = Growing()
        >>> snapshot = {"observation_space": deepcopy(env.observation_space),
        ...             "action_space": deepcopy(env.action_space)}
        >>> env.observation_space = spaces.Discrete(3)
        >>> check_spaces_unchanged(env, snapshot, "reset()")
        Traceback (most recent call last):
            ...
        AssertionError: The environment's observation_space changed during `reset()` ...
    """
    for name, before in spaces_before.items():
        after = getattr(env, name)
        assert after == before, (
            f"The environment's {name} changed during `{during}` from {before} to {after}; "
            "spaces must stay fixed after construction, because vector environments and "
            "agents allocate their buffers from them. Create a new space in `__init__` instead."
        )


def _snapshot_spaces(env: Env[Any, Any]) -> dict[str, Any]:
    return {name: deepcopy(getattr(env, name)) for name in ("observation_space", "action_space")}


def _as_numpy_env(env: Env[Any, Any]) -> Env[Any, Any]:
    """Wrap a JAX or Torch environment (flagged in its metadata) so the checks see NumPy data."""
    from palaestra import wrappers

    if env.metadata.get("jax", False):
        return wrappers.JaxToNumpy(env)
    if env.metadata.get("torch", False):
        import torch

        return wrappers.ArrayConversion(env, env_xp=torch, target_xp=np)
    return env


def _check_spaces(env: Env[Any, Any]) -> None:
    check_env_spaces(env)
    check_space_limit(env.action_space, "action")
    check_space_limit(env.observation_space, "observation")


def _check_reset(env: Env[Any, Any]) -> None:
    check_seed_deprecation(env)
    check_reset_return_info_deprecation(env)
    check_reset_return_type(env)
    check_reset_seed_determinism(env)
    check_reset_options(env)


def _check_render(env: Env[Any, Any]) -> None:
    """Render ``env`` if it has a render mode, then every declared mode on a fresh copy."""
    if env.render_mode is not None:
        env_render_passive_checker(env)
    if env.spec is None:
        logger.warn(
            "Not able to test alternative render modes due to the environment not having a "
            f"spec. Try instantiating the environment through `{library_name()}.make`"
        )
        return
    for render_mode in env.metadata["render_modes"]:
        fresh_env = env.spec.make(render_mode=render_mode)
        fresh_env.reset()
        env_render_passive_checker(fresh_env)
        fresh_env.close()


def _check_double_close(env: Env[Any, Any]) -> None:
    """Make a fresh env and close it twice: closing a closed env must be harmless."""
    fresh_env = env.spec.make()
    fresh_env.close()
    try:
        fresh_env.close()
    except Exception as e:
        logger.warn(
            "Calling `env.close()` on the closed environment should be allowed, but it raised "
            f"an exception: {e}"
        )


def check_env(
    env: Env[Any, Any],
    warn: bool | None = None,
    skip_render_check: bool = False,
    skip_close_check: bool = False,
) -> None:
    """Check that an environment follows the palaestra (Gymnasium 1.4) API.

    Checks, in order: the env type (and warns if it is wrapped), both spaces, the ``reset``
    signature and return value, seeded reproducibility of ``reset`` and ``step``, the data
    ``reset``/``step`` return, that no call reuses returned buffers, that the spaces stay
    unchanged, every declared render mode, and that closing twice is harmless. Render-mode
    and close checks build fresh copies through ``env.spec`` and are skipped without one.

    Args:
        env: the environment; pass ``env.unwrapped`` for a made env.
        warn: ignored; kept for compatibility (a warning says so when given).
        skip_render_check: skip the render checks (useful in headless CI).
        skip_close_check: skip the double-close check.

    Raises:
        TypeError: if ``env`` is not a :class:`palaestra.Env`.
        AttributeError: if it lacks an action or observation space.
        AssertionError: if an API contract is broken (the message says which).
        palaestra.error.Error: if ``reset`` cannot take ``seed``/``options``, or ``step``
            returns a tuple of the wrong length.

    Example:
        >>> import palaestra as gym
        >>> check_env(gym.make("CartPole-v1").unwrapped, skip_render_check=True)
    """
    if warn is not None:
        logger.warn("`check_env(warn=...)` parameter is now ignored.")
    check_is_env(env)
    if env.unwrapped is not env:
        logger.warn(
            f"The environment ({env}) is different from the unwrapped version "
            f"({env.unwrapped}). This could effect the environment checker as the environment "
            "most likely has a wrapper applied to it. We recommend using the raw environment "
            "for `check_env` using `env.unwrapped`."
        )
    env = _as_numpy_env(env)

    _check_spaces(env)
    spaces_before = _snapshot_spaces(env)
    _check_reset(env)
    env_reset_passive_checker(env)
    check_spaces_unchanged(env, spaces_before, "reset()")

    env_step_passive_checker(env, env.action_space.sample())
    check_step_determinism(env)
    check_returned_data_not_reused(env)
    check_spaces_unchanged(env, spaces_before, "step()")

    if not skip_render_check:
        _check_render(env)
    if not skip_close_check and env.spec is not None:
        _check_double_close(env)
