"""Seeding many streams at once gives numpy's PCG64(SeedSequence(seed)) states exactly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra import error
from palaestra.vector.native import generators
from palaestra.vector.native.generators import GeneratorBatch
from palaestra.vector.native.seed_sequences import pcg64_states

# Word boundaries of the seed's 32-bit split, and the largest seed taken in bulk.
EDGE_SEEDS = [0, 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 2**64 - 1]


def numpy_state(seed: int) -> tuple[int, int]:
    state = np.random.PCG64(np.random.SeedSequence(seed)).state["state"]
    return state["state"], state["inc"]


def joined(high: np.ndarray, low: np.ndarray) -> list[int]:
    return [(int(h) << 64) | int(lo) for h, lo in zip(high, low, strict=True)]


def test_edge_seeds_give_numpys_states_and_increments():
    high, low, inc_high, inc_low = pcg64_states(EDGE_SEEDS)
    expected = [numpy_state(seed) for seed in EDGE_SEEDS]
    assert joined(high, low) == [state for state, _ in expected]
    assert joined(inc_high, inc_low) == [inc for _, inc in expected]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=40))
def test_any_seeds_below_2_to_the_64_give_numpys_states(seeds):
    high, low, inc_high, inc_low = pcg64_states(seeds)
    assert joined(high, low) == [numpy_state(seed)[0] for seed in seeds]
    assert joined(inc_high, inc_low) == [numpy_state(seed)[1] for seed in seeds]


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_a_seed_outside_the_bulk_range_is_refused_by_name(seed):
    with pytest.raises(ValueError, match=rf"seeds in \[0, 2\*\*64\), got \[{seed}\]"):
        pcg64_states([seed])


def draws_after_seeding(seeds: list) -> np.ndarray:
    batch = GeneratorBatch(len(seeds), compiled=False)
    batch.seed(np.arange(len(seeds)), seeds)
    return batch.rows().uniform(size=(len(seeds), 3))


def test_a_batch_seeded_in_bulk_draws_what_it_draws_seeded_one_by_one(monkeypatch):
    seeds = list(range(2**40, 2**40 + 64))
    in_bulk = draws_after_seeding(seeds)
    monkeypatch.setattr(generators, "SEEDS_IN_BULK_FROM", 10**9)
    np.testing.assert_array_equal(in_bulk, draws_after_seeding(seeds))


def test_a_batch_with_a_large_seed_seeds_one_by_one_with_the_same_streams():
    seeds = [*range(63), 2**70]
    draws = draws_after_seeding(seeds)
    generator = np.random.Generator(np.random.PCG64(np.random.SeedSequence(2**70)))
    np.testing.assert_array_equal(draws[63], generator.uniform(size=3))


def test_a_batch_still_names_a_bad_seed_as_a_single_env_does():
    with pytest.raises(error.Error, match="Seed must be >= 0, got -3"):
        draws_after_seeding([*range(63), -3])


def test_a_batch_seeded_in_bulk_records_each_seed():
    batch = GeneratorBatch(40)
    batch.seed(np.arange(40), list(range(100, 140)))
    assert batch.seeds == list(range(100, 140))
