"""Helpers over a MuJoCo env's full physics state (Gymnasium's ``envs.mujoco.utils``).

Example:
    >>> import palaestra as gym
    >>> env = gym.make("InvertedPendulum-v5")
    >>> _ = env.reset(seed=0)
    >>> state = get_state(env)
    >>> _ = env.step(env.action_space.sample())
    >>> np.array_equal(set_state(env, state), get_state(env))
    True
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

__all__ = ["check_mujoco_reset_state", "get_state", "set_state"]

FULL_PHYSICS = mujoco.mjtState.mjSTATE_FULLPHYSICS


def get_state(env: Any, state_type: mujoco.mjtState = FULL_PHYSICS) -> np.ndarray:
    """Return the ``state_type`` components of ``env``'s simulation state as one vector.

    Args:
        env: a MuJoCo env (wrappers allowed).
        state_type: an ``mjtState`` bit set (default: the full physics state).

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("Swimmer-v5")
        >>> _ = env.reset(seed=0)
        >>> get_state(env).shape
        (11,)
    """
    model, data = env.unwrapped.model, env.unwrapped.data
    state = np.empty(mujoco.mj_stateSize(model, state_type))
    mujoco.mj_getState(model, data, state, state_type)
    return state


def set_state(
    env: Any, state: np.ndarray, state_type: mujoco.mjtState = FULL_PHYSICS
) -> np.ndarray:
    """Write a vector from :func:`get_state` back into ``env``'s simulation; return it.

    Raises:
        ValueError: (from MuJoCo) if ``state`` has the wrong size for ``state_type``.

    Example:
        >>> import palaestra as gym
        >>> env = gym.make("Swimmer-v5")
        >>> _ = env.reset(seed=0)
        >>> set_state(env, get_state(env)).shape
        (11,)
    """
    # Positional: MuJoCo 4 renamed the argument (spec -> sig).
    mujoco.mj_setState(env.unwrapped.model, env.unwrapped.data, state, state_type)
    return state


def check_mujoco_reset_state(
    env: Any, seed: int = 1234, state_type: mujoco.mjtState = mujoco.mjtState.mjSTATE_INTEGRATION
) -> None:
    """Check that two resets with the same seed, with a step between, give the same state.

    Raises:
        AssertionError: if they differ (``"reset is not deterministic"``).

    Example:
        >>> import palaestra as gym
        >>> check_mujoco_reset_state(gym.make("Hopper-v5"))
    """
    env.action_space.seed(seed)
    action = env.action_space.sample()
    env.reset(seed=seed)
    first = get_state(env, state_type)
    env.step(action)
    env.reset(seed=seed)
    if not np.all(first == get_state(env, state_type)):
        raise AssertionError("reset is not deterministic")
