"""Registry bridges: palaestra ids in Gymnasium's registry, Gymnasium ids in palaestra.make."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import palaestra
from palaestra.compat import FromGymnasium, FromGymnasiumVector, register_in_gymnasium
from tests.compat.conftest import assert_same_episodes


@pytest.fixture(scope="module", autouse=True)
def _registered():
    register_in_gymnasium()


def test_every_palaestra_id_is_in_gymnasiums_registry_under_the_namespace():
    expected = {f"palaestra/{env_id.replace('/', '.')}" for env_id in palaestra.registry}

    assert expected <= set(gymnasium.registry)


def test_registering_again_adds_nothing():
    assert register_in_gymnasium() == []


def test_gymnasium_make_of_a_palaestra_id_follows_the_palaestra_env():
    env = gymnasium.make("palaestra/Taxi-v4")
    reference = palaestra.make("Taxi-v4")
    actions = [(3 * i) % 6 for i in range(60)]

    assert_same_episodes(env, reference, actions, seed=5)


def test_gymnasium_make_applies_the_palaestra_step_limit_once():
    env = gymnasium.make("palaestra/CartPole-v1")

    assert env.spec.max_episode_steps == 500
    assert env.spec.reward_threshold == 475.0
    assert str(env).count("TimeLimit") == 1


def test_gymnasium_make_passes_kwargs_to_the_palaestra_env():
    env = gymnasium.make("palaestra/FrozenLake-v1", is_slippery=False, max_episode_steps=7)
    env.reset(seed=0)

    # Without slipping, "right" from the start always lands on state 1.
    assert env.step(2)[0] == 1
    assert env.spec.kwargs["is_slippery"] is False
    assert env.spec.max_episode_steps == 7


def test_gymnasium_make_vec_runs_the_native_palaestra_batch():
    envs = gymnasium.make_vec("palaestra/CartPole-v1", 4, vectorization_mode="vector_entry_point")
    reference = palaestra.make_vec("CartPole-v1", 4)

    np.testing.assert_array_equal(envs.reset(seed=3)[0], reference.reset(seed=3)[0])
    assert type(envs.unwrapped.env).__name__ == "CartPoleVectorEnv"
    envs.close()


def test_namespaced_ids_register_with_a_dotted_name():
    palaestra.register("compatdemo/Line-v0", entry_point="palaestra.envs.toy_text:FrozenLakeEnv")
    try:
        assert register_in_gymnasium(["compatdemo/Line-v0"]) == ["palaestra/compatdemo.Line-v0"]
        assert gymnasium.make("palaestra/compatdemo.Line-v0").observation_space.n == 16
    finally:
        del palaestra.registry["compatdemo/Line-v0"]
        del gymnasium.registry["palaestra/compatdemo.Line-v0"]


def test_palaestra_make_of_a_gymnasium_id_follows_gymnasium():
    env = palaestra.make("gymnasium:CartPole-v1")
    reference = gymnasium.make("CartPole-v1")
    actions = [i % 2 for i in range(70)]

    assert isinstance(env.unwrapped, FromGymnasium)
    assert_same_episodes(env, reference, actions, seed=8)


def test_palaestra_make_of_a_gymnasium_id_keeps_gymnasiums_time_limit():
    env = palaestra.make("gymnasium:MountainCar-v0")
    env.reset(seed=0)

    # Not pushing never reaches the flag: only the 200-step limit ends the episode.
    flags = [env.step(1)[2:4] for _ in range(200)]

    assert flags[-1] == (False, True)
    assert not any(terminated or truncated for terminated, truncated in flags[:-1])


def test_palaestra_make_vec_sync_of_a_gymnasium_id():
    envs = palaestra.make_vec("gymnasium:CartPole-v1", 3, vectorization_mode="sync")
    reference = palaestra.make_vec("CartPole-v1", 3, vectorization_mode="sync")

    np.testing.assert_array_equal(envs.reset(seed=4)[0], reference.reset(seed=4)[0])
    envs.close()


def test_palaestra_make_vec_of_a_gymnasium_id_uses_gymnasiums_vector_entry_point():
    envs = palaestra.make_vec("gymnasium:CartPole-v1", 3)

    assert isinstance(envs, FromGymnasiumVector)
    assert envs.reset(seed=0)[0].shape == (3, 4)
    envs.close()


def test_unknown_gymnasium_id_raises_gymnasiums_error():
    with pytest.raises(gymnasium.error.NameNotFound, match="Environment `NoSuchEnv` doesn't exist"):
        palaestra.make("gymnasium:NoSuchEnv-v0")


def test_palaestra_async_of_a_gymnasium_id_follows_palaestra_sync():
    # Spawned workers: other tests of the session may have started JAX's threads.
    envs = palaestra.make_vec(
        "gymnasium:CartPole-v1", 2, vectorization_mode="async", vector_kwargs={"context": "spawn"}
    )
    reference = palaestra.make_vec("CartPole-v1", 2, vectorization_mode="sync")

    np.testing.assert_array_equal(envs.reset(seed=6)[0], reference.reset(seed=6)[0])
    for step in range(30):
        actions = np.array([step % 2, 1])
        for got, expected in zip(envs.step(actions)[:4], reference.step(actions)[:4]):
            np.testing.assert_array_equal(got, expected)
    envs.close()


def test_palaestra_pool_groups_run_gymnasiums_native_batch():
    envs = palaestra.make_vec(
        "gymnasium:CartPole-v1",
        4,
        vectorization_mode="pool",
        vector_kwargs={"num_workers": 2, "context": "spawn"},
    )
    group = gymnasium.make_vec("CartPole-v1", 2, vectorization_mode="vector_entry_point")

    # Each worker's group of two is seeded [0, 1] -> Gymnasium's batch seeded 0, and [2, 3] -> 2.
    observations, _ = envs.reset(seed=0)
    np.testing.assert_array_equal(observations[:2], group.reset(seed=0)[0])
    np.testing.assert_array_equal(observations[2:], group.reset(seed=2)[0])
    envs.close()
