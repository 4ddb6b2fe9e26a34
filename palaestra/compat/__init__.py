"""Bridges to the Gymnasium ecosystem: Stable-Baselines3, CleanRL, RLlib and Gymnasium envs.

* :func:`to_gymnasium` / :func:`to_gymnasium_vector`: a palaestra env (vector env) as a real
  ``gymnasium.Env`` (``gymnasium.vector.VectorEnv``) with ``gymnasium.spaces``;
* :func:`from_gymnasium` / :func:`from_gymnasium_vector`: the other way, so third-party
  Gymnasium envs run in palaestra's vectorization modes and wrappers;
* :func:`register_in_gymnasium`: palaestra ids in Gymnasium's registry (``"palaestra/Taxi-v4"``);
  ``palaestra.make("gymnasium:CartPole-v1")`` makes a Gymnasium-registered env;
* :func:`sb3_vec_env`: any palaestra vector env as a Stable-Baselines3 ``VecEnv``;
* :func:`as_gymnasium` (and ``python -m palaestra.compat script.py``): ``import gymnasium``
  resolves to palaestra for the whole process and its workers, so programs written for
  Gymnasium run on palaestra's objects unchanged.

Gymnasium (extra ``gymnasium``) and Stable-Baselines3 (extra ``sb3``) are imported only when
one of these is called.

Example:
    >>> import gymnasium
    >>> import palaestra
    >>> env = to_gymnasium(palaestra.make("CartPole-v1"))
    >>> isinstance(env, gymnasium.Env), isinstance(env.action_space, gymnasium.spaces.Discrete)
    (True, True)
    >>> back = from_gymnasium(env)
    >>> isinstance(back, palaestra.Env)
    True
"""

from __future__ import annotations

from typing import Any

from palaestra._lazy import lazy_attributes
from palaestra.compat._gymnasium import require_gymnasium

__all__ = [
    "as_gymnasium",
    "to_gymnasium",
    "to_gymnasium_vector",
    "from_gymnasium",
    "from_gymnasium_vector",
    "register_in_gymnasium",
    "sb3_vec_env",
    "to_gymnasium_space",
    "from_gymnasium_space",
    "ToGymnasium",
    "ToGymnasiumVector",
    "FromGymnasium",
    "FromGymnasiumVector",
    "SB3VecEnv",
]

__getattr__, _lazy_dir = lazy_attributes(
    __name__,
    {
        "ToGymnasium": "_env",
        "FromGymnasium": "_env",
        "ToGymnasiumVector": "_vector",
        "FromGymnasiumVector": "_vector",
        "SB3VecEnv": "_sb3",
        "to_gymnasium_space": "_spaces",
        "from_gymnasium_space": "_spaces",
        "register_in_gymnasium": "_registration",
        "as_gymnasium": "_alias",
    },
)


def __dir__() -> list[str]:
    return sorted(set(__all__) | set(globals()))


def to_gymnasium(env: Any) -> Any:
    """Return ``env`` as a real ``gymnasium.Env`` (a :class:`ToGymnasium` adapter).

    Its spaces are ``gymnasium.spaces`` (converted recursively); seeding, ``np_random``,
    ``render``, ``spec`` and ``metadata`` are the palaestra env's. Stable-Baselines3,
    Gymnasium's wrappers and ``gymnasium.utils.env_checker.check_env`` accept it.

    Args:
        env: a palaestra environment.

    Raises:
        TypeError: ``env`` is not a palaestra env, or uses a space Gymnasium lacks.
        palaestra.error.DependencyNotInstalled: Gymnasium is not installed
            (``pip install "palaestra[gymnasium]"``).

    Example:
        >>> import palaestra
        >>> env = to_gymnasium(palaestra.make("FrozenLake-v1"))
        >>> env.observation_space
        Discrete(16)
    """
    require_gymnasium()
    from palaestra.compat._env import ToGymnasium

    return ToGymnasium(env)


def from_gymnasium(env: Any) -> Any:
    """Return a Gymnasium env as a palaestra :class:`~palaestra.Env` (a :class:`FromGymnasium`).

    Args:
        env: a ``gymnasium.Env`` (ale-py's Atari, gymnasium-robotics, your own...).

    Raises:
        TypeError: ``env`` is not a ``gymnasium.Env``, or uses a space palaestra lacks.
        palaestra.error.DependencyNotInstalled: Gymnasium is not installed.

    Example:
        >>> import gymnasium
        >>> import numpy as np
        >>> import palaestra
        >>> env = from_gymnasium(gymnasium.make("Pendulum-v1"))
        >>> env = palaestra.wrappers.ClipReward(env, -0.5, 0.0)
        >>> _ = env.reset(seed=0)
        >>> float(env.step(np.array([0.0], dtype=np.float32))[1])
        -0.5
    """
    require_gymnasium()
    from palaestra.compat._env import FromGymnasium

    return FromGymnasium(env)


def to_gymnasium_vector(envs: Any) -> Any:
    """Return a palaestra vector env as a ``gymnasium.vector.VectorEnv``.

    Any palaestra vector env works (sync, async, pool, ray, natively batched); the adapter's
    ``metadata["autoreset_mode"]`` is Gymnasium's member for the env's mode.

    Args:
        envs: a palaestra vector environment.

    Raises:
        TypeError: ``envs`` is not a palaestra vector env.
        palaestra.error.DependencyNotInstalled: Gymnasium is not installed.

    Example:
        >>> import palaestra
        >>> envs = to_gymnasium_vector(palaestra.make_vec("CartPole-v1", 4))
        >>> envs.single_action_space, envs.action_space
        (Discrete(2), MultiDiscrete([2 2 2 2]))
        >>> envs.close()
    """
    require_gymnasium()
    from palaestra.compat._vector import ToGymnasiumVector

    return ToGymnasiumVector(envs)


def from_gymnasium_vector(envs: Any) -> Any:
    """Return a ``gymnasium.vector.VectorEnv`` as a palaestra vector env.

    Args:
        envs: a Gymnasium vector environment.

    Raises:
        TypeError: ``envs`` is not a Gymnasium vector env.
        palaestra.error.DependencyNotInstalled: Gymnasium is not installed.

    Example:
        >>> import gymnasium
        >>> envs = from_gymnasium_vector(gymnasium.make_vec("CartPole-v1", 2))
        >>> envs.reset(seed=0)[0].shape
        (2, 4)
        >>> envs.close()
    """
    require_gymnasium()
    from palaestra.compat._vector import FromGymnasiumVector

    return FromGymnasiumVector(envs)


def sb3_vec_env(envs: Any) -> Any:
    """Return a palaestra vector env as a Stable-Baselines3 ``VecEnv`` (an :class:`SB3VecEnv`).

    Ended sub-envs are reset at once as SB3 expects, with ``terminal_observation`` and
    ``TimeLimit.truncated`` in their infos, whatever the vector env's autoreset mode
    (``SameStep`` costs nothing extra; the others reset the ended rows with a
    ``reset_mask``).

    Args:
        envs: a palaestra vector environment (native batched, sync, async, pool, ray).

    Raises:
        TypeError: ``envs`` is not a palaestra vector env.
        palaestra.error.DependencyNotInstalled: Stable-Baselines3 is not installed
            (``pip install "palaestra[sb3]"``).

    Example:
        >>> import palaestra
        >>> venv = sb3_vec_env(palaestra.make_vec("CartPole-v1", 2))
        >>> venv.num_envs, venv.reset().shape
        (2, (2, 4))
        >>> venv.close()
    """
    require_gymnasium()
    from palaestra.compat._sb3 import SB3VecEnv

    return SB3VecEnv(envs)
