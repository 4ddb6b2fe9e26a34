"""to_gymnasium / from_gymnasium on single environments: Gymnasium's own tools accept them."""

from __future__ import annotations

import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

import palaestra
from palaestra import spaces
from palaestra.compat import FromGymnasium, ToGymnasium, from_gymnasium, to_gymnasium
from palaestra.error import DependencyNotInstalled
from tests.compat.conftest import assert_same, assert_same_episodes, make_or_skip


@pytest.fixture
def cartpole():
    env = to_gymnasium(palaestra.make("CartPole-v1"))
    yield env
    env.close()


def test_to_gymnasium_gives_a_gymnasium_env_with_gymnasium_spaces(cartpole):
    assert isinstance(cartpole, gymnasium.Env)
    assert isinstance(cartpole, ToGymnasium)
    assert isinstance(cartpole.observation_space, gymnasium.spaces.Box)
    assert cartpole.action_space == gymnasium.spaces.Discrete(2)


def test_to_gymnasium_keeps_spec_metadata_and_render_mode():
    env = to_gymnasium(palaestra.make("CartPole-v1", render_mode="rgb_array"))

    assert (env.spec.id, env.spec.max_episode_steps, env.spec.reward_threshold) == (
        "CartPole-v1",
        500,
        475.0,
    )
    assert env.metadata == {"render_modes": ["human", "rgb_array"], "render_fps": 50}
    assert env.render_mode == "rgb_array"
    env.reset(seed=0)
    assert env.render().shape == (400, 600, 3)


def test_seeding_the_adapter_seeds_the_palaestra_env(cartpole):
    cartpole.reset(seed=42)

    assert cartpole.np_random_seed == 42
    assert cartpole.np_random is cartpole.env.unwrapped.np_random
    assert cartpole.unwrapped._np_random is cartpole.env.unwrapped._np_random


def test_adapted_trajectory_equals_gymnasium_for_the_same_seed_and_actions(cartpole):
    reference = gymnasium.make("CartPole-v1")
    actions = [i % 2 for i in range(60)]

    assert_same_episodes(cartpole, reference, actions, seed=3)


def test_rewards_come_back_as_python_floats():
    env = to_gymnasium(make_or_skip("BipedalWalker-v3"))
    env.reset(seed=0)

    reward = env.step(np.zeros(4, dtype=np.float32))[1]

    assert type(reward) is float


def test_gymnasium_check_env_accepts_an_adapted_env(cartpole):
    gymnasium_check_env(cartpole.unwrapped, skip_render_check=False)


def test_gymnasium_record_episode_statistics_accepts_an_adapted_env(cartpole):
    env = gymnasium.wrappers.RecordEpisodeStatistics(cartpole)
    env.reset(seed=0)
    terminated = truncated = False
    steps = 0
    while not (terminated or truncated):
        _, _, terminated, truncated, info = env.step(1)
        steps += 1

    assert info["episode"]["l"] == steps
    assert info["episode"]["r"] == float(steps)


def test_gymnasium_sync_vector_env_of_adapted_envs_matches_palaestra_sync():
    envs = gymnasium.vector.SyncVectorEnv([lambda: to_gymnasium(palaestra.make("CartPole-v1"))] * 3)
    reference = palaestra.make_vec("CartPole-v1", 3, vectorization_mode="sync")
    observations, _ = envs.reset(seed=5)
    expected, _ = reference.reset(seed=5)
    np.testing.assert_array_equal(observations, expected)
    for step in range(40):
        actions = np.array([step % 2, 1, 0])
        result = envs.step(actions)
        expected_result = reference.step(actions)
        for got, want in zip(result[:4], expected_result[:4]):
            np.testing.assert_array_equal(got, want)
    envs.close()
    reference.close()


def test_attributes_of_the_palaestra_stack_are_reachable(cartpole):
    assert cartpole.get_wrapper_attr("gravity") == 9.8
    assert cartpole.has_wrapper_attr("tau")
    cartpole.set_wrapper_attr("gravity", 1.0)
    assert cartpole.env.unwrapped.gravity == 1.0


