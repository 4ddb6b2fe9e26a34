"""CartPoleVectorEnv's two seedings: sync's by default, Gymnasium's CartPoleVectorEnv's on request.

``seeding="per_env"`` (the default) keeps every sub-env on its own generator, as a
SyncVectorEnv of CartPoleEnv; ``seeding="batch"`` draws from one generator for the batch, as
Gymnasium's CartPoleVectorEnv does, so its published curves are reproduced exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from palaestra.envs.classic_control.vector.cartpole import CartPoleVectorEnv

gymnasium = pytest.importorskip("gymnasium")

NUM_ENVS = 8
STEPS = 600  # about 25 episodes per sub-env: autoresets in every sub-env


def rollout(envs, seed: int, steps: int = STEPS, options: dict | None = None) -> list:
    """Everything the batch returns under a fixed stream of random actions."""
    actions = np.random.default_rng(0).integers(0, 2, size=(steps, envs.num_envs))
    observations, _ = envs.reset(seed=seed, options=options)
    returned = [observations.copy()]
    for batch in actions:
        observations, rewards, terminations, truncations, _ = envs.step(batch)
        returned += [observations.copy(), rewards.astype(np.float64), terminations, truncations]
    envs.close()
    return returned


def assert_same(ours: list, theirs: list) -> None:
    assert len(ours) == len(theirs)
    for mine, reference in zip(ours, theirs):
        np.testing.assert_array_equal(mine, reference)


def gymnasium_vector_entry_point(num_envs: int = NUM_ENVS):
    return gymnasium.make_vec("CartPole-v1", num_envs, vectorization_mode="vector_entry_point")


def test_batch_seeding_reproduces_gymnasiums_cartpole_vector_env():
    ours = palaestra.make_vec(
        "CartPole-v1", NUM_ENVS, vectorization_mode="vector_entry_point", seeding="batch"
    )
    theirs = rollout(gymnasium_vector_entry_point(), seed=5)
    assert sum(int(t.sum()) for t in theirs[3::4]) > NUM_ENVS  # autoresets happened
    assert_same(rollout(ours, seed=5), theirs)


def test_batch_seeding_draws_autoresets_within_the_last_reset_bounds_as_gymnasium():
    bounds = {"low": -0.2, "high": 0.2}
    ours = CartPoleVectorEnv(NUM_ENVS, seeding="batch")
    theirs = gymnasium_vector_entry_point().unwrapped
    assert_same(rollout(ours, 11, options=bounds), rollout(theirs, 11, options=bounds))


def test_batch_seeding_without_a_seed_continues_the_generator_as_gymnasium():
    ours, theirs = CartPoleVectorEnv(3, seeding="batch"), gymnasium_vector_entry_point(3)
    for envs in (ours, theirs):
        envs.reset(seed=2)
    assert_same(rollout(ours, seed=None, steps=50), rollout(theirs, seed=None, steps=50))


def test_batch_seeding_has_one_generator_and_its_seed():
    envs = CartPoleVectorEnv(3, seeding="batch")
    envs.reset(seed=4)
    assert isinstance(envs.np_random, np.random.Generator)
    assert envs.np_random_seed == 4


def test_batch_seeding_rejects_a_seed_per_sub_env_as_gymnasium():
    with pytest.raises(gymnasium.error.Error) as theirs:
        gymnasium_vector_entry_point(2).reset(seed=[1, 2])
    with pytest.raises(palaestra.error.Error) as ours:
        CartPoleVectorEnv(2, seeding="batch").reset(seed=[1, 2])
    assert str(theirs.value) in str(ours.value)


@pytest.mark.parametrize("mode", [None, "vector_entry_point"])
def test_per_env_seeding_follows_a_sync_vector_env(mode):
    native = palaestra.make_vec("CartPole-v1", NUM_ENVS, vectorization_mode=mode)
    assert native.unwrapped.seeding == "per_env"
    sync = palaestra.make_vec("CartPole-v1", NUM_ENVS, vectorization_mode="sync")
    assert_same(rollout(native, seed=5), rollout(sync, seed=5))


def test_one_sub_env_matches_gymnasiums_single_env_in_either_seeding():
    # Gymnasium's own check of its CartPoleVectorEnv against CartPoleEnv, on both seedings.
    single = rollout_single(gymnasium.make("CartPole-v1"), seed=9)
    for seeding in ("per_env", "batch"):
        ours = rollout(CartPoleVectorEnv(1, seeding=seeding), seed=9)
        assert_same([ours[0], *ours[1::4]], [obs[None] for obs in single])


def rollout_single(env, seed: int, steps: int = STEPS) -> list:
    """The observations of a single env stepped (and reset after each end) as a vector env."""
    actions = np.random.default_rng(0).integers(0, 2, size=(steps, 1))
    observation, _ = env.reset(seed=seed)
    observations, ended = [observation], False
    for (action,) in actions:
        if ended:
            observation, _ = env.reset()
            ended = False
        else:
            observation, _, terminated, truncated, _ = env.step(action)
            ended = terminated or truncated
        observations.append(observation)
    return observations


def test_an_unknown_seeding_is_rejected():
    with pytest.raises(ValueError, match=r"seeding must be one of \('per_env', 'batch'\)"):
        CartPoleVectorEnv(2, seeding="shared")
