"""The algorithm registry: every trainer of :mod:`palaestra.train`, by name.

``palaestra train --algo NAME``, :func:`palaestra.train.runner.run_training`, the
checkpoint loader (:func:`palaestra.train.checkpoint.load_policy`) and the presets
(:mod:`palaestra.train.presets`) find an algorithm here and nowhere else. An entry names
its classes and functions by ``"module:attribute"`` strings, so reading the registry
imports neither torch nor the algorithm (the command line lists the names cheaply); the
module is imported the first time one of them is used.

Adding an algorithm is one module plus one entry (see ``docs/guide/training.md``)::

    register(Algorithm(
        name="a2c",
        agent="palaestra.train.a2c:A2C",
        config="palaestra.train.a2c:A2CConfig",
        actor="palaestra.train.a2c:a2c_actor",
        default_policy="auto",
        presets={"CartPole": {"config": {"num_envs": 8}, "steps": 100_000}},
        generic_preset={"config": {}, "steps": 1_000_000},
    ))

Example:
    >>> names()
    ('ppo', 'reinforce', 'dqn', 'sac')
    >>> get("dqn").agent
    'palaestra.train.dqn:DQN'
    >>> get("a3c")
    Traceback (most recent call last):
    ...
    ValueError: Unknown algorithm 'a3c'; registered: ppo, reinforce, dqn, sac.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Mapping
from typing import Any


@dataclasses.dataclass(frozen=True)
class Algorithm:
    """One registered algorithm.

    Attributes:
        name: the name users type (``--algo NAME``, ``"algo"`` in checkpoints).
        agent: ``"module:Class"`` of the trainer, built as ``Class(policy, env, **fields)``
            and subclassing :class:`palaestra.train.core.agent.Agent`.
        config: ``"module:Class"`` of its config dataclass (its fields are what
            ``--set`` accepts).
        actor: ``"module:function"`` that rebuilds an actor from a checkpoint:
            ``function(state, observation_space, action_space)`` returning an object
            with ``act(observations, deterministic)``; it must load weights only (no
            optimizer, no env), and is also called under ``torch.device("meta")`` to
            check sizes before anything is allocated.
        default_policy: the policy ``palaestra train`` builds (``"auto"`` picks from the
            observation space where the algorithm takes several).
        resumable: whether ``palaestra train --resume`` can continue its runs.
        presets: tuned presets by env name without version (``"CartPole"``): keyword
            arguments of :class:`palaestra.train.presets.Preset`.
        generic_preset: the :class:`~palaestra.train.presets.Preset` keyword arguments
            for envs without a tuned set (``tuned`` is set to ``False``).

    Example:
        >>> Algorithm("x", "m:X", "m:XConfig", "m:x_actor").resumable
        True
    """

    name: str
    agent: str
    config: str
    actor: str
    default_policy: str = "MlpPolicy"
    resumable: bool = True
    presets: Mapping[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)
    generic_preset: Mapping[str, Any] = dataclasses.field(
        default_factory=lambda: {"config": {}, "steps": 100_000}
    )

    def agent_class(self) -> type:
        """Import and return the trainer class."""
        return _resolve(self.agent)

    def config_class(self) -> type:
        """Import and return the config dataclass."""
        return _resolve(self.config)

    def config_fields(self) -> list[str]:
        """Names of the config's fields (what ``--set`` accepts)."""
        return [field.name for field in dataclasses.fields(self.config_class())]

    def build_actor(self, state: dict[str, Any], observation_space: Any, action_space: Any) -> Any:
        """Rebuild the actor of a checkpoint ``state`` (see :attr:`actor`)."""
        return _resolve(self.actor)(state, observation_space, action_space)


_REGISTRY: dict[str, Algorithm] = {}


def register(algorithm: Algorithm) -> Algorithm:
    """Add ``algorithm`` to the registry (replacing an entry of the same name).

    Args:
        algorithm: the entry.

    Returns:
        The entry.

    Raises:
        ValueError: for a name that is not a lower-case identifier, or a path that is
            not ``"module:attribute"``.

    Example:
        >>> entry = register(Algorithm("mine", "m:Mine", "m:MineConfig", "m:mine_actor"))
        >>> "mine" in names()
        True
        >>> unregister("mine")
    """
    if not (algorithm.name.isidentifier() and algorithm.name == algorithm.name.lower()):
        raise ValueError(
            f"Algorithm names are lower-case identifiers (they are typed as --algo NAME), "
            f"got {algorithm.name!r}."
        )
    for path in (algorithm.agent, algorithm.config, algorithm.actor):
        module, _, attribute = path.partition(":")
        if not module or not attribute:
            raise ValueError(
                f"Algorithm {algorithm.name!r}: {path!r} is not a 'module:attribute' path."
            )
    _REGISTRY[algorithm.name] = algorithm
    return algorithm


def unregister(name: str) -> None:
    """Remove the entry ``name`` (a no-op when there is none).

    Example:
        >>> unregister("not-there")
    """
    _REGISTRY.pop(name, None)


def get(name: str) -> Algorithm:
    """Return the entry of ``name``.

    Raises:
        ValueError: for an unknown name, listing the registered ones.

    Example:
        >>> get("sac").default_policy
        'MlpPolicy'
    """
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"Unknown algorithm {name!r}; registered: {', '.join(_REGISTRY)}."
        ) from None


def names() -> tuple[str, ...]:
    """Return the registered names, in registration order.

    Example:
        >>> "ppo" in names()
        True
    """
    return tuple(_REGISTRY)


def _resolve(path: str) -> Any:
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


register(
    Algorithm(
        name="ppo",
        agent="palaestra.train.ppo:PPO",
        config="palaestra.train.ppo:PPOConfig",
        actor="palaestra.train.ppo:ppo_actor",
        default_policy="auto",
    )
)
register(
    Algorithm(
        name="reinforce",
        agent="palaestra.train.reinforce:Reinforce",
        config="palaestra.train.reinforce:ReinforceConfig",
        actor="palaestra.train.reinforce:reinforce_actor",
        resumable=False,
    )
)
register(
    Algorithm(
        name="dqn",
        agent="palaestra.train.dqn:DQN",
        config="palaestra.train.dqn:DQNConfig",
        actor="palaestra.train.dqn:dqn_actor",
    )
)
register(
    Algorithm(
        name="sac",
        agent="palaestra.train.sac:SAC",
        config="palaestra.train.sac:SACConfig",
        actor="palaestra.train.sac:sac_actor",
    )
)
