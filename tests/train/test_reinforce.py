"""REINFORCE: training loop, stopping rules, reproducibility, continuous actions."""

import dataclasses

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from palaestra.train.reinforce import Reinforce, ReinforceConfig  # noqa: E402


def test_same_seed_gives_the_same_learning_curve(tiny_reinforce_config):
    first = Reinforce("CartPole-v1", tiny_reinforce_config).learn(max_episodes=15)
    second = Reinforce("CartPole-v1", tiny_reinforce_config).learn(max_episodes=15)
    assert first.episode_returns == second.episode_returns
    assert first.rolling_means == second.rolling_means


def test_rolling_mean_uses_the_last_n_trials_episodes(tiny_reinforce_config):
    config = dataclasses.replace(tiny_reinforce_config, n_trials=3)
    result = Reinforce("CartPole-v1", config).learn(max_episodes=6)
    assert result.rolling_means[-1] == pytest.approx(np.mean(result.episode_returns[-3:]))
    assert result.rolling_means[0] == result.episode_returns[0]


def test_reaching_the_reward_threshold_stops_as_solved(tiny_reinforce_config):
    config = dataclasses.replace(tiny_reinforce_config, n_trials=2, reward_threshold=1.0)
    result = Reinforce("CartPole-v1", config).learn(max_episodes=50)
    assert result.solved
    assert result.stop_reason == "solved"
    assert result.episodes == 2


def test_no_improvement_for_patience_episodes_stops_early(tiny_reinforce_config):
    config = dataclasses.replace(
        tiny_reinforce_config, n_trials=2, patience=3, min_improvement=1e9, learning_rate=0.0
    )
    result = Reinforce("CartPole-v1", config).learn(max_episodes=50)
    # The window fills at episode 2 (first best), then 3 episodes without improvement.
    assert result.stop_reason == "no_improvement"
    assert result.episodes == 5


def test_max_steps_stops_between_episodes(tiny_reinforce_config):
    result = Reinforce("CartPole-v1", tiny_reinforce_config).learn(max_steps=30)
    assert result.stop_reason == "max_steps"
    assert result.steps >= 30


def test_progress_lines_every_print_interval_episodes(tiny_reinforce_config):
    lines = []
    config = dataclasses.replace(tiny_reinforce_config, print_interval=2)
    Reinforce("CartPole-v1", config, log=lines.append).learn(max_episodes=5)
    assert len(lines) == 2
    assert lines[0].startswith("episode     2 |")
    assert "mean(10)" in lines[0]


def test_squashed_policy_keeps_pendulum_torque_in_bounds(tiny_reinforce_config):
    agent = Reinforce("Pendulum-v1", tiny_reinforce_config)
    agent.learn(max_episodes=1)
    obs = np.random.default_rng(0).normal(size=(50, 3)) * 10
    actions = agent.predict(obs, deterministic=False)
    assert actions.shape == (50, 1)
    assert np.all(np.abs(actions) <= 2.0)


def test_invalid_window_is_rejected():
    with pytest.raises(ValueError, match="n_trials must be a positive int"):
        ReinforceConfig(n_trials=0)
