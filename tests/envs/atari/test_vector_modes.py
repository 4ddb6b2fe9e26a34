"""Vectors of the single Atari envs (``sync``, ``pool``) equal Gymnasium's sync vector of ale-py's.

``make_vec``'s default for the ``ALE/*-v5`` ids is the batched ``AtariVectorEnv``; ``pool``
runs it in worker groups, and runs single envs when given ``wrappers``.
"""

from __future__ import annotations

import gymnasium
import numpy as np

import palaestra
from palaestra.vector.contract import assert_same as assert_vectors_same
from palaestra.vector.contract import rollout, sample_actions
from tests.envs.atari.conftest import assert_same


def test_a_sync_vector_of_two_matches_gymnasiums_sync_vector_of_ale_py():
    ours = palaestra.make_vec("ALE/Breakout-v5", 2, vectorization_mode="sync")
    theirs = gymnasium.make_vec("ALE/Breakout-v5", 2, vectorization_mode="sync")
    try:
        assert_same(ours.reset(seed=4), theirs.reset(seed=4))
        rng = np.random.default_rng(4)
        for _ in range(40):
            actions = rng.integers(4, size=2)
            assert_same(ours.step(actions), theirs.step(actions))
    finally:
        ours.close()
        theirs.close()


def preprocessed(library, env):
    """``env`` in the library's AtariPreprocessing and a stack of 4 frames."""
    env = library.wrappers.AtariPreprocessing(env)
    return library.wrappers.FrameStackObservation(env, 4)


def test_a_pool_of_preprocessed_single_envs_matches_gymnasiums_sync_vector():
    ours = palaestra.make_vec(
        "ALE/Breakout-v5", 2, vectorization_mode="pool", frameskip=1,
        vector_kwargs={"num_workers": 2},
        wrappers=[lambda env: preprocessed(palaestra, env)],
    )  # fmt: skip
    theirs = gymnasium.make_vec(
        "ALE/Breakout-v5", 2, vectorization_mode="sync", frameskip=1,
        wrappers=[lambda env: preprocessed(gymnasium, env)],
    )  # fmt: skip
    try:
        assert_same(ours.reset(seed=4), theirs.reset(seed=4))
        rng = np.random.default_rng(4)
        for _ in range(30):
            actions = rng.integers(4, size=2)
            assert_same(ours.step(actions), theirs.step(actions))
    finally:
        ours.close()
        theirs.close()


def test_a_pool_runs_the_batched_env_in_its_workers_with_the_same_results():
    pooled = palaestra.make_vec(
        "ALE/Breakout-v5", 4, vectorization_mode="pool", vector_kwargs={"num_workers": 2},
        max_num_frames_per_episode=200,
    )  # fmt: skip
    batch = palaestra.make_vec("ALE/Breakout-v5", 4, max_num_frames_per_episode=200)
    actions = sample_actions(batch.action_space, 80, seed=1)
    try:
        assert_vectors_same(rollout(pooled, actions, seed=3), rollout(batch, actions, seed=3),
                            key_order=False)  # fmt: skip
    finally:
        pooled.close()
        batch.close()
