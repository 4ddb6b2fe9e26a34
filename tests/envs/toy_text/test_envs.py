"""Toy-text behaviours beyond the Gymnasium comparison: errors, attributes, helpers."""

from __future__ import annotations

import numpy as np
import pytest

import palaestra
from palaestra.envs.toy_text import BlackjackEnv, CliffWalkingEnv, FrozenLakeEnv, TaxiEnv
from palaestra.envs.toy_text.blackjack import (
    hand_total,
    is_natural,
    score,
    settle,
    sum_hand,
    usable_ace,
)
from palaestra.envs.toy_text.frozen_lake import MAPS, generate_random_map, is_valid
from palaestra.envs.toy_text.utils import TransitionArrays, categorical_sample


def test_frozen_lake_without_desc_or_map_name_draws_a_valid_random_8x8_map():
    env = FrozenLakeEnv(map_name=None)
    assert env.desc.shape == (8, 8)
    assert is_valid([[c.decode() for c in row] for row in env.desc.tolist()], 8)


def test_frozen_lake_unknown_map_name_raises_key_error():
    with pytest.raises(KeyError, match="5x5"):
        FrozenLakeEnv(map_name="5x5")


def test_generate_random_map_is_reproducible_and_solvable():
    board = generate_random_map(size=6, p=0.5, seed=11)
    assert board == generate_random_map(size=6, p=0.5, seed=11)
    assert board[0][0] == "S" and board[-1][-1] == "G" and is_valid(board, 6)


def test_frozen_lake_reward_range_follows_the_schedule():
    assert FrozenLakeEnv(reward_schedule=(10, -5, 1)).reward_range == (-5, 10)


def test_frozen_lake_holes_and_goal_are_absorbing():
    env = FrozenLakeEnv(desc=MAPS["4x4"])
    assert env.P[5][0] == [(1.0, 5, 0, True)]
    assert env.P[15][2] == [(1.0, 15, 0, True)]


def test_cliff_walking_cliff_sends_back_to_start_without_ending():
    env = CliffWalkingEnv()
    env.reset(seed=0)
    assert env.step(1) == (36, -100, False, False, {"prob": 1.0})


def test_cliff_walking_goal_terminates():
    env = CliffWalkingEnv()
    env.reset(seed=0)
    env.s = 35
    assert env.step(2) == (47, -1, True, False, {"prob": 1.0})


def test_taxi_encode_decode_round_trip_every_state():
    env = TaxiEnv()
    assert all(env.encode(*env.decode(state)) == state for state in range(500))


def test_taxi_decode_rejects_states_past_499():
    with pytest.raises(AssertionError):
        TaxiEnv().decode(500)


def test_taxi_delivery_pays_20_and_terminates():
    env = TaxiEnv()
    env.reset(seed=0)
    env.s = env.encode(4, 3, 4, 3)
    state, reward, terminated, _, info = env.step(5)
    assert (state, reward, terminated) == (env.encode(4, 3, 3, 3), 20, True)
    assert info["action_mask"].tolist() == [0, 1, 1, 0, 1, 0]


def test_taxi_illegal_pickup_costs_10():
    env = TaxiEnv()
    env.reset(seed=0)
    env.s = env.encode(2, 2, 0, 1)
    assert env.step(4)[1] == -10


def test_blackjack_rejects_actions_outside_discrete_2():
    env = BlackjackEnv()
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="2"):
        env.step(2)


@pytest.mark.parametrize(
    ("hand", "total", "usable", "natural"),
    [
        ([1, 10], 21, 1, True),
        ([1, 5, 9], 15, 0, False),
        ([10, 10, 5], 25, 0, False),
        ([1, 1], 12, 1, False),
    ],
)
def test_blackjack_hand_rules(hand, total, usable, natural):
    assert (sum_hand(hand), usable_ace(hand), is_natural(hand)) == (total, usable, natural)
    assert score(hand) == (0 if total > 21 else total)


def test_blackjack_rules_apply_element_wise_to_arrays():
    totals, usable = hand_total(np.array([7, 12, 11]), np.array([True, True, False]))
    assert totals.tolist() == [17, 12, 11] and usable.tolist() == [True, False, False]
    rewards = settle(
        np.array([21, 21, 18]),
        np.array([21, 19, 20]),
        np.array([True, True, False]),
        np.array([True, False, False]),
        natural=True,
        sab=False,
    )
    assert rewards.tolist() == [0.0, 1.5, -1.0]


def test_categorical_sample_picks_the_first_index_past_the_draw():
    class Fixed:
        def random(self):
            return 0.5

    assert int(categorical_sample([0.25, 0.25, 0.5], Fixed())) == 2
    assert int(categorical_sample([0.5, 0.5], Fixed())) == 1


def test_transition_arrays_pad_narrow_actions_with_unpickable_outcomes():
    arrays = TransitionArrays.from_table(
        {0: {0: [(1.0, 0, 0, True)], 1: [(0.5, 0, 1, False), (0.5, 0, 2, False)]}}, 1, 2
    )
    assert arrays.cumulative.tolist() == [[[1.0, -np.inf], [0.5, 1.0]]]
    assert arrays.sample(np.array([0, 0]), np.array([0, 1]), np.array([0.99, 0.99])).tolist() == [
        0,
        1,
    ]


@pytest.mark.parametrize("env_id", ["FrozenLake-v1", "Taxi-v4", "CliffWalking-v1", "Blackjack-v1"])
def test_env_checker_accepts_every_toy_text_env(env_id):
    from palaestra.utils.env_checker import check_env

    check_env(palaestra.make(env_id).unwrapped, skip_render_check=True)
