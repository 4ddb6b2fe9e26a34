"""Tuned default hyper-parameters per environment and algorithm.

These are the defaults of both the Python API (``PPO("MlpPolicy", "CartPole-v1")``) and
``palaestra train``; explicit settings always win. The sets follow rl-baselines3-zoo's
tuned hyper-parameters where it has one (without its extras such as gSDE or frame
stacking). Presets are looked up by the env's name without version, so every version of an
env shares them, and an unversioned id resolves to the version ``make`` would build. Envs
without a tuned set get the algorithm's generic defaults.

Example:
    >>> preset("CartPole-v1", "ppo").config["n_steps"]
    32
    >>> preset("CartPole", "ppo") == preset("CartPole-v1", "ppo")
    True
    >>> preset("NoSuchEnv-v0", "ppo").steps
    1000000
"""

from __future__ import annotations

import dataclasses
from typing import Any

from palaestra.train.core import registry

ALGORITHMS = registry.names()
"""The algorithms registered when this module was imported (see :func:`algorithm_names`)."""


@dataclasses.dataclass(frozen=True)
class Preset:
    """The settings training starts from for one env and algorithm.

    Attributes:
        config: keyword arguments for the algorithm's config dataclass.
        steps: env-step budget of ``palaestra train``.
        stop_at_threshold: stop as soon as an evaluation reaches the env's
            ``reward_threshold`` (or ``target`` for envs that declare none).
        target: the return that counts as solved when the env spec has no threshold.
        eval_every: env steps between periodic evaluations (``None``: about 50 per run).
        tuned: whether this is an env-specific set rather than the generic defaults.
    """

    config: dict[str, Any]
    steps: int
    stop_at_threshold: bool = True
    target: float | None = None
    eval_every: int | None = None
    tuned: bool = True


_CARTPOLE_PPO = {
    "num_envs": 8,
    "n_steps": 32,
    "batch_size": 256,
    "n_epochs": 20,
    "gamma": 0.98,
    "gae_lambda": 0.8,
    "learning_rate": 1e-3,
    "anneal_lr": True,
    "clip_range": 0.2,
    "ent_coef": 0.0,
}

_PENDULUM_PPO = {
    "num_envs": 8,
    "n_steps": 256,
    "batch_size": 256,
    "n_epochs": 10,
    "gamma": 0.9,
    "gae_lambda": 0.95,
    "learning_rate": 1e-3,
    "anneal_lr": True,
    "clip_range": 0.2,
    "ent_coef": 0.0,
    "normalize_observation": True,
    "normalize_reward": True,
    "squash": False,
}

_TOY_TEXT_PPO = {
    "num_envs": 8,
    "n_steps": 128,
    "batch_size": 256,
    "n_epochs": 4,
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "learning_rate": 1e-3,
    "ent_coef": 0.01,
}

_BOX2D_PPO = {
    "num_envs": 16,
    "n_steps": 1024,
    "batch_size": 64,
    "n_epochs": 4,
    "gamma": 0.999,
    "gae_lambda": 0.98,
    "ent_coef": 0.01,
}

_MUJOCO_PPO = {
    "num_envs": 1,
    "n_steps": 2048,
    "batch_size": 64,
    "n_epochs": 10,
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "learning_rate": 3e-4,
    "anneal_lr": True,
    "normalize_observation": True,
    "normalize_reward": True,
}

_MUJOCO_SAC = {"learning_starts": 10_000}

_DISCRETE_DQN_256 = {
    "learning_rate": 6.3e-4,
    "batch_size": 128,
    "buffer_size": 50_000,
    "learning_starts": 0,
    "gamma": 0.99,
    "target_update_interval": 250,
    "train_freq": 4,
    "gradient_steps": 4,
    "exploration_fraction": 0.12,
    "exploration_final_eps": 0.1,
    "hidden_sizes": (256, 256),
}

