"""The SB3-shaped API: Algo(policy, env_or_id_or_vector_env, **hp), learn, predict, save/load."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import palaestra as gym  # noqa: E402
from palaestra.train.dqn import DQN  # noqa: E402
from palaestra.train.ppo import PPO, PPOConfig  # noqa: E402
from palaestra.train.presets import preset  # noqa: E402
from palaestra.train.runner import RunSettings, build_agent  # noqa: E402
from palaestra.train.sac import SAC  # noqa: E402

TINY = {"num_envs": 2, "n_steps": 8, "batch_size": 16, "n_epochs": 1, "hidden_sizes": (8,)}


def test_ppo_trains_on_a_single_env_made_with_make():
    # Before: AttributeError: 'TimeLimit' object has no attribute 'num_envs'.
    agent = PPO("MlpPolicy", gym.make("CartPole-v1"), **TINY)
    agent.learn(16, progress_bar=False)
    assert (agent.env.num_envs, agent.num_steps) == (1, 16)


def test_ppo_accepts_a_ready_made_vector_env():
    agent = PPO("MlpPolicy", gym.make_vec("CartPole-v1", num_envs=3), **TINY)
    assert agent.config.num_envs == 3


@pytest.mark.parametrize("total, expected", [(100, 100), (50, 50), (7, 8)])
def test_learn_runs_exactly_the_steps_asked_rounded_up_to_whole_vector_steps(total, expected):
    # Before: learn(50_000) ran 65,536 steps (whole rollouts).
    agent = PPO("MlpPolicy", "CartPole-v1", **TINY)
    agent.learn(total, progress_bar=False)
    assert agent.num_steps == expected


def test_a_second_learn_call_continues_counting():
    agent = PPO("MlpPolicy", "CartPole-v1", **TINY)
    agent.learn(16, progress_bar=False)
    agent.learn(20, progress_bar=False)
    assert agent.num_steps == 36


def test_predict_takes_one_observation_and_returns_one_action():
    # Before: load_policy(...).predict(single_obs) raised a torch shape error.
    agent = PPO("MlpPolicy", "CartPole-v1", **TINY)
    action = agent.predict(np.zeros(4, dtype=np.float32))
    assert np.shape(action) == () and int(action) in (0, 1)


def test_predict_takes_a_batch_and_returns_a_batch():
    agent = PPO("MlpPolicy", "Pendulum-v1", **TINY)
    assert agent.predict(np.zeros((5, 3), dtype=np.float32)).shape == (5, 1)


def test_python_defaults_are_the_cli_preset():
    # Before: PPOConfig() defaults were SB3's, not the CLI's tuned CartPole preset.
    python_agent = PPO("MlpPolicy", "CartPole-v1")
    cli_agent, _, _ = build_agent(RunSettings("CartPole-v1"))
    assert python_agent.config == cli_agent.config
    assert python_agent.config.n_steps == preset("CartPole-v1", "ppo").config["n_steps"] == 32


def test_keyword_hyper_parameters_override_the_preset():
    agent = PPO("MlpPolicy", "CartPole-v1", n_steps=16, learning_rate=5e-4)
    assert (agent.config.n_steps, agent.config.learning_rate, agent.config.n_epochs) == (
        16,
        5e-4,
        20,
    )


def test_an_explicit_config_replaces_the_preset():
    agent = PPO("MlpPolicy", "CartPole-v1", config=PPOConfig(num_envs=2))
    assert agent.config.n_steps == PPOConfig().n_steps


def test_unknown_hyper_parameter_names_the_valid_ones():
    with pytest.raises(TypeError, match=r"Unknown PPOConfig hyper-parameters \['n_step'\]"):
        PPO("MlpPolicy", "CartPole-v1", n_step=16)


def test_the_old_positional_config_form_gets_a_clear_error():
    with pytest.raises(TypeError, match=r"PPO takes \(policy, env, \*\*hyper_parameters\)"):
        PPO("CartPole-v1", PPOConfig())


def test_unversioned_id_takes_the_preset_of_the_version_it_makes():
    agent = PPO("MlpPolicy", "CartPole")
    assert agent.env_id == "CartPole-v1"
    assert agent.config == PPO("MlpPolicy", "CartPole-v1").config


def test_save_then_load_restores_weights_steps_and_optimizer(tmp_path):
    agent = PPO("MlpPolicy", "CartPole-v1", **TINY)
    agent.learn(32, progress_bar=False)
    agent.save(tmp_path / "agent.pt")
    loaded = PPO.load(tmp_path / "agent.pt")
    observations = np.random.default_rng(0).normal(size=(16, 4)).astype(np.float32)
    np.testing.assert_array_equal(loaded.predict(observations), agent.predict(observations))
    assert loaded.num_steps == 32
    assert loaded.optimizer.state_dict()["state"][0]["step"] == 2  # 2 rollouts of 16 steps


def test_loaded_agent_keeps_training(tmp_path):
    agent = PPO("MlpPolicy", "CartPole-v1", **TINY)
    agent.learn(16, progress_bar=False)
    agent.save(tmp_path / "agent.pt")
    loaded = PPO.load(tmp_path / "agent.pt")
    loaded.learn(16, progress_bar=False)
    assert loaded.num_steps == 32


def test_loading_a_dqn_file_as_ppo_is_a_clear_error(tmp_path):
    from palaestra.train.checkpoint import CheckpointError

    DQN("MlpPolicy", "CartPole-v1", hidden_sizes=(8,)).save(tmp_path / "dqn.pt")
    with pytest.raises(CheckpointError, match="holds a dqn agent, not PPO"):
        PPO.load(tmp_path / "dqn.pt")


@pytest.mark.parametrize(
    "trainer, env_id, hyper_parameters",
    [
        (DQN, "CartPole-v1", {"hidden_sizes": (8,), "learning_starts": 8, "batch_size": 8}),
        (SAC, "Pendulum-v1", {"hidden_sizes": (8,), "learning_starts": 8, "batch_size": 8}),
    ],
    ids=["dqn", "sac"],
)
def test_off_policy_trainers_share_the_api(tmp_path, trainer, env_id, hyper_parameters):
    agent = trainer("MlpPolicy", env_id, **hyper_parameters)
    agent.learn(30, progress_bar=False)
    assert agent.num_steps == 30
    single = agent.predict(agent.observation_space.sample())
    assert np.shape(single) == agent.action_space.shape
    agent.save(tmp_path / "agent.pt")
    loaded = trainer.load(tmp_path / "agent.pt")
    batch = np.stack([agent.observation_space.sample() for _ in range(4)])
    np.testing.assert_allclose(loaded.predict(batch), agent.predict(batch))
