"""to_gymnasium_vector / from_gymnasium_vector: batches unchanged, autoreset mode translated."""

from __future__ import annotations

import gymnasium
import gymnasium.vector
import numpy as np
import pytest

import palaestra
from palaestra.compat import from_gymnasium_vector, to_gymnasium_vector
from palaestra.vector import AutoresetMode

MODES = ["NextStep", "SameStep", "Disabled"]


def _play(envs, steps: int, seed: int):
    """Reset and step with fixed actions; return every batch (resetting ended rows if needed)."""
    records = [envs.reset(seed=seed)[0]]
    for step in range(steps):
        actions = np.array([(step + i) % 2 for i in range(envs.num_envs)])
        observations, rewards, terminations, truncations, _ = envs.step(actions)
        records += [observations, rewards, terminations, truncations]
    return records


@pytest.mark.parametrize("mode", MODES)
def test_adapted_native_vector_env_declares_its_autoreset_mode_to_gymnasium(mode):
    envs = to_gymnasium_vector(palaestra.make_vec("CartPole-v1", 2, autoreset_mode=mode))

    assert isinstance(envs, gymnasium.vector.VectorEnv)
    assert envs.metadata["autoreset_mode"] is gymnasium.vector.AutoresetMode(mode)
    envs.close()


@pytest.mark.parametrize("vectorization_mode", ["vector_entry_point", "sync"])
def test_adapted_vector_env_batches_equal_the_palaestra_env(vectorization_mode):
    make = lambda: palaestra.make_vec("CartPole-v1", 4, vectorization_mode=vectorization_mode)  # noqa: E731
    adapted, reference = to_gymnasium_vector(make()), make()

    for got, expected in zip(_play(adapted, 80, seed=1), _play(reference, 80, seed=1), strict=True):
        np.testing.assert_array_equal(got, expected)
    adapted.close()
    reference.close()


def test_adapted_vector_env_has_gymnasium_batched_spaces():
    envs = to_gymnasium_vector(palaestra.make_vec("CartPole-v1", 3))

    assert envs.single_action_space == gymnasium.spaces.Discrete(2)
    assert envs.action_space == gymnasium.spaces.MultiDiscrete([2, 2, 2])
    assert envs.observation_space.shape == (3, 4)
    envs.close()


def test_gymnasium_vector_wrappers_accept_an_adapted_vector_env():
    envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        to_gymnasium_vector(palaestra.make_vec("CartPole-v1", 2))
    )
    envs.reset(seed=0)
    lengths = []
    for _ in range(200):
        _, _, _, _, info = envs.step(np.array([1, 1]))
        if "episode" in info:
            lengths += info["episode"]["l"][info["_episode"]].tolist()

    assert lengths and all(length >= 8 for length in lengths)
    envs.close()


def test_closing_the_adapter_closes_the_palaestra_vector_env():
    inner = palaestra.make_vec("CartPole-v1", 2, vectorization_mode="sync")
    envs = to_gymnasium_vector(inner)

    envs.close()

    assert envs.closed and inner.closed


def test_sub_env_attributes_are_forwarded():
    envs = to_gymnasium_vector(palaestra.make_vec("CartPole-v1", 2, vectorization_mode="sync"))

    assert envs.get_attr("gravity") == (9.8, 9.8)
    envs.set_attr("gravity", [1.0, 2.0])
    assert envs.call("get_wrapper_attr", "gravity") == (1.0, 2.0)
    envs.close()


@pytest.mark.parametrize("mode", MODES)
def test_from_gymnasium_vector_translates_the_autoreset_mode(mode):
    envs = from_gymnasium_vector(
        gymnasium.make_vec(
            "CartPole-v1", 2, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
        )
    )

    assert envs.metadata["autoreset_mode"] is AutoresetMode(mode)
    assert isinstance(envs, palaestra.vector.VectorEnv)
    envs.close()


def test_from_gymnasium_vector_batches_equal_palaestra_sync():
    envs = from_gymnasium_vector(gymnasium.make_vec("CartPole-v1", 3, vectorization_mode="sync"))
    reference = palaestra.make_vec("CartPole-v1", 3, vectorization_mode="sync")

    for got, expected in zip(_play(envs, 60, seed=2), _play(reference, 60, seed=2), strict=True):
        np.testing.assert_array_equal(got, expected)
    envs.close()


def test_palaestra_vector_wrappers_run_a_gymnasium_vector_env():
    envs = palaestra.wrappers.vector.RecordEpisodeStatistics(
        from_gymnasium_vector(gymnasium.make_vec("CartPole-v1", 2, vectorization_mode="sync"))
    )
    envs.reset(seed=0)
    for _ in range(40):
        _, _, _, _, info = envs.step(np.array([0, 0]))
        if "episode" in info:
            break

    assert info["episode"]["l"][info["_episode"]].min() >= 8
    envs.close()


def test_vector_adapters_reject_single_envs():
    with pytest.raises(TypeError, match="to_gymnasium_vector expects a palaestra vector env"):
        to_gymnasium_vector(palaestra.make("CartPole-v1"))
    with pytest.raises(TypeError, match=r"from_gymnasium_vector expects a gymnasium\.vector"):
        from_gymnasium_vector(gymnasium.make("CartPole-v1"))
