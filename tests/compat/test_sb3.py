"""Stable-Baselines3 through the adapters: sb3_vec_env behaves as DummyVecEnv, SB3 trains.

``sb3_vec_env`` of any palaestra vector env (natively batched, sync, in every autoreset mode)
is checked step by step against SB3's own ``DummyVecEnv`` of adapted single envs.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import palaestra
from palaestra.compat import SB3VecEnv, sb3_vec_env, to_gymnasium
from palaestra.error import DependencyNotInstalled

sb3 = pytest.importorskip("stable_baselines3")
from stable_baselines3.common.evaluation import evaluate_policy  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor  # noqa: E402

NUM_ENVS = 4
MODES = ["NextStep", "SameStep", "Disabled"]


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _dummy(num_envs: int = NUM_ENVS) -> DummyVecEnv:
    return DummyVecEnv([lambda: to_gymnasium(palaestra.make("CartPole-v1"))] * num_envs)


def _assert_same_infos(got: list[dict], expected: list[dict]) -> None:
    assert [sorted(info) for info in got] == [sorted(info) for info in expected]
    for mine, theirs in zip(got, expected):
        for key in theirs:
            np.testing.assert_array_equal(mine[key], theirs[key])


def _compare_with_dummy(venv, steps: int) -> int:
    """Step ``venv`` and a DummyVecEnv with the same seeds and actions; return episodes ended."""
    reference = _dummy(venv.num_envs)
    venv.seed(21)
    reference.seed(21)
    np.testing.assert_array_equal(venv.reset(), reference.reset())
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(steps):
        actions = rng.integers(0, 2, venv.num_envs)
        got = venv.step(actions)
        expected = reference.step(actions)
        for mine, theirs in zip(got[:3], expected[:3]):
            np.testing.assert_array_equal(mine, theirs)
        _assert_same_infos(got[3], expected[3])
        ended += int(expected[2].sum())
    reference.close()
    return ended


@pytest.mark.parametrize("mode", MODES)
def test_sb3_vec_env_of_the_native_batch_matches_dummy_vec_env(mode):
    venv = sb3_vec_env(palaestra.make_vec("CartPole-v1", NUM_ENVS, autoreset_mode=mode))

    assert _compare_with_dummy(venv, 300) >= 20
    venv.close()


@pytest.mark.parametrize("mode", MODES)
def test_sb3_vec_env_of_a_sync_vector_env_matches_dummy_vec_env(mode):
    envs = palaestra.make_vec(
        "CartPole-v1", NUM_ENVS, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
    )

    assert _compare_with_dummy(sb3_vec_env(envs), 300) >= 20


def test_truncated_episodes_report_time_limit_truncated():
    venv = sb3_vec_env(palaestra.make_vec("CartPole-v1", 2, max_episode_steps=5))
    venv.reset()
    for _ in range(4):
        venv.step(np.array([0, 1]))

    _, _, dones, infos = venv.step(np.array([0, 1]))

    assert dones.tolist() == [True, True]
    assert [info["TimeLimit.truncated"] for info in infos] == [True, True]
    assert infos[0]["terminal_observation"].shape == (4,)
    venv.close()


def test_observations_are_copies_the_env_cannot_overwrite():
    venv = sb3_vec_env(palaestra.make_vec("CartPole-v1", 2))
    first = venv.reset()
    kept = first.copy()

    venv.step(np.array([1, 1]))

    np.testing.assert_array_equal(first, kept)
    venv.close()


def test_episode_statistics_from_palaestra_wrappers_reach_sb3_infos():
    envs = palaestra.wrappers.vector.RecordEpisodeStatistics(
        palaestra.make_vec("CartPole-v1", 2, autoreset_mode="SameStep")
    )
    venv = sb3_vec_env(envs)
    venv.reset()
    episodes = []
    for _ in range(100):
        _, _, dones, infos = venv.step(np.array([1, 1]))
        episodes += [info["episode"] for info, done in zip(infos, dones) if done]

    assert episodes and all(set(episode) >= {"r", "l"} for episode in episodes)
    assert all(episode["r"] == episode["l"] for episode in episodes)
    venv.close()


def test_attributes_and_methods_reach_the_sub_envs():
    venv = sb3_vec_env(palaestra.make_vec("CartPole-v1", 3, vectorization_mode="sync"))

    venv.set_attr("gravity", 2.0, indices=[1])
    assert venv.get_attr("gravity") == [9.8, 2.0, 9.8]
    assert venv.env_method("get_wrapper_attr", "gravity", indices=2) == [9.8]
    assert venv.env_is_wrapped(palaestra.wrappers.TimeLimit) == [True, True, True]
    assert venv.get_attr("render_mode") == [None, None, None]
    venv.close()


def test_native_batch_attributes_come_from_its_sub_env_views():
    venv = sb3_vec_env(palaestra.make_vec("CartPole-v1", 2))

    assert venv.get_attr("gravity") == [9.8, 9.8]
    assert venv.get_attr("gravity", indices=[1]) == [9.8]
    venv.close()


def test_per_env_options_must_agree():
    venv = sb3_vec_env(palaestra.make_vec("CartPole-v1", 2))
    venv.set_options([{"a": 1}, {"a": 2}])

    with pytest.raises(ValueError, match="reset with one options dict"):
        venv.reset()


def test_sb3_vec_env_rejects_a_single_env():
    with pytest.raises(TypeError, match="sb3_vec_env expects a palaestra vector env"):
        sb3_vec_env(palaestra.make("CartPole-v1"))


def test_missing_sb3_raises_dependency_not_installed_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "stable_baselines3.common.vec_env.base_vec_env", None)
    monkeypatch.delitem(sys.modules, "palaestra.compat._sb3", raising=False)

    with pytest.raises(DependencyNotInstalled, match=r'pip install "palaestra\[sb3\]"'):
        sb3_vec_env(palaestra.make_vec("CartPole-v1", 2))


def test_dqn_runs_on_a_toy_text_env_through_to_gymnasium():
    env = to_gymnasium(palaestra.make("Taxi-v4"))
    model = sb3.DQN(
        "MlpPolicy",
        env,
        learning_starts=50,
        buffer_size=500,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [16]},
    )

    model.learn(total_timesteps=152)

    action, _ = model.predict(env.reset(seed=0)[0], deterministic=True)
    assert env.action_space.contains(int(action))
    assert model.num_timesteps == 152


def test_sac_runs_on_a_classic_control_env_through_to_gymnasium():
    env = to_gymnasium(palaestra.make("Pendulum-v1"))
    model = sb3.SAC(
        "MlpPolicy",
        env,
        learning_starts=100,
        buffer_size=500,
        batch_size=32,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [16]},
    )

    model.learn(total_timesteps=150)

    action, _ = model.predict(env.reset(seed=0)[0], deterministic=True)
    assert action.shape == (1,) and env.action_space.contains(action)
    assert model.num_timesteps == 150


def test_ppo_runs_on_sb3_vec_env_of_the_native_batch():
    venv = VecMonitor(sb3_vec_env(palaestra.make_vec("CartPole-v1", 8)))
    model = sb3.PPO("MlpPolicy", venv, n_steps=32, batch_size=64, seed=0, device="cpu")

    model.learn(total_timesteps=512)

    assert model.num_timesteps == 512
    assert len(model.ep_info_buffer) > 0
    venv.close()


# The RL Baselines3 Zoo hyperparameters for CartPole-v1.
PPO_CARTPOLE = {
    "n_steps": 32,
    "batch_size": 256,
    "gae_lambda": 0.8,
    "gamma": 0.98,
    "n_epochs": 20,
    "ent_coef": 0.0,
    "learning_rate": lambda progress: 0.001 * progress,
    "clip_range": lambda progress: 0.2 * progress,
}


def _train_ppo_and_evaluate(venv, eval_env) -> float:
    model = sb3.PPO("MlpPolicy", venv, seed=1, device="cpu", **PPO_CARTPOLE)
    model.learn(total_timesteps=100_000)
    mean, _ = evaluate_policy(model, eval_env, n_eval_episodes=20, deterministic=True)
    return mean


@pytest.mark.slow
def test_ppo_reaches_475_on_cartpole_through_to_gymnasium():
    venv = DummyVecEnv([lambda: to_gymnasium(palaestra.make("CartPole-v1"))] * 8)

    mean = _train_ppo_and_evaluate(venv, to_gymnasium(palaestra.make("CartPole-v1")))

    assert mean >= 475


@pytest.mark.slow
def test_ppo_reaches_475_on_cartpole_through_sb3_vec_env_of_the_native_batch():
    venv = sb3_vec_env(palaestra.make_vec("CartPole-v1", 8, autoreset_mode="SameStep"))

    mean = _train_ppo_and_evaluate(venv, to_gymnasium(palaestra.make("CartPole-v1")))

    assert isinstance(venv, SB3VecEnv)
    assert mean >= 475
