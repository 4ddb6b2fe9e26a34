"""Saving trained agents to disk and loading them back as ready-to-act policies.

A checkpoint is one ``torch.save`` file holding the algorithm, the env id, the
hyper-parameters, the network weights and the observation/reward normalization statistics;
it loads with ``weights_only=True`` (no pickled code).

Example:
    >>> import tempfile, pathlib
    >>> from palaestra.train.ppo import PPO, PPOConfig
    >>> agent = PPO("CartPole-v1", PPOConfig(num_envs=2, n_steps=4, batch_size=8, n_epochs=1))
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "model.pt"
    >>> save_agent(agent, path)
    >>> policy = load_policy(path)
    >>> policy.algo, policy.env_id
    ('ppo', 'CartPole-v1')
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from palaestra.train._torch import require_torch
from palaestra.train.distributions import make_head
from palaestra.train.envs import load_normalization_state

torch = require_torch()


def save_agent(agent: Any, path: str | os.PathLike) -> None:
    """Write ``agent.state()`` to ``path`` (parent folders are created).

    Args:
        agent: a :class:`~palaestra.train.ppo.PPO` or
            :class:`~palaestra.train.reinforce.Reinforce` agent.
        path: the file to write.

    Example:
        >>> import tempfile, pathlib
        >>> from palaestra.train.reinforce import Reinforce, ReinforceConfig
        >>> agent = Reinforce("CartPole-v1", ReinforceConfig(hidden_dim=8, print_interval=0))
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "agent.pt"
        >>> save_agent(agent, path)
        >>> load_state(path)["algo"]
        'reinforce'
    """
    state = dict(agent.state())
    state["normalization"] = {
        key: {name: torch.as_tensor(value) for name, value in stats.items()}
        for key, stats in state["normalization"].items()
    }
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    torch.save(state, path)


def load_state(path: str | os.PathLike) -> dict[str, Any]:
    """Read a checkpoint written by :func:`save_agent`, with normalization stats as NumPy.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
    """
    if not Path(path).is_file():
        raise FileNotFoundError(
            f"No checkpoint at {str(path)!r}; pass a file written by `palaestra train` "
            "(DIR/model.pt) or by palaestra.train.checkpoint.save_agent."
        )
    state = torch.load(path, map_location="cpu", weights_only=True)
    state["normalization"] = {
        key: {name: np.asarray(value) for name, value in stats.items()}
        for key, stats in state["normalization"].items()
    }
    return state


class TrainedPolicy:
    """A trained network with its action head and normalization, ready to act.

    Args:
        state: a checkpoint dictionary (see :func:`load_state`).
        action_space: one sub-env's action space.
        observation_space: one sub-env's observation space.
    """

    def __init__(self, state: dict[str, Any], action_space: Any, observation_space: Any):
        from palaestra.train.networks import ActorCritic, PolicyNetwork

        self.state = state
        self.algo = state["algo"]
        self.env_id = state["env_id"]
        self.normalization = state["normalization"]
        config = state["config"]
        obs_dim = int(np.prod(observation_space.shape))
        self.head = make_head(action_space, squash=config["squash"])
        self.head.load_state_dict(state["head"])
        if self.algo == "ppo":
            self.network = ActorCritic(obs_dim, self.head.num_outputs, config["hidden_sizes"])
        else:
            self.network = PolicyNetwork(
                obs_dim, self.head.num_outputs, config["hidden_dim"], config["dropout"]
            )
        self.network.load_state_dict(state["model"])
        self.network.eval()

    @torch.no_grad()
    def predict(self, observations: np.ndarray, deterministic: bool = True) -> np.ndarray:
        """Env actions for a batch of observations already normalized by :meth:`make_env`."""
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32))
        outputs = self.network(obs.reshape(len(obs), -1))
        if isinstance(outputs, tuple):
            outputs = outputs[0]
        actions = self.head.mode(outputs) if deterministic else self.head.sample(outputs)[0]
        return self.head.to_env(actions)

    def make_env(self, num_envs: int = 1, **kwargs: Any) -> Any:
        """Make a vector env of the trained env id with the saved observation normalization.

        Args:
            num_envs: number of sub-envs.
            **kwargs: passed to :func:`palaestra.make_vec` (e.g. ``render_mode``).
        """
        from palaestra import make_vec

        envs = make_vec(self.env_id, num_envs=num_envs, **kwargs)
        return load_normalization_state(envs, self.normalization, freeze=True)


def load_policy(path: str | os.PathLike) -> TrainedPolicy:
    """Load a checkpoint as a :class:`TrainedPolicy` (the env id must be registered).

    Args:
        path: a file written by :func:`save_agent`.

    Raises:
        FileNotFoundError: if ``path`` does not exist.

    Example:
        >>> import tempfile, pathlib
        >>> from palaestra.train.ppo import PPO, PPOConfig
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "model.pt"
        >>> save_agent(PPO("CartPole-v1", PPOConfig(num_envs=1, n_steps=4, batch_size=4)), path)
        >>> policy = load_policy(path)
        >>> policy.predict(np.zeros((3, 4), dtype=np.float32)).shape
        (3,)
    """
    from palaestra import make

    state = load_state(path)
    env = make(state["env_id"])
    try:
        return TrainedPolicy(state, env.action_space, env.observation_space)
    finally:
        env.close()