def test_gymnasium_make_rebuilds_the_adapter_from_its_spec(cartpole):
    rebuilt = gymnasium.make(cartpole.spec)

    assert rebuilt.spec.max_episode_steps == 500
    assert_same(rebuilt.reset(seed=1)[0], cartpole.reset(seed=1)[0])


def test_to_gymnasium_rejects_what_is_not_a_palaestra_env():
    with pytest.raises(TypeError, match=r"to_gymnasium expects a palaestra\.Env, got .*CartPole"):
        to_gymnasium(gymnasium.make("CartPole-v1").unwrapped)


def test_from_gymnasium_gives_a_palaestra_env_with_palaestra_spaces():
    env = from_gymnasium(gymnasium.make("FrozenLake-v1"))

    assert isinstance(env, palaestra.Env)
    assert isinstance(env, FromGymnasium)
    assert env.observation_space == spaces.Discrete(16)
    assert env.spec.id == "FrozenLake-v1"
    assert env.spec.max_episode_steps == 100


def test_from_gymnasium_runs_under_palaestra_wrappers():
    env = palaestra.wrappers.TransformReward(
        from_gymnasium(gymnasium.make("CartPole-v1")), lambda reward: 2 * reward
    )
    env.reset(seed=0)

    assert env.step(0)[1] == 2.0


def test_from_gymnasium_trajectory_equals_palaestra_for_the_same_seed_and_actions():
    env = from_gymnasium(gymnasium.make("Taxi-v4"))
    reference = palaestra.make("Taxi-v4")
    actions = [i % 6 for i in range(80)]

    assert_same_episodes(env, reference, actions, seed=11)


def test_palaestra_make_rebuilds_a_from_gymnasium_adapter_from_its_spec():
    env = from_gymnasium(gymnasium.make("CartPole-v1"))

    rebuilt = palaestra.make(env.spec)

    assert rebuilt.spec.max_episode_steps == 500
    assert_same(rebuilt.reset(seed=2)[0], env.reset(seed=2)[0])


def test_from_gymnasium_rejects_what_is_not_a_gymnasium_env():
    with pytest.raises(TypeError, match=r"from_gymnasium expects a gymnasium\.Env, got .*Time"):
        from_gymnasium(palaestra.make("CartPole-v1"))


def test_graph_observations_become_each_librarys_graph_instance():
    class GraphEnv(palaestra.Env):
        observation_space = spaces.Graph(spaces.Box(0.0, 1.0, (2,)), None)
        action_space = spaces.Discrete(2)

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            return spaces.GraphInstance(np.zeros((3, 2), np.float32), None, None), {}

    adapted = to_gymnasium(GraphEnv())
    observation, _ = adapted.reset(seed=0)
    back, _ = from_gymnasium(adapted).reset(seed=0)

    assert isinstance(observation, gymnasium.spaces.GraphInstance)
    assert adapted.observation_space.contains(observation)
    assert isinstance(back, spaces.GraphInstance)


def test_missing_gymnasium_raises_dependency_not_installed_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "gymnasium", None)

    with pytest.raises(DependencyNotInstalled, match=r'pip install "palaestra\[gymnasium\]"'):
        to_gymnasium(palaestra.make("CartPole-v1"))


@pytest.mark.parametrize(
    "message_source",
    [
        lambda: palaestra.Wrapper(gymnasium.make("CartPole-v1")),
        lambda: palaestra.utils.passive_env_checker.check_is_env(gymnasium.make("CartPole-v1")),
    ],
    ids=["Wrapper", "check_is_env"],
)
def test_errors_for_gymnasium_envs_point_at_from_gymnasium(message_source):
    with pytest.raises((AssertionError, TypeError), match=r"palaestra\.compat\.from_gymnasium"):
        message_source()