_TOY_TEXT_DQN = {
    "learning_rate": 1e-3,
    "batch_size": 64,
    "buffer_size": 50_000,
    "learning_starts": 1000,
    "target_update_interval": 500,
    "train_freq": 4,
    "exploration_fraction": 0.3,
    "exploration_final_eps": 0.05,
}

_MUJOCO_NAMES = (
    "Ant",
    "HalfCheetah",
    "Hopper",
    "Humanoid",
    "HumanoidStandup",
    "InvertedDoublePendulum",
    "InvertedPendulum",
    "Pusher",
    "Reacher",
    "Swimmer",
    "Walker2d",
)

_PRESETS: dict[tuple[str, str], Preset] = {
    # classic control
    ("CartPole", "ppo"): Preset(_CARTPOLE_PPO, 100_000, eval_every=256),
    ("CartPole", "reinforce"): Preset({}, 500_000),
    ("CartPole", "dqn"): Preset(
        {
            "learning_rate": 2.3e-3,
            "batch_size": 64,
            "buffer_size": 100_000,
            "learning_starts": 1000,
            "gamma": 0.99,
            "target_update_interval": 10,
            "train_freq": 256,
            "gradient_steps": 128,
            "exploration_fraction": 0.16,
            "exploration_final_eps": 0.04,
            "hidden_sizes": (256, 256),
        },
        50_000,
        eval_every=2048,
    ),
    ("Pendulum", "ppo"): Preset(_PENDULUM_PPO, 400_000, target=-200.0),
    ("Pendulum", "reinforce"): Preset({}, 500_000, target=-200.0),
    ("Pendulum", "sac"): Preset({"learning_rate": 1e-3}, 20_000, target=-200.0, eval_every=1000),
    ("Acrobot", "ppo"): Preset(
        {
            "num_envs": 16,
            "n_steps": 256,
            "gae_lambda": 0.94,
            "gamma": 0.99,
            "n_epochs": 4,
            "normalize_observation": True,
            "ent_coef": 0.0,
        },
        1_000_000,
    ),
    ("Acrobot", "reinforce"): Preset({}, 500_000),
    ("Acrobot", "dqn"): Preset(_DISCRETE_DQN_256, 100_000),
    ("MountainCar", "ppo"): Preset(
        {
            "num_envs": 16,
            "n_steps": 16,
            "gae_lambda": 0.98,
            "gamma": 0.99,
            "n_epochs": 4,
            "normalize_observation": True,
            "ent_coef": 0.0,
        },
        1_000_000,
    ),
    ("MountainCar", "reinforce"): Preset({}, 500_000),
    ("MountainCar", "dqn"): Preset(
        {
            "learning_rate": 4e-3,
            "batch_size": 128,
            "buffer_size": 10_000,
            "learning_starts": 1000,
            "gamma": 0.98,
            "target_update_interval": 600,
            "train_freq": 16,
            "gradient_steps": 8,
            "exploration_fraction": 0.2,
            "exploration_final_eps": 0.07,
            "hidden_sizes": (256, 256),
        },
        120_000,
    ),
    ("MountainCarContinuous", "ppo"): Preset(
        {
            "num_envs": 1,
            "n_steps": 8,
            "batch_size": 256,
            "gamma": 0.9999,
            "learning_rate": 7.77e-5,
            "ent_coef": 0.00429,
            "clip_range": 0.1,
            "n_epochs": 10,
            "gae_lambda": 0.9,
            "max_grad_norm": 5.0,
            "vf_coef": 0.19,
            "normalize_observation": True,
            "normalize_reward": True,
        },
        100_000,
    ),
    ("MountainCarContinuous", "reinforce"): Preset({}, 500_000),
    ("MountainCarContinuous", "sac"): Preset(
        {
            "learning_rate": 3e-4,
            "buffer_size": 50_000,
            "batch_size": 512,
            "ent_coef": 0.1,
            "train_freq": 32,
            "gradient_steps": 32,
            "gamma": 0.9999,
            "tau": 0.01,
            "learning_starts": 0,
            "hidden_sizes": (64, 64),
        },
        50_000,
    ),
    # toy text
    ("FrozenLake", "ppo"): Preset(_TOY_TEXT_PPO, 100_000, stop_at_threshold=True),
    ("FrozenLake8x8", "ppo"): Preset(_TOY_TEXT_PPO, 300_000),
    ("Taxi", "ppo"): Preset(_TOY_TEXT_PPO, 500_000, target=8.0),
    ("CliffWalking", "ppo"): Preset(_TOY_TEXT_PPO, 200_000, target=-13.0),
    ("CliffWalkingSlippery", "ppo"): Preset(_TOY_TEXT_PPO, 300_000, stop_at_threshold=False),
    ("Blackjack", "ppo"): Preset(_TOY_TEXT_PPO, 200_000, stop_at_threshold=False),
    ("FrozenLake", "dqn"): Preset(_TOY_TEXT_DQN, 100_000),
    ("FrozenLake8x8", "dqn"): Preset(_TOY_TEXT_DQN, 300_000),
    ("Taxi", "dqn"): Preset(_TOY_TEXT_DQN, 500_000, target=8.0),
    ("CliffWalking", "dqn"): Preset(_TOY_TEXT_DQN, 200_000, target=-13.0),
    ("CliffWalkingSlippery", "dqn"): Preset(_TOY_TEXT_DQN, 300_000, stop_at_threshold=False),
    ("Blackjack", "dqn"): Preset(_TOY_TEXT_DQN, 200_000, stop_at_threshold=False),
    # Box2D
    ("LunarLander", "ppo"): Preset(_BOX2D_PPO, 1_000_000),
    ("LunarLander", "dqn"): Preset(_DISCRETE_DQN_256, 100_000),
    ("LunarLanderContinuous", "ppo"): Preset(_BOX2D_PPO, 1_000_000),
    ("LunarLanderContinuous", "sac"): Preset(
        {
            "learning_rate": 7.3e-4,
            "batch_size": 256,
            "gamma": 0.99,
            "tau": 0.01,
            "learning_starts": 10_000,
            "hidden_sizes": (400, 300),
        },
        500_000,
    ),
    ("BipedalWalker", "ppo"): Preset(
        {
            "num_envs": 32,
            "n_steps": 2048,
            "batch_size": 64,
            "gae_lambda": 0.95,
            "gamma": 0.999,
            "n_epochs": 10,
            "ent_coef": 0.0,
            "learning_rate": 2.5e-4,
            "clip_range": 0.2,
            "normalize_observation": True,
            "normalize_reward": True,
        },
        5_000_000,
    ),
    ("BipedalWalker", "sac"): Preset(
        {
            "learning_rate": 7.3e-4,
            "buffer_size": 300_000,
            "batch_size": 256,
            "gamma": 0.98,
            "tau": 0.02,
            "train_freq": 64,
            "gradient_steps": 64,
            "learning_starts": 10_000,
            "hidden_sizes": (400, 300),
        },
        500_000,
    ),
    ("BipedalWalkerHardcore", "ppo"): Preset(
        {
            "num_envs": 32,
            "n_steps": 2048,
            "batch_size": 64,
            "gamma": 0.999,
            "n_epochs": 10,
            "learning_rate": 2.5e-4,
            "normalize_observation": True,
            "normalize_reward": True,
        },
        10_000_000,
    ),
    ("BipedalWalkerHardcore", "sac"): Preset(
        {
            "learning_rate": 7.3e-4,
            "buffer_size": 1_000_000,
            "batch_size": 256,
            "gamma": 0.99,
            "tau": 0.01,
            "learning_starts": 10_000,
            "hidden_sizes": (400, 300),
        },
        10_000_000,
    ),
    ("CarRacing", "ppo"): Preset(
        {
            "num_envs": 8,
            "n_steps": 512,
            "batch_size": 128,
            "gamma": 0.99,
            "gae_lambda": 0.95,
            "n_epochs": 10,
            "ent_coef": 0.0,
            "learning_rate": 1e-4,
            "anneal_lr": True,
            "clip_range": 0.2,
            "normalize_reward": True,
        },
        4_000_000,
    ),
    ("CarRacing", "sac"): Preset({"learning_starts": 10_000, "buffer_size": 100_000}, 1_000_000),
}
for _name in _MUJOCO_NAMES:
    _PRESETS[(_name, "ppo")] = Preset(_MUJOCO_PPO, 1_000_000)
    _PRESETS[(_name, "sac")] = Preset(_MUJOCO_SAC, 1_000_000)

