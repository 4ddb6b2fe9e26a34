"""Discounted returns and their per-episode normalization, against hand-computed values."""

import numpy as np
import pytest

from palaestra.train.returns import discounted_returns, normalize_per_episode


def test_discounted_returns_sum_backwards_with_discount():
    returns = discounted_returns([1.0, 2.0, 3.0], [False, False, True], [False] * 3, gamma=0.9)
    # G2 = 3, G1 = 2 + 0.9 * 3 = 4.7, G0 = 1 + 0.9 * 4.7 = 5.23
    np.testing.assert_allclose(returns, [5.23, 4.7, 3.0])


def test_discounted_returns_restart_after_termination():
    returns = discounted_returns([1, 1, 1, 1], [False, True, False, True], [False] * 4, 0.5)
    np.testing.assert_allclose(returns, [1.5, 1.0, 1.5, 1.0])


def test_discounted_returns_restart_after_truncation():
    returns = discounted_returns([1, 1, 1, 1], [False] * 4, [False, True, False, False], 0.5)
    np.testing.assert_allclose(returns, [1.5, 1.0, 1.5, 1.0])


def test_discounted_returns_of_an_unfinished_tail_run_to_the_end():
    returns = discounted_returns([2.0, 2.0], [False, False], [False, False], gamma=1.0)
    np.testing.assert_allclose(returns, [4.0, 2.0])


def test_gamma_zero_returns_the_rewards():
    rewards = [0.5, -1.0, 3.0]
    np.testing.assert_allclose(discounted_returns(rewards, [False] * 3, [False] * 3, 0.0), rewards)


def test_discounted_returns_reject_gamma_outside_unit_interval():
    with pytest.raises(ValueError, match="gamma must lie in"):
        discounted_returns([1.0], [True], [False], gamma=1.5)


def test_discounted_returns_reject_mismatched_flags():
    with pytest.raises(ValueError, match="same length 2"):
        discounted_returns([1.0, 1.0], [True], [False, False], gamma=0.9)


def test_normalization_gives_zero_mean_unit_std_per_episode():
    returns = np.array([3.0, 2.0, 1.0, 10.0, 30.0])
    ends = np.array([False, False, True, False, True])
    normalized = normalize_per_episode(returns, ends)
    for episode in (slice(0, 3), slice(3, 5)):
        assert normalized[episode].mean() == pytest.approx(0.0, abs=1e-9)
        assert normalized[episode].std() == pytest.approx(1.0, abs=1e-6)


def test_normalization_matches_hand_computed_values():
    normalized = normalize_per_episode([1.0, 3.0], [False, True])
    # mean 2, std 1: (1 - 2) / (1 + 1e-8), (3 - 2) / (1 + 1e-8)
    np.testing.assert_allclose(normalized, [-1 / (1 + 1e-8), 1 / (1 + 1e-8)], rtol=1e-12)


def test_single_step_episode_is_not_normalized():
    normalized = normalize_per_episode([5.0, 1.0, 3.0], [True, False, True])
    assert normalized[0] == 5.0
    np.testing.assert_allclose(normalized[1:], [-1.0, 1.0], rtol=1e-7)


def test_constant_episode_normalizes_to_zero_thanks_to_epsilon():
    normalized = normalize_per_episode([2.0, 2.0, 2.0], [False, False, True])
    np.testing.assert_array_equal(normalized, [0.0, 0.0, 0.0])


def test_normalization_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="must match in shape"):
        normalize_per_episode([1.0, 2.0], [True])
