"""PPO: runs, reproducibility, masking of reset steps, bootstrapping, checkpoints."""

import dataclasses

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import palaestra as gym  # noqa: E402
from palaestra.train.checkpoint import load_policy, save_agent  # noqa: E402
from palaestra.train.envs import EpisodeTracker, normalization_state  # noqa: E402
from palaestra.train.ppo import PPO, PPOConfig  # noqa: E402


def test_learn_returns_the_agent_as_sb3s_does(tiny_ppo_config):
    agent = PPO("MlpPolicy", "CartPole-v1", config=tiny_ppo_config)
    assert agent.learn(total_timesteps=64) is agent


def test_learn_reports_one_stats_row_per_update(tiny_ppo_config):
    history = (
        PPO("MlpPolicy", "CartPole-v1", config=tiny_ppo_config).learn(total_timesteps=128).history
    )
    assert [row["steps"] for row in history] == [64, 128]
    assert {"loss", "policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction"} <= set(
        history[0]
    )


def test_same_seed_gives_the_same_learning_curve(tiny_ppo_config):
    first = (
        PPO("MlpPolicy", "CartPole-v1", config=tiny_ppo_config).learn(total_timesteps=256).history
    )
    second = (
        PPO("MlpPolicy", "CartPole-v1", config=tiny_ppo_config).learn(total_timesteps=256).history
    )
    keys = ("loss", "value_loss", "mean_return", "grad_norm")
    assert [[row[k] for k in keys] for row in first] == [[row[k] for k in keys] for row in second]


def test_different_seeds_give_different_curves(tiny_ppo_config):
    other = dataclasses.replace(tiny_ppo_config, seed=4)
    first = (
        PPO("MlpPolicy", "CartPole-v1", config=tiny_ppo_config).learn(total_timesteps=128).history
    )
    second = PPO("MlpPolicy", "CartPole-v1", config=other).learn(total_timesteps=128).history
    assert first[-1]["loss"] != second[-1]["loss"]


def test_callback_returning_false_stops_training(tiny_ppo_config):
    history = (
        PPO("MlpPolicy", "CartPole-v1", config=tiny_ppo_config)
        .learn(512, callback=lambda stats: False)
        .history
    )
    assert len(history) == 1


def test_reset_steps_after_episode_ends_are_masked(tiny_ppo_config):
    agent = PPO("MlpPolicy", "CartPole-v1", config=tiny_ppo_config)
    agent.learn(total_timesteps=64)
    buffer = agent.buffer
    ended = buffer.terminated | buffer.truncated
    # A step is trained on exactly when the previous step of its sub-env did not end.
    np.testing.assert_array_equal(buffer.valid[1:], ~ended[:-1])
    assert ended.any()


def test_truncated_episodes_bootstrap_from_the_final_observation():
    envs = gym.make_vec("CartPole-v1", num_envs=2, max_episode_steps=5)
    agent = PPO(
        "MlpPolicy",
        envs,
        config=PPOConfig(num_envs=2, n_steps=12, batch_size=24, n_epochs=1, seed=0),
    )
    agent._reset_env()
    agent._collect_rollout()
    batch_values = agent.model.value  # values of the stored observations (fast path)
    buffer = agent.buffer
    assert buffer.truncated.any()
    t, env = map(int, np.argwhere(buffer.truncated & ~buffer.terminated)[0])
    import torch

    with torch.no_grad():
        obs = torch.from_numpy(buffer.observations.reshape(-1, 4))
        values = batch_values(obs).numpy().reshape(12, 2)
    last = batch_values(torch.from_numpy(np.asarray(agent._observations, np.float32))).detach()
    advantages, _ = buffer.compute_targets(values, last.numpy(), 0.99, 0.0)
    # With lambda 0 the advantage is the TD error; the next stored observation is the final
    # observation of the truncated episode (NEXT_STEP), and it is bootstrapped from.
    expected = buffer.rewards[t, env] + 0.99 * values[t + 1, env] - values[t, env]
    assert advantages[t, env] == pytest.approx(expected, rel=1e-5)