_GENERIC = {
    "ppo": Preset(
        {"num_envs": 8, "n_steps": 256, "normalize_observation": True, "normalize_reward": True},
        1_000_000,
        tuned=False,
    ),
    "reinforce": Preset({}, 500_000, tuned=False),
    "dqn": Preset({}, 100_000, tuned=False),
    "sac": Preset({}, 100_000, tuned=False),
}


def canonical_id(env_id: str) -> str:
    """Return the id ``make(env_id)`` builds: no ``module:`` prefix, latest version if none given.

    Nothing is imported; ids that are not registered come back without their prefix.

    Example:
        >>> canonical_id("CartPole"), canonical_id("mymodule:CartPole-v0")
        ('CartPole-v1', 'CartPole-v0')
    """
    from palaestra.envs.registration._ids import get_env_id, parse_env_id
    from palaestra.envs.registration._registry import find_highest_version

    name = env_id.split(":", 1)[-1]
    try:
        ns, base, version = parse_env_id(name)
    except Exception:  # a malformed id is make's to report
        return name
    if version is None:
        latest = find_highest_version(ns, base)
        if latest is not None:
            return get_env_id(ns, base, latest)
    return name


def _base_name(env_id: str) -> str:
    name = canonical_id(env_id)
    return name.split("/")[-1].rsplit("-v", 1)[0]


