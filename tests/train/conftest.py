"""Shared fixtures of the training tests: tiny, fast configurations."""

import pytest


@pytest.fixture
def tiny_ppo_config():
    pytest.importorskip("torch")
    from palaestra.train.ppo import PPOConfig

    return PPOConfig(
        num_envs=4, n_steps=16, batch_size=32, n_epochs=2, hidden_sizes=(16, 16), seed=3
    )


@pytest.fixture
def tiny_reinforce_config():
    pytest.importorskip("torch")
    from palaestra.train.reinforce import ReinforceConfig

    return ReinforceConfig(hidden_dim=16, print_interval=0, seed=3)