def test_continuous_actions_train_and_stay_in_bounds():
    config = PPOConfig(num_envs=2, n_steps=16, batch_size=16, n_epochs=1, seed=0, squash=True)
    agent = PPO("MlpPolicy", "Pendulum-v1", config=config)
    agent.learn(total_timesteps=32)
    obs = np.zeros((5, 3), dtype=np.float32)
    actions = agent.predict(obs, deterministic=False)
    assert actions.shape == (5, 1)
    assert np.all(np.abs(actions) <= 2.0)


def test_normalization_statistics_are_saved_and_restored(tmp_path, tiny_ppo_config):
    config = dataclasses.replace(tiny_ppo_config, normalize_observation=True, normalize_reward=True)
    agent = PPO("MlpPolicy", "CartPole-v1", config=config)
    agent.learn(total_timesteps=64)
    saved = normalization_state(agent.env)
    save_agent(agent, tmp_path / "model.pt")
    policy = load_policy(tmp_path / "model.pt")
    np.testing.assert_allclose(
        policy.normalization["observation"]["mean"], saved["observation"]["mean"]
    )
    assert "reward" in policy.normalization
    envs = policy.make_env(num_envs=2)
    assert envs.obs_rms.count == pytest.approx(saved["observation"]["count"])
    assert envs.update_running_mean is False


def test_loaded_policy_acts_like_the_trained_agent(tmp_path, tiny_ppo_config):
    agent = PPO("MlpPolicy", "CartPole-v1", config=tiny_ppo_config)
    agent.learn(total_timesteps=64)
    save_agent(agent, tmp_path / "model.pt")
    policy = load_policy(tmp_path / "model.pt")
    obs = np.random.default_rng(0).normal(size=(20, 4)).astype(np.float32)
    np.testing.assert_array_equal(policy.predict(obs), agent.predict(obs))


def test_env_without_tracker_gets_one(tiny_ppo_config):
    agent = PPO("MlpPolicy", gym.make_vec("CartPole-v1", num_envs=4), config=tiny_ppo_config)
    assert isinstance(agent.env, EpisodeTracker)


def test_same_step_autoreset_is_rejected(tiny_ppo_config):
    from palaestra.vector import AutoresetMode

    envs = gym.make_vec(
        "CartPole-v1",
        num_envs=4,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
    )
    with pytest.raises(ValueError, match="NEXT_STEP"):
        PPO("MlpPolicy", envs, config=tiny_ppo_config)


def test_invalid_config_values_are_rejected():
    with pytest.raises(ValueError, match="n_steps must be a positive int"):
        PPOConfig(n_steps=0)


def test_unavailable_cuda_is_a_clear_error(tiny_ppo_config):
    import torch

    if torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    with pytest.raises(ValueError, match="CUDA is not available"):
        PPO("MlpPolicy", "CartPole-v1", config=dataclasses.replace(tiny_ppo_config, device="cuda"))


def test_a_given_vector_env_decides_the_number_of_sub_envs(tiny_ppo_config):
    agent = PPO("MlpPolicy", gym.make_vec("CartPole-v1", num_envs=3), config=tiny_ppo_config)
    assert agent.config.num_envs == 3
    assert agent.learn(total_timesteps=48).history[-1]["steps"] == 48


def adam_steps(agent):
    return int(next(iter(agent.optimizer.state.values()))["step"])


@pytest.mark.parametrize("fast_path", [None, False], ids=["backend", "autograd"])
def test_without_target_kl_every_minibatch_of_every_epoch_steps(tiny_ppo_config, fast_path):
    agent = PPO("MlpPolicy", "CartPole-v1", config=tiny_ppo_config, fast_path=fast_path)
    agent.learn(total_timesteps=64)  # one rollout of 64 rows: 2 minibatches x 2 epochs
    assert adam_steps(agent) == 4


@pytest.mark.parametrize("fast_path", [None, False], ids=["backend", "autograd"])
def test_target_kl_stops_the_epochs_before_the_first_step_past_it(tiny_ppo_config, fast_path):
    # The first minibatch is scored under the rollout's own policy (KL 0 up to rounding)
    # and steps; the second has moved past 1.5 * 1e-9 and stops the update before its step.
    agent = PPO(
        "MlpPolicy", "CartPole-v1", config=tiny_ppo_config, fast_path=fast_path, target_kl=1e-9
    )
    agent.learn(total_timesteps=128)
    assert adam_steps(agent) == 2
    assert [row["approx_kl"] <= 1.5e-9 for row in agent.history] == [True, True]
