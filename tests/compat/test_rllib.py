"""RLlib trains palaestra envs: ``register_env`` with a creator of one config, via to_gymnasium.

RLlib needs a ``gymnasium.Env``; the creator adapts the palaestra env. Slow: RLlib starts Ray
and env runners (and ``ray[rllib]`` pins an older Gymnasium, so its other dependencies are
installed next to Gymnasium 1.4 for this test).
"""

from __future__ import annotations

import pytest

import palaestra
from palaestra.compat import to_gymnasium

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")


def palaestra_cartpole(config: dict) -> object:
    """The creator RLlib calls with its ``env_config``."""
    return to_gymnasium(palaestra.make("CartPole-v1", **config))


@pytest.fixture
def local_ray():
    if ray.is_initialized():
        ray.shutdown()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.slow
def test_rllib_ppo_return_rises_on_a_registered_palaestra_env(local_ray):
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.tune.registry import register_env

    register_env("palaestra-CartPole-v1", palaestra_cartpole)
    config = (
        PPOConfig()
        .environment("palaestra-CartPole-v1", env_config={"sutton_barto_reward": False})
        .env_runners(num_env_runners=0)
        .training(train_batch_size_per_learner=1000, minibatch_size=250, num_epochs=6, lr=3e-4)
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        returns = [algo.train()["env_runners"]["episode_return_mean"] for _ in range(4)]
    finally:
        algo.stop()

    assert returns[-1] > 1.5 * returns[0]