def algorithm_names() -> tuple[str, ...]:
    """Return the registered algorithms (:mod:`palaestra.train.core.registry`), in order.

    Example:
        >>> algorithm_names()[:2]
        ('ppo', 'reinforce')
    """
    return registry.names()


def preset(env_id: str | None, algo: str) -> Preset:
    """Return the starting settings for ``env_id`` trained with ``algo``.

    The tuned sets of this module come first, then the ones the algorithm's registry
    entry carries (:attr:`~palaestra.train.core.registry.Algorithm.presets`), then its
    generic defaults.

    Args:
        env_id: the env id (a ``module:`` prefix is ignored; unversioned ids resolve to
            the version ``make`` builds); ``None`` gives the generic defaults.
        algo: a registered algorithm (:func:`algorithm_names`).

    Raises:
        ValueError: for an unknown ``algo``.

    Example:
        >>> preset("Pendulum-v1", "sac").config
        {'learning_rate': 0.001}
    """
    names = registry.names()
    if algo not in names:
        raise ValueError(f"algo must be one of {names}, got {algo!r}.")
    entry = registry.get(algo)
    generic = _GENERIC.get(algo) or Preset(**{**entry.generic_preset, "tuned": False})
    if env_id is None:
        return generic
    name = _base_name(env_id)
    if (name, algo) in _PRESETS:
        return _PRESETS[(name, algo)]
    if name in entry.presets:
        return Preset(**entry.presets[name])
    return generic


def has_preset(env_id: str, algo: str) -> bool:
    """Whether ``env_id`` has a tuned (env-specific) preset for ``algo``.

    Example:
        >>> has_preset("CartPole-v1", "dqn"), has_preset("CartPole-v1", "sac")
        (True, False)
    """
    return preset(env_id, algo).tuned


def algorithms_for(env_id: str) -> list[str]:
    """Return the algorithms with a tuned preset for ``env_id``.

    Example:
        >>> algorithms_for("Pendulum-v1")
        ['ppo', 'reinforce', 'sac']
    """
    return [algo for algo in registry.names() if has_preset(env_id, algo)]
