"""Tuned default hyper-parameters per environment, used by ``palaestra train``.

Unknown envs get the algorithm's generic defaults. Explicit settings always win.

Example:
    >>> preset("CartPole-v1", "ppo").config["n_steps"]
    32
    >>> preset("NoSuchEnv-v0", "ppo").steps
    1000000
"""

from __future__ import annotations

import dataclasses
from typing import Any

ALGORITHMS = ("ppo", "reinforce")


@dataclasses.dataclass(frozen=True)
class Preset:
    """The settings ``palaestra train`` starts from for one env and algorithm.

    Attributes:
        config: keyword arguments for the algorithm's config dataclass.
        steps: env-step budget.
        stop_at_threshold: stop as soon as an evaluation reaches the env's
            ``reward_threshold`` (or ``target`` for envs that declare none).
        target: the return that counts as solved when the env spec has no threshold.
    """

    config: dict[str, Any]
    steps: int
    stop_at_threshold: bool = True
    target: float | None = None


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

_PRESETS: dict[tuple[str, str], Preset] = {
    ("CartPole-v0", "ppo"): Preset(_CARTPOLE_PPO, 100_000),
    ("CartPole-v1", "ppo"): Preset(_CARTPOLE_PPO, 100_000),
    ("Pendulum-v1", "ppo"): Preset(_PENDULUM_PPO, 400_000, target=-200.0),
    ("CartPole-v1", "reinforce"): Preset({}, 500_000),
    ("Acrobot-v1", "ppo"): Preset(
        {
            "num_envs": 8,
            "n_steps": 256,
            "gae_lambda": 0.94,
            "gamma": 0.99,
            "n_epochs": 4,
            "normalize_observation": True,
            "ent_coef": 0.0,
        },
        300_000,
    ),
}

_GENERIC = {
    "ppo": Preset(
        {"num_envs": 8, "n_steps": 256, "normalize_observation": True, "normalize_reward": True},
        1_000_000,
    ),
    "reinforce": Preset({}, 500_000),
}


def preset(env_id: str, algo: str) -> Preset:
    """Return the starting settings for ``env_id`` trained with ``algo``.

    Args:
        env_id: the env id (a ``module:`` prefix is ignored).
        algo: ``"ppo"`` or ``"reinforce"``.

    Raises:
        ValueError: for an unknown ``algo``.

    Example:
        >>> preset("Pendulum-v1", "ppo").target
        -200.0
    """
    if algo not in ALGORITHMS:
        raise ValueError(f"algo must be one of {ALGORITHMS}, got {algo!r}.")
    name = env_id.split(":")[-1]
    return _PRESETS.get((name, algo), _GENERIC[algo])
