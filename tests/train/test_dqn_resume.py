"""A loaded or resumed off-policy agent refills its (empty) replay buffer before training.

Checkpoints hold networks and optimizers, not the replay buffer (as Stable-Baselines3's by
default), so the next update waits for ``learning_starts`` new transitions, as in a new run.
"""

import pytest

pytest.importorskip("torch")

from palaestra.train.dqn import DQN
from palaestra.train.sac import SAC

AGENTS = [
    pytest.param((DQN, "CartPole-v1", {"train_freq": 4}), id="dqn"),
    pytest.param((SAC, "Pendulum-v1", {}), id="sac"),
]
SMALL = {"hidden_sizes": (8,), "learning_starts": 32, "batch_size": 8, "gradient_steps": 1}


@pytest.fixture(params=AGENTS)
def trained(request, tmp_path):
    trainer, env_id, extra = request.param
    agent = trainer("MlpPolicy", env_id, **SMALL, **extra)
    agent.learn(64, progress_bar=False)
    agent.save(tmp_path / "agent.pt")
    return trainer, agent, tmp_path / "agent.pt", {**SMALL, **extra}


def test_a_loaded_agent_waits_for_learning_starts_new_transitions(trained):
    trainer, agent, path, _ = trained
    loaded = trainer.load(path)
    updates = loaded.num_updates
    assert updates == agent.num_updates > 0
    loaded.learn(32, progress_bar=False)
    assert loaded.num_updates == updates and len(loaded.buffer) > 0
    loaded.learn(16, progress_bar=False)
    assert loaded.num_updates > updates


def test_load_state_waits_for_learning_starts_new_transitions(trained):
    trainer, agent, _, hyper_parameters = trained
    fresh = trainer("MlpPolicy", agent.env_id, **hyper_parameters)
    fresh.load_state(agent.state())
    fresh.learn(32, progress_bar=False)
    assert fresh.num_updates == agent.num_updates
    fresh.learn(16, progress_bar=False)
    assert fresh.num_updates > agent.num_updates
