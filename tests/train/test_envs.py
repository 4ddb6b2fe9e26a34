"""Training-env plumbing: episode tracking, autoreset checks, normalization state."""

import numpy as np
import pytest

import palaestra as gym
from palaestra.train.envs import (
    EpisodeTracker,
    autoreset_mode_name,
    load_normalization_state,
    normalization_state,
)
from palaestra.train.evaluation import evaluate


def test_tracker_matches_record_episode_statistics():
    envs = gym.wrappers.vector.RecordEpisodeStatistics(gym.make_vec("CartPole-v1", num_envs=3))
    tracker = EpisodeTracker(envs, window=1000)
    tracker.reset(seed=0)
    rng = np.random.default_rng(0)
    expected_returns, expected_lengths = [], []
    for _ in range(300):
        _, _, _, _, info = tracker.step(rng.integers(0, 2, size=3))
        if "episode" in info:
            for index in np.flatnonzero(info["_episode"]):
                expected_returns.append(float(info["episode"]["r"][index]))
                expected_lengths.append(int(info["episode"]["l"][index]))
    assert list(tracker.returns) == expected_returns
    assert list(tracker.lengths) == expected_lengths
    assert tracker.episodes == len(expected_returns) > 10


def test_autoreset_mode_names():
    from palaestra.vector import AutoresetMode

    envs = gym.make_vec(
        "CartPole-v1",
        num_envs=1,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
    )
    assert autoreset_mode_name(envs) == "SAME_STEP"


def test_frozen_normalization_does_not_update():
    state = {"observation": {"mean": np.ones(4), "var": np.full(4, 4.0), "count": 10.0}}
    envs = load_normalization_state(gym.make_vec("CartPole-v1", num_envs=2), state)
    observations, _ = envs.reset(seed=0)
    raw, _ = gym.make_vec("CartPole-v1", num_envs=2).reset(seed=0)
    np.testing.assert_allclose(observations, (raw - 1.0) / np.sqrt(4.0 + 1e-8), rtol=1e-5)
    envs.step(np.zeros(2, np.int64))
    assert normalization_state(envs)["observation"]["count"] == 10.0


def test_evaluate_plays_first_episodes_only_with_seeded_rounds():
    class AlwaysLeft:
        def predict(self, observations, deterministic=True):
            return np.zeros(len(observations), dtype=np.int64)

    envs = gym.make_vec("CartPole-v1", num_envs=4)
    first = evaluate(AlwaysLeft(), envs, episodes=10, seed=5)
    again = evaluate(AlwaysLeft(), envs, episodes=10, seed=5)
    np.testing.assert_array_equal(first, again)
    assert first.shape == (10,)


def test_evaluate_rejects_non_positive_episode_counts():
    with pytest.raises(ValueError, match="episodes must be positive"):
        evaluate(None, gym.make_vec("CartPole-v1", num_envs=1), episodes=0)
