"""Long runs (``-m slow``): the trainers solve their benchmark environments."""

import pytest

torch = pytest.importorskip("torch")

import palaestra as gym  # noqa: E402
from palaestra.train.dqn import DQN  # noqa: E402
from palaestra.train.envs import load_normalization_state, normalization_state  # noqa: E402
from palaestra.train.evaluation import evaluate  # noqa: E402
from palaestra.train.ppo import PPO  # noqa: E402
from palaestra.train.reinforce import Reinforce, ReinforceConfig  # noqa: E402
from palaestra.train.sac import SAC  # noqa: E402

pytestmark = pytest.mark.slow


def train_ppo_until(env_id, target, budget, eval_every, seed=0, trainer=PPO, **changes):
    """Train with the env's preset, evaluating every ``eval_every`` steps until ``target``."""
    agent = trainer("MlpPolicy", env_id, seed=seed, **changes)

    def evaluation_envs():
        envs = gym.make_vec(env_id, num_envs=100)
        return load_normalization_state(envs, normalization_state(agent.env))

    next_eval = [eval_every]

    def stop_when_solved(stats):
        if stats["steps"] < next_eval[0]:
            return True
        next_eval[0] += eval_every
        return evaluate(agent, evaluation_envs(), 100, seed=seed).mean() < target

    agent.learn(budget, callback=stop_when_solved, progress_bar=False)
    return agent, evaluate(agent, evaluation_envs(), 100, seed=seed + 1)


@pytest.mark.timeout(600)
def test_ppo_solves_cartpole_deterministically_over_100_episodes():
    agent, returns = train_ppo_until("CartPole-v1", 475.0, budget=100_000, eval_every=1024)
    assert returns.mean() >= 475.0, (agent.num_steps, returns.mean())


@pytest.mark.timeout(900)
def test_ppo_autograd_path_solves_cartpole():
    agent, returns = train_ppo_until(
        "CartPole-v1", 475.0, budget=100_000, eval_every=1024, fast_path=False
    )
    assert returns.mean() >= 475.0, (agent.num_steps, returns.mean())


@pytest.mark.timeout(1800)
def test_dqn_solves_cartpole_with_its_preset():
    agent, returns = train_ppo_until(
        "CartPole-v1", 475.0, budget=50_000, eval_every=2048, trainer=DQN, log_interval=2048
    )
    assert returns.mean() >= 475.0, (agent.num_steps, returns.mean())


@pytest.mark.timeout(3600)
def test_sac_solves_pendulum_with_its_preset():
    agent, returns = train_ppo_until(
        "Pendulum-v1", -200.0, budget=20_000, eval_every=1000, trainer=SAC, log_interval=1000
    )
    assert returns.mean() >= -200.0, (agent.num_steps, returns.mean())


@pytest.mark.timeout(900)
def test_ppo_solves_pendulum():
    agent, returns = train_ppo_until("Pendulum-v1", -200.0, budget=400_000, eval_every=20_480)
    assert returns.mean() >= -200.0, (agent.num_steps, returns.mean())


@pytest.mark.timeout(1800)
def test_reinforce_solves_cartpole_within_1000_episodes_for_4_of_5_seeds():
    solved = [
        Reinforce("CartPole-v1", ReinforceConfig(seed=seed, print_interval=0))
        .learn(max_episodes=1000)
        .solved
        for seed in range(5)
    ]
    assert sum(solved) >= 4, solved


@pytest.mark.timeout(600)
def test_palaestra_train_cartpole_defaults_reach_475(tmp_path):
    import json

    from palaestra.cli import main

    assert main(["train", "CartPole-v1", "--out", str(tmp_path), "--no-progress"]) == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["eval_episodes"] == 100
    assert summary["eval_mean"] >= 475.0, summary
