"""Batched PCG64 streams draw exactly what each sub-env's own Generator would."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.utils import seeding
from palaestra.vector.native import generators as _generators
from palaestra.vector.native.exact_squares import scalar_pow_square
from palaestra.vector.native.generators import GeneratorBatch


@pytest.fixture(autouse=True, params=["objects", "arrays"])
def backend(request, monkeypatch):
    """Run every test with per-env Generator objects and with array-stepped states."""
    if request.param == "arrays":
        monkeypatch.setattr(_generators, "GENERATOR_OBJECTS_MAX_ENVS", 0)
    return request.param


@settings(max_examples=25, deadline=None)
@given(
    seeds=st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=6),
    count=st.integers(1, 5),
)
def test_rows_draw_like_each_seeded_generator(seeds, count):
    batch = GeneratorBatch(len(seeds))
    batch.seed(np.arange(len(seeds)), seeds)
    draws = batch.rows().uniform(-0.5, 0.25, size=(len(seeds), count))
    for row, seed in enumerate(seeds):
        generator, _ = seeding.np_random(seed)
        np.testing.assert_array_equal(draws[row], generator.uniform(-0.5, 0.25, size=count))


def test_array_bounds_broadcast_per_row_like_generator_uniform():
    batch = GeneratorBatch(2)
    batch.seed(np.arange(2), [5, 6])
    high = np.array([np.pi, 1.0])
    draws = batch.rows().uniform(-high, high, size=(2, 2))
    generator, _ = seeding.np_random(6)
    np.testing.assert_array_equal(draws[1], generator.uniform(-high, high))


def test_unseeded_streams_are_kept_across_resets_with_seed_none():
    batch = GeneratorBatch(1)
    batch.seed(np.arange(1), [9])
    first = batch.rows().uniform(size=(1,))
    batch.seed(np.arange(1), [None])
    generator, _ = seeding.np_random(9)
    np.testing.assert_array_equal(
        np.concatenate([first, batch.rows().uniform(size=(1,))]), generator.uniform(size=2)
    )


def test_generator_snapshots_continue_the_stream():
    batch = GeneratorBatch(1)
    batch.seed(np.arange(1), [2])
    batch.rows().uniform(size=(1, 3))
    generator, _ = seeding.np_random(2)
    generator.uniform(size=3)
    assert batch.generators[0].random() == generator.random()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=50))
def test_scalar_pow_square_equals_numpy_scalar_power(values):
    array = np.array(values)
    expected = [np.float64(value) ** 2 for value in values]
    assert scalar_pow_square(array).tolist() == expected


def test_draws_of_row_subsets_reseeds_and_full_draws_follow_each_stream():
    seeds = [11, 12, 13, 14, 15]
    batch = GeneratorBatch(len(seeds))
    batch.seed(np.arange(5), seeds)
    generators = [seeding.np_random(seed)[0] for seed in seeds]
    rounds = [[0, 2], [2], [1, 2, 4], None, [3], [0, 3]]
    for index, rows in enumerate(rounds):
        if index == 4:
            batch.seed(np.array([3]), [None] * 3 + [99] + [None])
            generators[3] = seeding.np_random(99)[0]
        selected = None if rows is None else np.array(rows)
        draws = batch.rows(selected).uniform(size=(len(rows or seeds), 3))
        for row, values in zip(rows or range(5), draws, strict=True):
            np.testing.assert_array_equal(values, generators[row].uniform(size=3))
    snapshots = batch.generators
    for row in range(5):
        assert snapshots[row].random() == generators[row].random()


@settings(max_examples=30, deadline=None)
@given(
    operations=st.lists(
        st.tuples(st.sets(st.integers(0, 5), min_size=1), st.integers(1, 3), st.booleans()),
        min_size=1,
        max_size=12,
    )
)
def test_subset_draws_of_changing_sizes_and_snapshots_follow_each_stream(operations):
    """Draws made ahead for streams not drawn from (or of another size) are never counted."""
    seeds = [21, 22, 23, 24, 25, 26]
    batch = GeneratorBatch(len(seeds))
    batch.seed(np.arange(6), seeds)
    generators = [seeding.np_random(seed)[0] for seed in seeds]
    for rows, count, snapshot in operations:
        selected = np.array(sorted(rows))
        draws = batch.rows(selected).uniform(size=(len(selected), count))
        for row, values in zip(selected, draws, strict=True):
            np.testing.assert_array_equal(values, generators[row].uniform(size=count))
        if snapshot:
            states = [g.bit_generator.state for g in batch.generators]
            assert states == [g.bit_generator.state for g in generators]
