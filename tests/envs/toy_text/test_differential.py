"""Seeded toy-text trajectories equal Gymnasium 1.4's: observations, rewards, flags, infos.

Values and types are compared (Python ints, numpy int64 states, int or float rewards, the
``prob`` and ``action_mask`` infos), over many seeds and every option of every env.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from tests.envs.toy_text.conftest import VARIANT_IDS, VARIANTS, assert_same_value


def assert_same_trajectory(ours, theirs, seed: int, steps: int) -> None:
    assert_same_value(ours.reset(seed=seed), theirs.reset(seed=seed), "reset")
    actions = np.random.default_rng(seed).integers(theirs.action_space.n, size=steps)
    for step, action in enumerate(actions.tolist()):
        result, expected = ours.step(action), theirs.step(action)
        assert_same_value(result, expected, f"step {step}, action {action}")
        if expected[2] or expected[3]:
            assert_same_value(ours.reset(), theirs.reset(), f"reset after step {step}")


@pytest.mark.parametrize(("env_id", "kwargs"), VARIANTS, ids=VARIANT_IDS)
def test_seeded_rollouts_match_gymnasium(gymnasium, env_id, kwargs):
    for seed in range(12):
        ours, theirs = palaestra.make(env_id, **kwargs), gymnasium.make(env_id, **kwargs)
        assert_same_trajectory(ours, theirs, seed, steps=60)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), slippery=st.booleans(), rate=st.floats(0.05, 1.0))
def test_frozen_lake_matches_gymnasium_for_any_seed_and_success_rate(seed, slippery, rate):
    gymnasium = pytest.importorskip("gymnasium")
    kwargs = {"is_slippery": slippery, "success_rate": rate, "map_name": "8x8"}
    ours, theirs = (
        palaestra.make("FrozenLake-v1", **kwargs),
        gymnasium.make("FrozenLake-v1", **kwargs),
    )
    assert_same_trajectory(ours, theirs, seed, steps=40)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rainy=st.booleans(), fickle=st.floats(0.0, 1.0))
def test_taxi_matches_gymnasium_for_any_seed_and_weather(seed, rainy, fickle):
    gymnasium = pytest.importorskip("gymnasium")
    kwargs = {"is_rainy": rainy, "fickle_passenger": True, "fickle_probability": fickle}
    assert_same_trajectory(
        palaestra.make("Taxi-v4", **kwargs), gymnasium.make("Taxi-v4", **kwargs), seed, 80
    )


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), natural=st.booleans(), sab=st.booleans())
def test_blackjack_matches_gymnasium_for_any_seed_and_rules(seed, natural, sab):
    gymnasium = pytest.importorskip("gymnasium")
    kwargs = {"natural": natural, "sab": sab}
    assert_same_trajectory(
        palaestra.make("Blackjack-v1", **kwargs), gymnasium.make("Blackjack-v1", **kwargs), seed, 12
    )


@pytest.mark.parametrize("size", [2, 4, 7, 11])
def test_generate_random_map_matches_gymnasium(gymnasium, size):
    from gymnasium.envs.toy_text.frozen_lake import generate_random_map as theirs

    from palaestra.envs.toy_text.frozen_lake import generate_random_map

    for seed in range(10):
        assert generate_random_map(size, 0.6, seed=seed) == theirs(size, 0.6, seed=seed)


@pytest.mark.parametrize(("env_id", "kwargs"), [v for v in VARIANTS if v[0] != "Blackjack-v1"])
def test_transition_table_equals_gymnasiums(gymnasium, env_id, kwargs):
    assert (
        palaestra.make(env_id, **kwargs).unwrapped.P == gymnasium.make(env_id, **kwargs).unwrapped.P
    )


@pytest.mark.parametrize("env_id", ["FrozenLake-v1", "CliffWalking-v1", "Taxi-v4", "Blackjack-v1"])
def test_spaces_metadata_and_spec_match_gymnasium(gymnasium, env_id):
    ours, theirs = palaestra.make(env_id), gymnasium.make(env_id)
    assert repr(ours.observation_space) == repr(theirs.observation_space)
    assert repr(ours.action_space) == repr(theirs.action_space)
    assert ours.metadata == theirs.metadata
    assert ours.spec.max_episode_steps == theirs.spec.max_episode_steps
    assert ours.spec.reward_threshold == theirs.spec.reward_threshold
    assert ours.spec.kwargs == theirs.spec.kwargs


@pytest.mark.parametrize(
    ("env_id", "kwargs"), [v for v in VARIANTS if v[0] not in ("Blackjack-v1",)][:12]
)
def test_ansi_text_matches_gymnasium(gymnasium, env_id, kwargs):
    ours = palaestra.make(env_id, render_mode="ansi", **kwargs)
    theirs = gymnasium.make(env_id, render_mode="ansi", **kwargs)
    ours.reset(seed=3)
    theirs.reset(seed=3)
    assert ours.render() == theirs.render()
    for action in [0, 1, 2, 3, 1, 2, 2, 1]:
        ours.step(action)
        theirs.step(action)
        assert ours.render() == theirs.render()
