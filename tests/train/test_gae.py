"""GAE(lambda) against a hand-computed two-env rollout, including truncation bootstrapping."""

import numpy as np
import pytest

from palaestra.train.returns import gae_advantages

GAMMA, LAMBDA = 0.5, 0.5


def hand_example():
    """Two sub-envs, three steps (NEXT_STEP autoreset convention).

    env 0: steps 0, 1, 2 of one episode that keeps running (bootstrap from last value 4).
    env 1: step 0 truncated (time limit; bootstrap from V(final obs) = 8), step 1 is the
           dummy reset step (masked), step 2 terminates (no bootstrap).
    """
    rewards = np.array([[1.0, 2.0], [1.0, 0.0], [1.0, 3.0]])
    values = np.array([[1.0, 1.0], [2.0, 8.0], [3.0, 1.0]])
    next_values = np.array([[2.0, 8.0], [3.0, 1.0], [4.0, 6.0]])
    terminated = np.array([[False, False], [False, False], [False, True]])
    truncated = np.array([[False, True], [False, False], [False, False]])
    valid = np.array([[True, True], [True, False], [True, True]])
    return rewards, values, next_values, terminated, truncated, valid


def test_gae_matches_hand_computation():
    advantages, returns = gae_advantages(*hand_example(), gamma=GAMMA, gae_lambda=LAMBDA)
    # env 0: d2 = 1 + .5*4 - 3 = 0; d1 = 1 + .5*3 - 2 = .5; d0 = 1 + .5*2 - 1 = 1
    #        A2 = 0, A1 = .5 + .25*0 = .5, A0 = 1 + .25*.5 = 1.125
    # env 1: step 0 truncated: d0 = 2 + .5*8 - 1 = 5, no propagation from step 1 -> A0 = 5
    #        step 1 masked -> 0; step 2 terminated: d2 = 3 + 0 - 1 = 2 -> A2 = 2
    np.testing.assert_allclose(advantages, [[1.125, 5.0], [0.5, 0.0], [0.0, 2.0]])
    np.testing.assert_allclose(returns, [[2.125, 6.0], [2.5, 0.0], [3.0, 3.0]])


def test_truncation_bootstraps_but_termination_does_not():
    base = hand_example()
    rewards, values, next_values, _, _, valid = base
    as_terminated, _ = gae_advantages(
        rewards, values, next_values, base[4], base[3], valid, gamma=GAMMA, gae_lambda=LAMBDA
    )
    # Swapping the flags: env 1's step 0 now terminates -> d0 = 2 - 1 = 1.
    assert as_terminated[0, 1] == pytest.approx(1.0)


def test_lambda_one_gives_discounted_return_minus_value():
    rewards = np.ones((3, 1))
    values = np.zeros((3, 1))
    flags = np.zeros((3, 1), dtype=bool)
    advantages, _ = gae_advantages(
        rewards, values, np.zeros((3, 1)), flags, flags, ~flags, gamma=0.9, gae_lambda=1.0
    )
    np.testing.assert_allclose(advantages[:, 0], [1 + 0.9 + 0.81, 1.9, 1.0], rtol=1e-6)


def test_outputs_are_float32():
    advantages, returns = gae_advantages(*hand_example(), gamma=GAMMA, gae_lambda=LAMBDA)
    assert advantages.dtype == np.float32
    assert returns.dtype == np.float32


def test_lambda_outside_unit_interval_is_rejected():
    with pytest.raises(ValueError, match="gae_lambda must lie in"):
        gae_advantages(*hand_example(), gamma=GAMMA, gae_lambda=-0.1)
